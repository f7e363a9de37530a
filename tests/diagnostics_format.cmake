# --diagnostics-format (issue 13): `check` of every invalid spec in JSON and SARIF
# gives the same file, line, column and DiagId as the spec's `# expect-error`
# line; the text format is the default and unchanged; an unknown format is a
# usage error on every command that takes the option; `asm` and `run` give
# ptxas's messages, the loader's and the reference's diagnostics as data.

add_test(NAME diagnostics_format.invalid_specs
         COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen>
                 -DSPECS=${PROJECT_SOURCE_DIR}/specs/invalid
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/diagnostics_format/check_specs.cmake)
add_test(NAME diagnostics_format.usage
         COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen>
                 -DSPEC=${PROJECT_SOURCE_DIR}/specs/invalid/bad_dtype.toml
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/diagnostics_format/check_usage.cmake)
add_test(NAME diagnostics_format.asm_run
         COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen> -DROOT=${PROJECT_SOURCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/diagnostics_format_asm_run
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/diagnostics_format/check_asm_run.cmake)
set_tests_properties(diagnostics_format.invalid_specs diagnostics_format.usage
                     diagnostics_format.asm_run
                     PROPERTIES LABELS "invalid;diagnostics" TIMEOUT 300)
