# `ptxgen asm` end to end through the built executable: exit statuses 0/1/2/3,
# written and untouched files. Scenarios needing the real ptxas are skipped
# (SKIP_REGULAR_EXPRESSION, since `cmake -P` cannot exit 77) where none is found;
# the others use fake ptxas scripts the check script writes at test time.

# One CTest test per `ptxgen asm` scenario; the script checks exit status and files.
foreach(scenario ok multi fatbin rejected usage unsupported no_ptxas crash hang garbage)
  add_test(NAME asm_cli.${scenario}
           COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen>
                   -DDATA=${CMAKE_CURRENT_SOURCE_DIR}/data/asm
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/asm_cli/${scenario}
                   -DSCENARIO=${scenario}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/fake_ptxas/asm_cli_check.cmake)
  set_tests_properties(asm_cli.${scenario} PROPERTIES LABELS "asm;ptxas" TIMEOUT 120
                       SKIP_REGULAR_EXPRESSION "PTXGEN-SKIP:")
endforeach()
