# Sharding and several GPUs (driver/run/shard.hpp; docs/conformance.md, "Sharding
# and several GPUs"). The dispatcher over fake devices is in tests/unit/shard_*.cpp.

# run --shard on the simulator: the shards cover the directory once; the test
# runners' environment protocol; a conflicting flag; an empty shard.
add_test(NAME shard.union
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/shard_union.sh $<TARGET_FILE:ptxgen>
                 ${PROJECT_SOURCE_DIR}/specs/predication ${CMAKE_CURRENT_BINARY_DIR}/shard_union)
set_tests_properties(shard.union PROPERTIES LABELS "sim;shard")

# --devices all with `auto`: without a GPU the run falls back to the simulator
# (with one, it runs on every GPU); either way the specs pass.
add_test(NAME shard.devices_all_auto
         COMMAND ptxgen run --devices all ${PROJECT_SOURCE_DIR}/specs/seed)
set_tests_properties(shard.devices_all_auto PROPERTIES LABELS "sim;shard")

# Usage errors (exit 2): a device listed twice; --device together with --devices.
add_test(NAME shard.devices_twice
         COMMAND bash -c [=["$@"; rc=$?; echo "exit status $rc"; [ "$rc" = 2 ]]=] devices_twice
                 $<TARGET_FILE:ptxgen> run --backend sim --devices 0,0
                 ${PROJECT_SOURCE_DIR}/specs/seed)
add_test(NAME shard.device_and_devices
         COMMAND bash -c [=["$@"; rc=$?; echo "exit status $rc"; [ "$rc" = 2 ]]=] device_and_devices
                 $<TARGET_FILE:ptxgen> run --backend sim --device 1 --devices 0
                 ${PROJECT_SOURCE_DIR}/specs/seed)
set_tests_properties(shard.devices_twice shard.device_and_devices PROPERTIES LABELS shard)
