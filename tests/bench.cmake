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
