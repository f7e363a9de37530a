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
