# sim: the whole corpus run on the CPU simulator against the reference
# (valid specs must match byte for byte; specs that declare expect = "fault" must fault).
add_test(NAME sim.corpus
         COMMAND ptxgen run --backend sim --report ${CMAKE_CURRENT_BINARY_DIR}/sim-corpus.xml
                 ${PROJECT_SOURCE_DIR}/specs)
set_tests_properties(sim.corpus PROPERTIES LABELS sim)

# sim: the mbarrier specs lowered for sm_90 (mbarrier.try_wait loops instead of
# test_wait), run on the simulator; the backend line must say whose PTX ran.
add_test(NAME sim.mbarrier_sm90
         COMMAND bash -c [=["$@" > "$TMPDIR_OUT" 2>&1; rc=$?; cat "$TMPDIR_OUT"; [ "$rc" = 0 ] && grep -q "ptxgen's PTX for sm_90" "$TMPDIR_OUT"]=]
                 mbarrier_sm90 $<TARGET_FILE:ptxgen> run --backend sim --target sm_90
                 ${PROJECT_SOURCE_DIR}/specs/mbarrier)
set_tests_properties(sim.mbarrier_sm90 PROPERTIES LABELS sim
                     ENVIRONMENT TMPDIR_OUT=${CMAKE_CURRENT_BINARY_DIR}/mbarrier_sm90.log)

# sim: a tensor-copy spec with no --target is lowered for sm_90 (its ops need it): the backend
# line must name sm_90, the target its PTX was emitted and assembled for, not the run's sm_80.
add_test(NAME sim.raised_target_banner
         COMMAND bash -c [=["$@" > "$TMPDIR_OUT" 2>&1; rc=$?; cat "$TMPDIR_OUT"; [ "$rc" = 0 ] && grep -q "ptxgen's PTX for sm_90, assembled by .* for sm_90$" "$TMPDIR_OUT"]=]
                 raised_target_banner $<TARGET_FILE:ptxgen> run --backend sim
                 ${PROJECT_SOURCE_DIR}/specs/tma/grid_tiles.toml)
set_tests_properties(sim.raised_target_banner PROPERTIES LABELS sim
                     ENVIRONMENT TMPDIR_OUT=${CMAKE_CURRENT_BINARY_DIR}/raised_target_banner.log)

# sim: dynamic shared memory beyond sm_80's opt-in limit, assembled for sm_90.
add_test(NAME sim.dynamic_shared_sm90
         COMMAND ptxgen run --backend sim --arch sm_90
                 ${PROJECT_SOURCE_DIR}/tests/data/dynamic_shared_sm90)
set_tests_properties(sim.dynamic_shared_sm90 PROPERTIES LABELS sim)

# gpu: the same on the GPU; skipped (77) where there is none.
add_test(NAME gpu.corpus
         COMMAND bash ${PROJECT_SOURCE_DIR}/tools/gpu_corpus.sh $<TARGET_FILE:ptxgen>
                 ${PROJECT_SOURCE_DIR}/specs)
set_tests_properties(gpu.corpus PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# A spec that declares expect = "fault" but breaks nothing: run refuses the case at the key
# (exit 1), rather than running it unchecked and calling a completed kernel a failure.
add_test(NAME sim.fault_spec_valid
         COMMAND bash -c [=[out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
                            [ "$rc" = 1 ] && grep -q 'valid_marked_fault.toml:6:10: error: .*\[run_fault_spec_valid\]' <<<"$out"]=]
                 fault_spec_valid $<TARGET_FILE:ptxgen> run --backend sim
                 ${PROJECT_SOURCE_DIR}/tests/data/fault_spec/valid_marked_fault.toml)
set_tests_properties(sim.fault_spec_valid PROPERTIES LABELS sim)

# run --param: another value of the declared range runs and passes on the simulator; a value
# outside it is refused (exit 1, run_param_value); a sweep runs one case per value, here a
# stated sample of 8 of the 64 (the first, 1, and the last, 64, among them).
add_test(NAME sim.param_value
         COMMAND ptxgen run --backend sim --param k_tiles=1
                 ${PROJECT_SOURCE_DIR}/specs/loops/runtime_k_three_stage.toml)
set_tests_properties(sim.param_value PROPERTIES LABELS sim)
add_test(NAME sim.param_outside_range
         COMMAND bash -c [=[out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
                            [ "$rc" = 1 ] && grep -q "outside its declared range 1..64" <<<"$out"]=]
                 param_outside $<TARGET_FILE:ptxgen> run --backend sim --param k_tiles=65
                 ${PROJECT_SOURCE_DIR}/specs/loops/runtime_k_three_stage.toml)
set_tests_properties(sim.param_outside_range PROPERTIES LABELS sim)
add_test(NAME sim.param_sweep
         COMMAND bash -c [=[out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
                            [ "$rc" = 0 ] && grep -q "^summary: 8 specs: 8 pass" <<<"$out" &&
                            grep -q "runtime_k_three_stage.toml \[k_tiles=1\] *pass" <<<"$out" &&
                            grep -q "runtime_k_three_stage.toml \[k_tiles=64\] *pass" <<<"$out"]=]
                 param_sweep $<TARGET_FILE:ptxgen> run --backend sim --param-sweep --sweep-limit 8
                 ${PROJECT_SOURCE_DIR}/specs/loops/runtime_k_three_stage.toml)
set_tests_properties(sim.param_sweep PROPERTIES LABELS sim)
# The value reaches the run: ring_prologue_min reads before its wait at k_tiles = 1, which the
# reference finds in the run itself (at its test value 17 only the range proof refuses it).
add_test(NAME sim.param_value_reaches_run
         COMMAND bash -c [=[out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
                            [ "$rc" = 1 ] && grep -q "the reference found a problem in the spec: " <<<"$out" &&
                            grep -q "reads shared bytes that a pending" <<<"$out"]=]
                 param_reaches $<TARGET_FILE:ptxgen> run --backend sim --param k_tiles=1
                 ${PROJECT_SOURCE_DIR}/specs/races/ring_prologue_min.toml)
set_tests_properties(sim.param_value_reaches_run PROPERTIES LABELS sim)
