# `ptxgen tune` on the simulator: candidates, refusals with their DiagIds, JSON, bad choices.
add_test(NAME cli.tune
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/tune.sh $<TARGET_FILE:ptxgen>
                 ${PROJECT_SOURCE_DIR}/specs/residency/bulk_tiles_3_per_sm.toml
                 ${CMAKE_CURRENT_BINARY_DIR}/tune)
set_tests_properties(cli.tune PROPERTIES LABELS cli TIMEOUT 120)
