# lower: the loop lowering's specs (tests/data/lower_loops/: nested loops,
# runtime trip counts at 1 and 7, grid-stride, k % 3 stages, unroll with a
# remainder, constant trips, k / 3, 2-D grid with 3-D block) run on the CPU
# simulator against the independent reference.
add_test(NAME sim.lower_loops
         COMMAND ptxgen run --backend sim ${PROJECT_SOURCE_DIR}/tests/data/lower_loops)
set_tests_properties(sim.lower_loops PROPERTIES LABELS sim)
