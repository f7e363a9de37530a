# `ptxgen --version` (run as: cmake -DPTXGEN=... -DSRC=... -P check.cmake): one line,
# "ptxgen X.Y.Z (commit C)", where C is the checkout's short hash (12 digits, "+changes"
# after it where tracked files differ) or "unknown" outside a git checkout; in a checkout,
# the hash must be HEAD's (a binary built from the tree it says).
execute_process(COMMAND "${PTXGEN}" --version OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ptxgen --version exited with ${rc}")
endif()
if(NOT out MATCHES "^ptxgen [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit (([0-9a-f]+)(\\+changes)?|unknown)\\)\n$")
  message(FATAL_ERROR "ptxgen --version printed '${out}'")
endif()
set(named "${CMAKE_MATCH_2}")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND NOT named STREQUAL head)
    message(FATAL_ERROR "ptxgen --version names '${named}', HEAD is '${head}': '${out}'")
  endif()
endif()
