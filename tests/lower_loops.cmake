# lower: the loop lowering's specs (tests/data/lower_loops/: nested loops,
# runtime trip counts at 1 and 7, grid-stride, k % 3 stages, unroll with a
# remainder, constant trips, k / 3, 2-D grid with 3-D block) run on the CPU
# simulator against the independent reference.
add_test(NAME sim.lower_loops
         COMMAND ptxgen run --backend sim ${PROJECT_SOURCE_DIR}/tests/data/lower_loops)
set_tests_properties(sim.lower_loops PROPERTIES LABELS sim)

# `ptxgen emit --dump-loops`: the loop form on standard error, the PTX on
# standard output unchanged. unroll2_double_buffer runs k over 0..7 with
# unroll = 2: four passes of two copies, known to run, nothing left over;
# unroll2_odd's trip count is a parameter: passes of two, then a tail loop.
add_test(NAME lower.dump_loops.constant_trip
         COMMAND ptxgen emit --dump-loops ${PROJECT_SOURCE_DIR}/specs/loops/unroll2_double_buffer.toml)
set_tests_properties(lower.dump_loops.constant_trip PROPERTIES
  LABELS unit
  PASS_REGULAR_EXPRESSION "loop k: counter %r[0-9]+ from 0 step 1, unrolled 2 per pass, runs, remainder 0\n")
add_test(NAME lower.dump_loops.runtime_trip
         COMMAND ptxgen emit --dump-loops ${PROJECT_SOURCE_DIR}/tests/data/lower_loops/unroll2_odd.toml)
set_tests_properties(lower.dump_loops.runtime_trip PROPERTIES
  LABELS unit
  PASS_REGULAR_EXPRESSION "loop k: counter %r[0-9]+ from 0 step 1, unrolled 2 per pass, tail loop\n")
add_test(NAME lower.dump_loops.ptx_unchanged
         COMMAND bash -c [=["$0" emit --dump-loops "$1" 2>/dev/null | cmp - <("$0" emit "$1")]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR}/specs/loops/unroll2_double_buffer.toml)
set_tests_properties(lower.dump_loops.ptx_unchanged PROPERTIES LABELS unit)
