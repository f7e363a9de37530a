# invalid: every spec in specs/invalid/ must be rejected with exactly the
# diagnostic its `# expect-error: LINE:COL: MESSAGE` line names, exit status 1,
# and no output file (tools/check_invalid_spec.sh checks all three).
file(GLOB PTXGEN_INVALID_SPECS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/specs/invalid/*.toml)
foreach(spec ${PTXGEN_INVALID_SPECS})
  get_filename_component(stem ${spec} NAME_WE)
  add_test(NAME invalid.${stem}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/check_invalid_spec.sh $<TARGET_FILE:ptxgen> ${spec})
  set_tests_properties(invalid.${stem} PROPERTIES LABELS invalid)
endforeach()

# races: specs whose every op passes the contract but whose launch as a whole
# is wrong (a read before the wait, a read of another thread's bytes without
# the barrier); `ptxgen check` finds them by running the ops on the reference,
# and `ptxgen emit` refuses them with the same error and writes nothing.
file(GLOB PTXGEN_RACE_SPECS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/specs/races/*.toml)
foreach(spec ${PTXGEN_RACE_SPECS})
  get_filename_component(stem ${spec} NAME_WE)
  add_test(NAME races.${stem}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/check_invalid_spec.sh $<TARGET_FILE:ptxgen>
                   ${spec})
  set_tests_properties(races.${stem} PROPERTIES LABELS invalid)
endforeach()

# wrong_kernel: specs whose ops pass the contract and the reference's own checks,
# but whose kernel does not do what their `[[expect]]` tables say; `ptxgen check`
# refuses them after running the ops on the reference (check_expectation_failed), and
# `ptxgen emit` with them.
file(GLOB PTXGEN_WRONG_KERNEL_SPECS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/specs/wrong_kernel/*.toml)
foreach(spec ${PTXGEN_WRONG_KERNEL_SPECS})
  get_filename_component(stem ${spec} NAME_WE)
  add_test(NAME wrong_kernel.${stem}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/check_invalid_spec.sh $<TARGET_FILE:ptxgen>
                   ${spec})
  set_tests_properties(wrong_kernel.${stem} PROPERTIES LABELS invalid)
endforeach()
