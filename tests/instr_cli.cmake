# `ptxgen instr` end to end: where its caret goes, keyed on the position and the
# DiagId (never on the wording). Each case is one CTest test.
set(PTXGEN_INSTR_CASES
    cg_size prefetch_version shared_cta_version misspelled_root operand_rule valid
    bulk_valid bulk_size bulk_shared_cta_version bulk_multicast bulk_target tensor_coords
    bulk_option group_commit group_wait group_wait_needs_n group_copy_option group_target)
foreach(case ${PTXGEN_INSTR_CASES})
  add_test(NAME instr_cli.${case}
           COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen> -DCASE=${case}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/instr/instr_cli_check.cmake)
  set_tests_properties(instr_cli.${case} PROPERTIES LABELS instr TIMEOUT 60)
endforeach()
