# `ptxgen run --sanitize TOOL` and `ptxgen device-worker` from the command line
# (issue 12, gpu-sanitize). The log parsing, the worker protocol under a fake
# sanitizer and the verdicts are tests/unit/sanitizer_*.cpp; the real tool runs
# on the GPU machine only (tools/sanitize_corpus_device.sh).
set(PTXGEN_SANITIZE_SPEC ${PROJECT_SOURCE_DIR}/specs/thread_scope/cross_thread_readback.toml)
function(ptxgen_sanitize_status_test name status)
  add_test(NAME sanitize.${name}
           COMMAND bash -c [=[want=$1; shift; "$@"; rc=$?; echo "exit $rc, want $want"; [ "$rc" = "$want" ]]=]
                   sanitize ${status} $<TARGET_FILE:ptxgen> ${ARGN})
  set_tests_properties(sanitize.${name} PROPERTIES LABELS unit TIMEOUT 60)
endfunction()
ptxgen_sanitize_status_test(unknown_tool_usage_2 2 run --sanitize leakcheck ${PTXGEN_SANITIZE_SPEC})
ptxgen_sanitize_status_test(with_sim_usage_2 2 run --sanitize memcheck --backend sim
                            ${PTXGEN_SANITIZE_SPEC})
ptxgen_sanitize_status_test(zero_timeout_usage_2 2 run --sanitize memcheck --sanitize-timeout 0
                            ${PTXGEN_SANITIZE_SPEC})
ptxgen_sanitize_status_test(worker_extra_argument_usage_2 2 device-worker stray)
ptxgen_sanitize_status_test(worker_missing_requests_3 3 device-worker --requests /nonexistent/req)
# Garbage on stdin is not a request: exit 3, nothing run.
add_test(NAME sanitize.worker_malformed_requests_3
         COMMAND bash -c [=[printf 'not a request' | "$0" device-worker; rc=$?
                            echo "exit $rc, want 3"; [ "$rc" = 3 ]]=] $<TARGET_FILE:ptxgen>)
set_tests_properties(sanitize.worker_malformed_requests_3 PROPERTIES LABELS unit TIMEOUT 60)

# No compute-sanitizer anywhere: the run cannot start (exit 3, setup no_sanitizer in
# the report), before any GPU is looked for. Skipped (77) where the toolkit has one.
add_test(NAME sanitize.no_sanitizer_exit_3
         COMMAND bash -c [=[bin=$0 spec=$1
                            ptxas=$(command -v ptxas) || exit 77
                            for d in "$(dirname "$ptxas")" /usr/local/cuda/bin; do
                              [ -x "$d/compute-sanitizer" ] && exit 77
                            done
                            dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            PATH=/usr/bin:/bin "$bin" run --sanitize racecheck --ptxas "$ptxas" \
                              --report "$dir/r.json" "$spec"; rc=$?
                            echo "exit $rc, want 3"; cat "$dir/r.json"
                            [ "$rc" = 3 ] && grep -q '"setup": "no_sanitizer"' "$dir/r.json"]=]
                 $<TARGET_FILE:ptxgen> ${PTXGEN_SANITIZE_SPEC})
set_tests_properties(sanitize.no_sanitizer_exit_3 PROPERTIES LABELS unit TIMEOUT 60 SKIP_RETURN_CODE 77)

# One beside the given ptxas is found (the fake): the run gets past that check to
# the GPU, which this machine lacks (setup no_gpu; 77 where there is a GPU).
add_test(NAME sanitize.found_beside_ptxas
         COMMAND bash -c [=[bin=$0 spec=$1 fake=$2
                            ptxas=$(command -v ptxas) || exit 77
                            command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && exit 77
                            dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            ln -s "$ptxas" "$dir/ptxas"; cp "$fake" "$dir/compute-sanitizer"
                            PATH=/usr/bin:/bin "$bin" run --sanitize racecheck --ptxas "$dir/ptxas" \
                              --report "$dir/r.json" "$spec"; rc=$?
                            echo "exit $rc, want 3"; cat "$dir/r.json"
                            [ "$rc" = 3 ] && grep -q '"setup": "no_gpu"' "$dir/r.json"]=]
                 $<TARGET_FILE:ptxgen> ${PTXGEN_SANITIZE_SPEC}
                 ${PROJECT_SOURCE_DIR}/tests/fake_sanitizer/compute-sanitizer)
set_tests_properties(sanitize.found_beside_ptxas PROPERTIES LABELS unit TIMEOUT 60 SKIP_RETURN_CODE 77)

# tests/unit/sanitizer_runner.cpp runs build/ptxgen's device-worker.
add_dependencies(ptxgen_unit ptxgen)
