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
