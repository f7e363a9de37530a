# `ptxgen run --ptx` end to end: the exit statuses of a foreign kernel's run
# (tests/unit/run_binding.cpp checks the outcomes themselves). Each case runs
# the command and compares its exit status with the one `ptxgen run --help`
# documents: 4 unsupported by the simulator, 2 usage, 0 pass, 1 input.
set(PTXGEN_RUN_BINDING_DATA ${PROJECT_SOURCE_DIR}/tests/data/run_binding)
function(ptxgen_run_binding_test name status)
  add_test(NAME run_binding.${name}
           COMMAND bash -c [=[want=$1; shift; "$@"; rc=$?; echo "exit $rc, want $want"; [ "$rc" = "$want" ]]=]
                   run_binding ${status} $<TARGET_FILE:ptxgen> run --backend sim ${ARGN})
  set_tests_properties(run_binding.${name} PROPERTIES LABELS sim TIMEOUT 120)
endfunction()
ptxgen_run_binding_test(unsupported_exit_4 4 ${PTXGEN_RUN_BINDING_DATA}/rows.toml
                        --ptx ${PTXGEN_RUN_BINDING_DATA}/unsupported.ptx)
ptxgen_run_binding_test(two_entries_usage_2 2 ${PTXGEN_RUN_BINDING_DATA}/rows.toml
                        --ptx ${PTXGEN_RUN_BINDING_DATA}/two_entries.ptx)
ptxgen_run_binding_test(mangled_entry_pass 0 ${PTXGEN_RUN_BINDING_DATA}/rows.toml
                        --ptx ${PTXGEN_RUN_BINDING_DATA}/two_entries.ptx --entry _Z4rowsPKhPhj)
ptxgen_run_binding_test(param_type_input_1 1 ${PTXGEN_RUN_BINDING_DATA}/rows.toml
                        --ptx ${PTXGEN_RUN_BINDING_DATA}/interleaved.ptx)
ptxgen_run_binding_test(entry_without_ptx_usage_2 2 ${PTXGEN_RUN_BINDING_DATA}/rows.toml
                        --entry rows)
# nvcc's sm_90 PTX (`.target sm_90`) with no --arch: the simulator assembles it for
# the file's target; for sm_80, ptxas would refuse it (exit 1).
ptxgen_run_binding_test(file_target_sm90_pass 0 ${PROJECT_SOURCE_DIR}/tests/foreign/specs/ring2.toml
                        --ptx ${PROJECT_SOURCE_DIR}/tests/foreign/ptx/ring2.sm90.O3.ptx
                        --entry _Z5ring2PKjPjj)
