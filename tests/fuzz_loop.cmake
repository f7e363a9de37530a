# issue 12, fuzz-loop: `ptxgen fuzz` (label fuzzloop). The shrinker's own unit tests are
# tests/unit/fuzz_shrink_*.cpp (unit.fuzz_shrink_*).
# (TIMEOUT 600: only against a hang; the sanitizer build, tools/sanitize.sh, runs them slower.)

# The deterministic smoke: a fixed seed, a few hundred generated specs on the simulator,
# no finding (exit 0), every spec counted in the report and assembled by ptxas, and one
# mutant of each refused by `check` with its rule's DiagId (counted under the rule).
# 300 specs; 50 in the sanitizer build (CI), where each is ~13 times slower.
if(PTXGEN_SANITIZE)
  set(PTXGEN_FUZZ_SMOKE_COUNT 50)
else()
  set(PTXGEN_FUZZ_SMOKE_COUNT 300)
endif()
add_test(NAME fuzz_loop.smoke
         COMMAND bash -c [=[rm -f "$1"; "${@:3}"; rc=$?; [ "$rc" = 0 ] || exit "$rc"
                            grep -q '"specs": '"$2"',' "$1" && grep -q '"findings": \[\]' "$1" &&
                            grep -q '"backend": "sim", "cases": '"$2"',' "$1" &&
                            ! grep -q '"ptxas_ms": 0,' "$1" &&
                            grep -q '"mutants_refused": '"$2"',' "$1" &&
                            grep -q '"mutants_by_rule": \[{"rule": "block 0", "diag_id": "spec_block_range", "mutants": '"$2"', "refused": '"$2"'}' "$1"]=]
                 smoke ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_smoke.json ${PTXGEN_FUZZ_SMOKE_COUNT}
                 $<TARGET_FILE:ptxgen> fuzz --seed 20261130 --count ${PTXGEN_FUZZ_SMOKE_COUNT} --backend sim -j 2
                 --no-cache # each spec really through ptxas (ptxas_ms > 0), not the cubin cache
                 --mutants 1 --report ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_smoke.json)
set_tests_properties(fuzz_loop.smoke PROPERTIES LABELS fuzzloop TIMEOUT 600)

# A fault injected into the simulator's output (hidden --inject-fault) is found, shrunk
# and saved; see the script.
add_test(NAME fuzz_loop.injected_fault
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/injected_fault.sh
                 $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_injected 7 24
                 cp.async.cg sim)
set_tests_properties(fuzz_loop.injected_fault PROPERTIES LABELS fuzzloop TIMEOUT 600)
# gpu: the same with the GPU and the simulator in one run; skipped (77) where there is none.
add_test(NAME gpu.fuzz_loop_injected_fault
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/injected_fault.sh
                 $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_injected_gpu 7 24
                 cp.async.cg auto)
set_tests_properties(gpu.fuzz_loop_injected_fault PROPERTIES LABELS "gpu;fuzzloop" TIMEOUT 300
                     SKIP_RETURN_CODE 77)

# A mutant that `check` accepts is a finding: the hidden --inject-false-accept gives every
# mutant its valid parent's TOML; 10 specs with 2 mutants each are 20 false accepts (exit
# 1), the first 2 saved, and the report counts none of the second rule's as refused.
# --save-specs keeps the 10 generated specs.
add_test(NAME fuzz_loop.false_accept
         COMMAND bash -c [=[rm -rf "$1"; "${@:2}" --out "$1/out" --save-specs "$1/specs" \
                              --report "$1/report.json"; rc=$?; [ "$rc" = 1 ] || exit 1
                            grep -q '"false_accept": 20' "$1/report.json" &&
                            grep -q '{"rule": "block of 2048 threads", "diag_id": "spec_block_range", "mutants": 10, "refused": 0}' "$1/report.json" &&
                            [ -s "$1/out/false_accept-3/outcome.json" ] &&
                            [ -s "$1/out/false_accept-3-2/spec.toml" ] &&
                            [ "$(ls "$1/specs" | wc -l)" = 10 ]]=]
                 false_accept ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_false_accept
                 $<TARGET_FILE:ptxgen> fuzz --seed 3 --count 10 --backend sim -j 2 --mutants 2
                 --inject-false-accept)
set_tests_properties(fuzz_loop.false_accept PROPERTIES LABELS fuzzloop TIMEOUT 600)

# The fuzzer detects the kernels racy only away from their test value: with the test switch
# --check-test-values-only every mutant of the range-dependent rules is a false accept,
# without it every one is refused; see the script.
add_test(NAME fuzz_loop.test_values_only
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/test_values_only.sh
                 $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_test_values_only)
set_tests_properties(fuzz_loop.test_values_only PROPERTIES LABELS fuzzloop TIMEOUT 600)

