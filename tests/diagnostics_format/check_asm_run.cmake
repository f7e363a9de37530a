# Run by tests/diagnostics_format.cmake: -DPTXGEN=<ptxgen> -DROOT=<source dir> -DWORK=<scratch>.
# --diagnostics-format on `asm` and `run`: ptxas's messages, a spec that does not
# load and the reference's refusal as JSON Lines and SARIF, with the positions they
# must have. A fake ptxas (written here, so no toolkit is needed) rejects any PTX
# holding a cp.async with an error at line 22 and ptxas's closing "aborted" line;
# the positions below are counted by hand in tests/data/asm/bad_chunk.ptx, whose
# line 22 is "\tcp.async.cg.shared.global [%r3], [%rd4], 8;" (a tab, then 43 bytes).

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(bad_ptx "${ROOT}/tests/data/asm/bad_chunk.ptx")
set(seed "${ROOT}/specs/seed/copy_async.toml")
set(invalid "${ROOT}/specs/invalid/bad_dtype.toml")

# A ptxas that finds its -o and its PTX among the arguments (asm passes -v, run not).
set(find_args "out=\nptx=\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=$2; shift;; -*) ;; *) ptx=$1;; esac; shift; done\n")
file(WRITE "${WORK}/rejecting" "#!/bin/sh\n${find_args}"
     "if grep -q cp.async \"$ptx\"; then\n"
     "  echo \"ptxas $ptx, line 22; error   : Argument 2 of instruction 'cp.async': bad size\"\n"
     "  echo 'ptxas fatal   : Ptx assembly aborted due to errors'\n  exit 255\nfi\n"
     "printf CUBIN > \"$out\"\n")
file(WRITE "${WORK}/accepting" "#!/bin/sh\n${find_args}printf CUBIN > \"$out\"\n")
file(CHMOD "${WORK}/rejecting" "${WORK}/accepting" FILE_PERMISSIONS OWNER_READ OWNER_WRITE
     OWNER_EXECUTE)

