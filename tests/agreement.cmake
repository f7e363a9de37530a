# ptxgen's validator against ptxas, form by form (tests/agreement/agreement.cpp). Not in the
# sanitizer build: its printing is exercised by the ptx_* unit tests there (tools/sanitize.sh).
if(PTXGEN_SANITIZE)
  return()
endif()
add_executable(ptxgen_agreement ${CMAKE_CURRENT_SOURCE_DIR}/agreement/agreement.cpp)
target_link_libraries(ptxgen_agreement PRIVATE ptxgen_driver)
target_compile_options(ptxgen_agreement PRIVATE ${PTXGEN_WARNINGS})
add_test(NAME ptxas.agreement COMMAND ptxgen_agreement)
set_tests_properties(ptxas.agreement PROPERTIES LABELS "ptxas;agreement" SKIP_RETURN_CODE 77
                     TIMEOUT 600)