# --shard and the test runner's sharding environment; see the script.
add_test(NAME fuzz_loop.shard
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/shard.sh $<TARGET_FILE:ptxgen>
                 ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_shard)
set_tests_properties(fuzz_loop.shard PROPERTIES LABELS fuzzloop TIMEOUT 600)

# `ptxgen report merge`: a simulated 16-task Slurm array's fuzz reports merge to the single
# process's, 4 Indexed-Job pods' conformance reports to the unsharded run's; see the script.
add_test(NAME fuzz_loop.report_merge
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/report_merge.sh $<TARGET_FILE:ptxgen>
                 ${PROJECT_SOURCE_DIR}/specs/faults ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_report_merge)
set_tests_properties(fuzz_loop.report_merge PROPERTIES LABELS fuzzloop TIMEOUT 300)

# Usage errors, exit 2 with the hint: no --count/--time, a bad --shard, a bad --backend,
# --device with --devices; and (issue 12, fuzz-wire) --sanitize with an unknown tool, with
# the simulator alone, with several devices (its workers run on one), with a timeout of 0.
foreach(bad "--seed;1" "--count;1;--shard;2/2" "--count;1;--shard;x" "--count;1;--backend;gpu"
            "--count;1;--device;1;--devices;all" "--count;1;--sanitize;leakcheck"
            "--count;1;--sanitize;racecheck;--backend;sim"
            "--count;1;--sanitize;memcheck;--devices;all"
            "--count;1;--sanitize;memcheck;--devices;0,1"
            "--count;1;--sanitize;memcheck;--sanitize-timeout;0")
  string(REPLACE ";" "_" name "${bad}")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "" name "${name}")
  add_test(NAME fuzz_loop.usage${name}
           COMMAND bash -c [=[out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
                              [ "$rc" = 2 ] && grep -q 'ptxgen fuzz --help' <<<"$out"]=]
                   usage $<TARGET_FILE:ptxgen> fuzz ${bad})
  set_tests_properties(fuzz_loop.usage${name} PROPERTIES LABELS fuzzloop)
endforeach()

# The dry path of tools/fuzz_device.sh (BACKEND=sim, a stand-in for the trap scan): the
# table's figures are the report's, the scan gets SCAN_MAX specs; see the script.
# Not in the sanitizer build (CI's second pass): it tests the device script's shell
# logic, which the normal build's run covers; fuzz_loop.smoke covers ptxgen fuzz under ASan.
if(NOT PTXGEN_SANITIZE)
  add_test(NAME fuzz_loop.device_script_dry
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/device_script_dry.sh
                   $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_device_dry
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(fuzz_loop.device_script_dry PROPERTIES LABELS fuzzloop TIMEOUT 600)
endif()

# The test-only rule switch (PTXGEN_TEST_DISABLE_RULE): with check_bulk_refill disabled a short
# simulator run of the bulk family reports false accepts, with it enabled none; see the script.
add_test(NAME fuzz_loop.disable_rule
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/disable_rule.sh $<TARGET_FILE:ptxgen>
                 ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_disable_rule)
set_tests_properties(fuzz_loop.disable_rule PROPERTIES LABELS fuzzloop TIMEOUT 300)

# The same for the ordering rules the bulk family's generic-write shapes exercise (proxy
# fences of both spaces, the bulk wait's thread scope, write after a pending bulk store):
# each disabled in turn gives false accepts, all on none; see the script.
add_test(NAME fuzz_loop.disable_bulk_rules
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/disable_bulk_rules.sh
                 $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_disable_bulk_rules)
set_tests_properties(fuzz_loop.disable_bulk_rules PROPERTIES LABELS fuzzloop TIMEOUT 300)

# The cluster family (issue 38): 24 specs from seed 1 on the simulator pass and every mutant
# is refused with its rule; each cluster rule disabled in turn leaves its mutants refused by
# none of it and reported as findings (false accepts or refusals by another rule); see the
# script.
add_test(NAME fuzz_loop.disable_cluster_rules
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/disable_cluster_rules.sh
                 $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_disable_cluster_rules)
set_tests_properties(fuzz_loop.disable_cluster_rules PROPERTIES LABELS fuzzloop TIMEOUT 300)

# The dry path of tools/fuzz_rules_device.sh: one rule disabled on the simulator, its accepted
# mutants run again there and fault; see the script.
if(NOT PTXGEN_SANITIZE)
  add_test(NAME fuzz_loop.rules_device_dry
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_loop/rules_device_dry.sh
                   $<TARGET_FILE:ptxgen> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loop_rules_device_dry
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(fuzz_loop.rules_device_dry PROPERTIES LABELS fuzzloop TIMEOUT 300)
endif()