# ptxgen(<out var> <rc var> <args>...): runs ptxgen with the cubin cache off; the
# standard error into <out var>.
function(ptxgen out_var rc_var)
  execute_process(COMMAND "${PTXGEN}" ${ARGN} --no-cache RESULT_VARIABLE rc OUTPUT_QUIET
                  ERROR_VARIABLE err TIMEOUT 60)
  message(STATUS "ptxgen ${ARGN}\n  -> ${rc}\n${err}")
  set(${out_var} "${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

# json_lines(<text> <list var>): the lines of JSON Lines output, each checked to be
# a JSON object (split by hand: messages may hold ';', CMake's list separator).
function(json_lines text var)
  set(count 0)
  set(rest "${text}")
  while(NOT rest STREQUAL "")
    string(FIND "${rest}" "\n" nl)
    if(nl EQUAL -1)
      message(FATAL_ERROR "the last JSON line has no newline:\n${text}")
    endif()
    string(SUBSTRING "${rest}" 0 ${nl} line)
    math(EXPR next "${nl} + 1")
    string(SUBSTRING "${rest}" ${next} -1 rest)
    string(JSON id ERROR_VARIABLE bad GET "${line}" id)
    if(bad)
      message(FATAL_ERROR "not a JSON object: '${line}' (${bad}) in:\n${text}")
    endif()
    set(${var}_${count} "${line}" PARENT_SCOPE)
    math(EXPR count "${count} + 1")
  endwhile()
  set(${var}_count ${count} PARENT_SCOPE)
endfunction()

# expect_fields(<json> key value ...): each key of the object has the value; a key
# may be a path, its steps separated by '/' ("diagnostics/0/line").
function(expect_fields json)
  set(args ${ARGN})
  list(LENGTH args n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET args ${i} key)
    list(GET args ${j} want)
    string(REPLACE "/" ";" path "${key}")
    string(JSON got GET "${json}" ${path})
    if(NOT got STREQUAL want)
      message(FATAL_ERROR "'${key}' is '${got}', expected '${want}' in ${json}")
    endif()
  endforeach()
endfunction()

# --- asm: ptxas's error at the line of a .ptx input; its "aborted" line left out.
ptxgen(err rc asm "${bad_ptx}" --arch sm_80 --ptxas "${WORK}/rejecting" --diagnostics-format=json)
json_lines("${err}" d)
if(NOT rc EQUAL 1 OR NOT d_count EQUAL 1)
  message(FATAL_ERROR "asm json: exit ${rc}, ${d_count} diagnostics, expected 1 and 1")
endif()
expect_fields("${d_0}" id run_ptxas_rejected severity error file "${bad_ptx}" line 22 column 2
              end_column 45)

ptxgen(err rc asm "${bad_ptx}" --arch sm_80 --ptxas "${WORK}/rejecting" --diagnostics-format=sarif)
string(JSON n ERROR_VARIABLE bad LENGTH "${err}" runs 0 results)
if(bad OR NOT rc EQUAL 1 OR NOT n EQUAL 1)
  message(FATAL_ERROR "asm sarif: exit ${rc}, ${n} results (${bad}):\n${err}")
endif()
string(JSON rule GET "${err}" runs 0 results 0 ruleId)
string(JSON uri GET "${err}" runs 0 results 0 locations 0 physicalLocation artifactLocation uri)
string(JSON region GET "${err}" runs 0 results 0 locations 0 physicalLocation region)
expect_fields("${region}" startLine 22 startColumn 2 endColumn 45)
if(NOT rule STREQUAL "run_ptxas_rejected" OR NOT uri STREQUAL bad_ptx)
  message(FATAL_ERROR "asm sarif: ruleId '${rule}', uri '${uri}'")
endif()

# A spec's PTX exists only in memory: the diagnostic names the spec, at no line.
ptxgen(err rc asm "${seed}" --arch sm_80 --ptxas "${WORK}/rejecting" --diagnostics-format=json)
json_lines("${err}" d)
if(NOT rc EQUAL 1 OR NOT d_count EQUAL 1)
  message(FATAL_ERROR "asm json of a spec: exit ${rc}, ${d_count} diagnostics")
endif()
expect_fields("${d_0}" id run_ptxas_rejected file "${seed}" line 0 column 0)

# A spec that does not load: the loader's diagnostic, and ptxas never runs.
ptxgen(err rc asm "${invalid}" --arch sm_80 --ptxas "${WORK}/rejecting" --diagnostics-format=json)
json_lines("${err}" d)
if(NOT rc EQUAL 1 OR d_count LESS 1)
  message(FATAL_ERROR "asm json of an invalid spec: exit ${rc}")
endif()
expect_fields("${d_0}" id spec_unknown_dtype file "${invalid}")

# --- run: ptxas's rejection of a --ptx file, at its line; the report holds it too.
ptxgen(err rc run "${seed}" --backend sim --ptx "${bad_ptx}" --ptxas "${WORK}/rejecting" -j 1
       --report "${WORK}/report.json" --diagnostics-format=json)
json_lines("${err}" d)
if(NOT rc EQUAL 1 OR NOT d_count EQUAL 1)
  message(FATAL_ERROR "run json: exit ${rc}, ${d_count} diagnostics, expected 1 and 1")
endif()
expect_fields("${d_0}" id run_ptxas_rejected file "${bad_ptx}" line 22 column 2 end_column 45)
file(READ "${WORK}/report.json" report)
string(JSON c GET "${report}" cases 0)
expect_fields("${c}" stage ptxas diag_ids/0 run_ptxas_rejected diagnostics/0/line 22
              diagnostics/0/file "${bad_ptx}")

# ptxgen's own PTX rejected: the diagnostic names the spec.
ptxgen(err rc run "${seed}" --backend sim --ptxas "${WORK}/rejecting" --diagnostics-format=sarif)
string(JSON rule ERROR_VARIABLE bad GET "${err}" runs 0 results 0 ruleId)
string(JSON uri GET "${err}" runs 0 results 0 locations 0 physicalLocation artifactLocation uri)
if(bad OR NOT rc EQUAL 1 OR NOT rule STREQUAL "run_ptxas_rejected" OR NOT uri STREQUAL seed)
  message(FATAL_ERROR "run sarif: exit ${rc}, ruleId '${rule}', uri '${uri}' (${bad}):\n${err}")
endif()

# A spec that does not load, and one the reference refuses (unchecked, the contract
# lets its race through): their DiagIds, in the order of the arguments.
ptxgen(err rc run "${invalid}" "${ROOT}/specs/races/missing_wait.toml" --unchecked --backend sim
       --ptxas "${WORK}/accepting" --diagnostics-format=json)
json_lines("${err}" d)
if(NOT rc EQUAL 1 OR d_count LESS 2)
  message(FATAL_ERROR "run json of refused specs: exit ${rc}, ${d_count} diagnostics")
endif()
expect_fields("${d_0}" id spec_unknown_dtype file "${invalid}")
math(EXPR last "${d_count} - 1")
string(JSON id GET "${d_${last}}" id)
string(JSON file GET "${d_${last}}" file)
if(NOT id MATCHES "^check_" OR NOT file MATCHES "missing_wait\\.toml$")
  message(FATAL_ERROR "run json: the last diagnostic is [${id}] in '${file}', expected a "
                      "check_* of missing_wait.toml")
endif()

# The text format is the default and unchanged: a line per case that did not pass.
ptxgen(err rc run "${invalid}" --backend sim --ptxas "${WORK}/accepting")
ptxgen(err_text rc_text run "${invalid}" --backend sim --ptxas "${WORK}/accepting"
       --diagnostics-format=text)
if(NOT err STREQUAL err_text OR NOT err MATCHES "bad_dtype\\.toml: invalid: ")
  message(FATAL_ERROR "run --diagnostics-format=text differs from the default:\n${err}\n---\n"
                      "${err_text}")
endif()
