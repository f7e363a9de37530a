# Script mode (cmake -DSRC=... -DOUT=... -P cmake/commit.cmake), run at every build of the
# ptxgen command: writes OUT, a header defining PTXGEN_COMMIT, the commit `ptxgen --version`
# names: the checkout's short hash, with "+changes" where tracked files differ from it, or
# "unknown" outside a git checkout (a source package). OUT is rewritten (atomically) only
# when the text changes, so an unchanged commit rebuilds nothing.
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE hash RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(rc EQUAL 0)
    set(commit "${hash}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" status --porcelain
                            --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND NOT changes STREQUAL "")
      string(APPEND commit "+changes")
    endif()
  endif()
endif()
set(text "#pragma once\n// Written by cmake/commit.cmake at build time.\n#define PTXGEN_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  get_filename_component(dir "${OUT}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  string(RANDOM LENGTH 12 tag)
  file(WRITE "${OUT}.${tag}.tmp" "${text}")
  file(RENAME "${OUT}.${tag}.tmp" "${OUT}")
endif()
