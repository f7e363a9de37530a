# Hostile input and a hostile environment, through the built ptxgen (label hostile):
# bash scripts in tests/hostile/ (see each script's header). They run ptxgen under
# `timeout` and `ulimit -v`; the sanitizer build drops the memory cap, since
# AddressSanitizer reserves terabytes of address space.
find_program(PTXGEN_BASH bash)
if(PTXGEN_BASH)
  set(_hostile_env "")
  if(PTXGEN_SANITIZE)
    set(_hostile_env "HOSTILE_NO_VLIMIT=1")
  endif()
  foreach(script input outputs environment)
    add_test(NAME hostile.${script}
             COMMAND ${PTXGEN_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/${script}.sh
                     $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/hostile/${script})
    set_tests_properties(hostile.${script} PROPERTIES LABELS hostile TIMEOUT 600
                                                      ENVIRONMENT "${_hostile_env}")
  endforeach()
endif()
