# The CUDA runner's self-test on a real GPU (label gpu). Without a device it
# exits 77 and CTest counts it as skipped. Not in the sanitizer build (CI has no GPU).
if(PTXGEN_SANITIZE)
  return()
endif()
add_executable(ptxgen_gpu_selftest ${CMAKE_CURRENT_SOURCE_DIR}/gpu_selftest.cpp)
target_link_libraries(ptxgen_gpu_selftest PRIVATE ptxgen_driver)
target_compile_options(ptxgen_gpu_selftest PRIVATE ${PTXGEN_WARNINGS})
if(PTXGEN_STATIC_RUNTIME)
  target_link_options(ptxgen_gpu_selftest PRIVATE -static-libstdc++ -static-libgcc)
endif()
add_test(NAME gpu.selftest COMMAND ptxgen_gpu_selftest)
set_tests_properties(gpu.selftest PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 120)

# The bulk family's kernels (tests/data/bulk) with their tensor maps on an sm_90 GPU; skipped
# (77) without one.
add_executable(ptxgen_gpu_tensor_maps ${CMAKE_CURRENT_SOURCE_DIR}/gpu_tensor_maps.cpp)
target_link_libraries(ptxgen_gpu_tensor_maps PRIVATE ptxgen_driver)
target_compile_options(ptxgen_gpu_tensor_maps PRIVATE ${PTXGEN_WARNINGS})
target_compile_definitions(ptxgen_gpu_tensor_maps PRIVATE PTXGEN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME gpu.tensor_maps COMMAND ptxgen_gpu_tensor_maps)
set_tests_properties(gpu.tensor_maps PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 120)
