# One cubin-cache scenario, run with `cmake -P` by tests/cache.cmake:
#   -DPTXGEN=<ptxgen> -DPTX=<a PTX file> -DWORK=<scratch dir> -DSCENARIO=<name>
# The fake ptxas appends a line to WORK/runs per assembly and to WORK/versions per
# `--version`, so the test counts what ptxgen started.

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/bin" "${WORK}/out")
set(ptxas "${WORK}/bin/ptxas")
file(WRITE "${ptxas}" "#!/bin/sh
if [ \"$1\" = --version ]; then echo v >> '${WORK}/versions'; echo 'fake ptxas, release 9.9'; exit 0; fi
echo r >> '${WORK}/runs'
arch=$1; shift; [ \"$1\" = -v ] && shift; shift; out=$1; ptx=$2
{ printf 'CUBIN:%s:' \"$arch\"; cat \"$ptx\"; } > \"$out\"
")
file(CHMOD "${ptxas}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(cache "${WORK}/cache")

# ptxgen_env(<env assignments...> -- <ptxgen args...>): sets RC and OUT.
function(ptxgen_env)
  list(FIND ARGN "--" split)
  list(SUBLIST ARGN 0 ${split} env)
  math(EXPR first "${split} + 1")
  list(SUBLIST ARGN ${first} -1 args)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PTXGEN_CACHE_DIR=${cache} ${env} "${PTXGEN}"
                          ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
  message(STATUS "ptxgen ${args}\n  -> ${rc}\n${out}${err}")
  set(RC "${rc}" PARENT_SCOPE)
  set(OUT "${out}${err}" PARENT_SCOPE)
endfunction()

function(asm)
  ptxgen_env(${ARGN} -- asm "${PTX}" --arch sm_80 --ptxas "${ptxas}" -o "${WORK}/out/k.cubin")
  if(NOT RC EQUAL 0)
    message(FATAL_ERROR "ptxgen asm failed (${RC}): ${OUT}")
  endif()
  set(RC "${RC}" PARENT_SCOPE)
endfunction()

# expect_count(<file> <n>): WORK/<file> has n lines (0 when missing).
function(expect_count name want)
  set(n 0)
  if(EXISTS "${WORK}/${name}")
    file(STRINGS "${WORK}/${name}" lines)
    list(LENGTH lines n)
  endif()
  if(NOT n EQUAL want)
    message(FATAL_ERROR "expected ${want} line(s) in ${name}, got ${n}")
  endif()
endfunction()

function(expect_entries want)
  ptxgen_env(-- cache stats)
  if(NOT RC EQUAL 0 OR NOT OUT MATCHES ": ${want} entries, ")
    message(FATAL_ERROR "expected ${want} cache entries: ${OUT}")
  endif()
endfunction()

function(expect_cubin)
  file(READ "${WORK}/out/k.cubin" got)
  file(READ "${PTX}" ptx_text)
  if(NOT got STREQUAL "CUBIN:-arch=sm_80:${ptx_text}")
    message(FATAL_ERROR "k.cubin is not the fake ptxas's output")
  endif()
endfunction()

if(SCENARIO STREQUAL "hit")
  asm()
  expect_count(runs 1)
  expect_cubin()
  file(REMOVE "${WORK}/out/k.cubin")
  asm()
  expect_count(runs 1) # the cubin came from the cache
  expect_count(versions 1) # and the version from its record
  expect_cubin()
  expect_entries(1)
elseif(SCENARIO STREQUAL "bypass")
  asm(PTXGEN_NO_CACHE=1)
  expect_count(runs 1)
  if(EXISTS "${cache}")
    message(FATAL_ERROR "PTXGEN_NO_CACHE=1 still wrote ${cache}")
  endif()
  ptxgen_env(-- asm "${PTX}" --arch sm_80 --ptxas "${ptxas}" --no-cache -o "${WORK}/out/k.cubin")
  expect_count(runs 2)
  if(EXISTS "${cache}")
    message(FATAL_ERROR "--no-cache still wrote ${cache}")
  endif()
  asm()
  expect_count(runs 3)
  ptxgen_env(-- asm "${PTX}" --arch sm_80 --ptxas "${ptxas}" --no-cache -o "${WORK}/out/k.cubin")
  expect_count(runs 4) # not read either
  asm(PTXGEN_NO_CACHE=0)
  expect_count(runs 4)
elseif(SCENARIO STREQUAL "concurrent")
  # The COMMANDs of one execute_process run at the same time (as a pipeline).
  set(common asm "${PTX}" --arch sm_80 --ptxas "${ptxas}")
  set(env ${CMAKE_COMMAND} -E env PTXGEN_CACHE_DIR=${cache} "${PTXGEN}")
  execute_process(COMMAND ${env} ${common} -o "${WORK}/out/a.cubin"
                  COMMAND ${env} ${common} -o "${WORK}/out/b.cubin"
                  COMMAND ${env} ${common} -o "${WORK}/out/c.cubin"
                  RESULTS_VARIABLE results TIMEOUT 100)
  if(NOT results STREQUAL "0;0;0")
    message(FATAL_ERROR "concurrent asm runs failed: ${results}")
  endif()
  file(STRINGS "${WORK}/runs" lines)
  list(LENGTH lines before)
  expect_entries(1)
  asm()
  expect_count(runs ${before})
  expect_cubin()
  file(GLOB_RECURSE left "${cache}/*")
  foreach(f ${left})
    get_filename_component(name "${f}" NAME)
    if(name MATCHES "^\\.")
      message(FATAL_ERROR "a temporary stayed behind: ${f}")
    endif()
  endforeach()
elseif(SCENARIO STREQUAL "clear")
  asm()
  expect_entries(1)
  ptxgen_env(-- cache clear)
  expect_entries(0)
  asm()
  expect_count(runs 2)
  ptxgen_env(-- cache frobnicate)
  if(NOT RC EQUAL 2)
    message(FATAL_ERROR "an unknown action must be a usage error (2), got ${RC}")
  endif()
  ptxgen_env(-- cache dir)
  if(NOT OUT MATCHES "^${cache}\n")
    message(FATAL_ERROR "cache dir: ${OUT}")
  endif()
else()
  message(FATAL_ERROR "unknown scenario '${SCENARIO}'")
endif()
