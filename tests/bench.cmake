if(NOT PTXGEN_BUILD_BENCH) # the sanitizer build (tools/sanitize.sh) leaves them out
  return()
endif()
# ptxgen_bench (tools/bench/): ptxgen's own time per spec against ptxas's.
# A program to run by hand (docs/benchmarks.md), not a timed CTest test.
add_executable(ptxgen_bench ${PROJECT_SOURCE_DIR}/tools/bench/bench_emit.cpp)
target_link_libraries(ptxgen_bench PRIVATE ptxgen_driver)
target_compile_options(ptxgen_bench PRIVATE ${PTXGEN_WARNINGS})
target_compile_definitions(ptxgen_bench PRIVATE PTXGEN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Beside the ptxgen executable: build/ptxgen_bench.
set_target_properties(ptxgen_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})

# The GPU streaming-copy benchmark (tools/bench/stream_bench.cmake).
include(${PROJECT_SOURCE_DIR}/tools/bench/stream_bench.cmake)

# ptxgen_ref_sim_bench (tools/bench/ref_sim_bench.cpp): the reference's GB/s, the
# simulator's instructions/s and the time of `check` and `run --backend sim` of the
# 1024 x 1024 float32 copy (docs/benchmarks.md). A program to run by hand; the smoke
# test runs its --quick form (every step must succeed; the figures are not judged).
# It allocates as the ptxgen command does: with its operator new, which asks for transparent
# huge pages on big allocations (driver/cli/huge_pages_new.cpp).
add_executable(ptxgen_ref_sim_bench ${PROJECT_SOURCE_DIR}/tools/bench/ref_sim_bench.cpp
                                    ${PROJECT_SOURCE_DIR}/driver/cli/huge_pages_new.cpp)
target_link_libraries(ptxgen_ref_sim_bench PRIVATE ptxgen_driver)
target_compile_options(ptxgen_ref_sim_bench PRIVATE ${PTXGEN_WARNINGS})
target_compile_definitions(ptxgen_ref_sim_bench PRIVATE PTXGEN_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                                        PTXGEN_EXE="$<TARGET_FILE:ptxgen>")
set_target_properties(ptxgen_ref_sim_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                      ${PROJECT_BINARY_DIR})
add_dependencies(ptxgen_ref_sim_bench ptxgen)
if(PTXGEN_STATIC_RUNTIME) # runs on the GPU machine (tools/build_device.sh builds it)
  target_link_options(ptxgen_ref_sim_bench PRIVATE -static-libstdc++ -static-libgcc)
endif()
add_test(NAME bench.ref_sim_smoke COMMAND ptxgen_ref_sim_bench --quick)
set_tests_properties(bench.ref_sim_smoke PROPERTIES LABELS bench)

# The whole-launch checks of a spec whose global tensors are larger than they hold
# (driver/run/range_proof.hpp, max_held_global_bytes) run without the values: emitting and
# checking tests/data/reference/huge_globals.toml (two 2 GiB tensors) stay within 1 GiB of
# address space, and `check` says that its expectation was not checked. Held bytes fail it
# (std::bad_alloc). Left out of the sanitizer build (above), whose shadow memory needs more
# address space.
add_test(NAME bench.huge_globals_emit
         COMMAND bash -c [=[ulimit -v 1048576 || exit 1
                            d=$(mktemp -d) && "$0" emit --target sm_90 -o "$d/huge.ptx" "$1"; rc=$?; rm -rf "$d"
                            echo "emit: exit $rc, want 0"; [ "$rc" = 0 ] || exit 1
                            out=$("$0" check "$1" 2>&1); rc=$?
                            echo "$out"; echo "check: exit $rc, want 0"
                            [ "$rc" = 0 ] && grep -q 'check_expectations_unchecked' <<<"$out"]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR}/tests/data/reference/huge_globals.toml)
set_tests_properties(bench.huge_globals_emit PROPERTIES LABELS bench)

# The broadcast-load benchmark specs are tools/bench/gen_broadcast.py's output: the test fails
# when one was edited by hand or the script changed without them (rerun the script).
find_package(Python3 3.11 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME bench.broadcast_specs_generated
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/bench/gen_broadcast.py --check)
  set_tests_properties(bench.broadcast_specs_generated PROPERTIES LABELS bench TIMEOUT 30)
  add_test(NAME bench.gemm_operands_specs_generated
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/bench/gen_gemm_operands.py --check)
  set_tests_properties(bench.gemm_operands_specs_generated PROPERTIES LABELS bench TIMEOUT 30)
endif()
