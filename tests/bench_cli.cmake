# `ptxgen bench SPEC...` (issue 13) from the command line, label unit: its usage errors
# (exit 2, before any GPU is looked for) and, where there is no GPU (CI), the exit status
# of the environment (3, as `run --backend cuda`), with no --json file written. The
# timing itself runs on the GPU machine (tools/bench_device.sh, docs/benchmarks.md);
# its arithmetic (median, GB/s, bytes moved) is tests/unit/bench_*.cpp.
set(PTXGEN_BENCH_SPEC ${PROJECT_SOURCE_DIR}/specs/seed/copy_async.toml)
function(ptxgen_bench_status_test name status)
  add_test(NAME bench_cli.${name}
           COMMAND bash -c [=[want=$1; shift; "$@"; rc=$?; echo "exit $rc, want $want"; [ "$rc" = "$want" ]]=]
                   bench_cli ${status} $<TARGET_FILE:ptxgen> bench ${ARGN})
  set_tests_properties(bench_cli.${name} PROPERTIES LABELS unit TIMEOUT 60)
endfunction()
ptxgen_bench_status_test(no_spec_usage_2 2)
ptxgen_bench_status_test(zero_reps_usage_2 2 --reps 0 ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(bad_reps_usage_2 2 --reps many ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(negative_reps_usage_2 2 --reps -1 ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(negative_warmup_usage_2 2 --warmup -2 ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(bad_target_usage_2 2 --target sm_x ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(unknown_option_usage_2 2 --frobnicate ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(bad_diagnostics_format_usage_2 2 --diagnostics-format=xml ${PTXGEN_BENCH_SPEC})
ptxgen_bench_status_test(help_0 0 --help)

# No GPU: exit 3 and a message that says so; the --json file is not written. Skipped (77)
# where a GPU is there (nvidia-smi lists one).
add_test(NAME bench_cli.no_gpu_exit_3
         COMMAND bash -c [=[command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && exit 77
                            dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            "$0" bench --json "$dir/b.json" "$1" 2>"$dir/err"; rc=$?
                            echo "exit $rc, want 3"; cat "$dir/err"
                            [ "$rc" = 3 ] && grep -q 'no usable GPU' "$dir/err" && [ ! -e "$dir/b.json" ]]=]
                 $<TARGET_FILE:ptxgen> ${PTXGEN_BENCH_SPEC})
set_tests_properties(bench_cli.no_gpu_exit_3 PROPERTIES LABELS unit TIMEOUT 60 SKIP_RETURN_CODE 77)
