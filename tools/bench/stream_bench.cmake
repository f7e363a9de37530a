# ptxgen_stream_bench (tools/bench/stream_bench.cpp): the streaming copy on the
# GPU, ptxgen's kernels against the hand-written nvcc ones (tools/baseline/:
# pipelined_copy.cu, bulk_copy.cu, tma_copy.cu) and cuMemcpyDtoD. A program to run by hand
# on the GPU machine (tools/bench/stream_bench.sh, docs/benchmarks.md), not a
# test. Built only where the CUDA toolkit's driver API library and nvcc are
# found; links libcuda (the stub at link time, the driver's at run time).
if(CUDAToolkit_FOUND AND TARGET CUDA::cuda_driver AND EXISTS "${CUDAToolkit_NVCC_EXECUTABLE}")
  # The hand-written kernels, each compiled to PTX and embedded as
  # ptxgen_<name>_ptx: the pipelined cp.async ring, the 1-D bulk ring and the
  # 2-D TMA ring (tools/baseline/).
  set(_embedded)
  foreach(_name pipelined_copy bulk_copy tma_copy)
    set(_src ${PROJECT_SOURCE_DIR}/tools/baseline/${_name}.cu)
    set(_ptx ${PROJECT_BINARY_DIR}/${_name}.ptx)
    set(_cpp ${PROJECT_BINARY_DIR}/${_name}_ptx.cpp)
    add_custom_command(
      OUTPUT ${_ptx}
      COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -ptx -arch=sm_90 -O3 -o ${_ptx} ${_src}
      DEPENDS ${_src}
      COMMENT "nvcc -ptx -arch=sm_90 -O3 tools/baseline/${_name}.cu")
    add_custom_command(
      OUTPUT ${_cpp}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${_ptx} -DOUTPUT=${_cpp} -DSYMBOL=ptxgen_${_name}_ptx
              -P ${PROJECT_SOURCE_DIR}/tools/bench/embed_text.cmake
      DEPENDS ${_ptx} ${PROJECT_SOURCE_DIR}/tools/bench/embed_text.cmake
      COMMENT "Embedding ${_name}.ptx")
    list(APPEND _embedded ${_cpp})
  endforeach()
  add_executable(ptxgen_stream_bench ${PROJECT_SOURCE_DIR}/tools/bench/stream_bench.cpp
                                     ${_embedded})
  target_link_libraries(ptxgen_stream_bench PRIVATE CUDA::cuda_driver)
  target_compile_options(ptxgen_stream_bench PRIVATE ${PTXGEN_WARNINGS})
  if(PTXGEN_STATIC_RUNTIME)
    target_link_options(ptxgen_stream_bench PRIVATE -static-libstdc++ -static-libgcc)
  endif()
  # Beside the ptxgen executable: build-device/ptxgen_stream_bench.
  set_target_properties(ptxgen_stream_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                       ${PROJECT_BINARY_DIR})
endif()

# The SASS loop counter of tools/bench/stream_bench.sh on two cuobjdump -sass
# listings: the nvcc kernel's as cuobjdump printed it on the H200 (branch
# targets as addresses; its loop 0x0460..0x06e0 is 41 instruction lines, read
# off the listing) and a hand-written one in the label style (3, and the
# branch to itself after EXIT is no loop).
add_test(NAME bench.sass_loop_count
         COMMAND bash -c [=[out=$(bash "$0" --count-loops "$1" "$2") || exit 1
                            printf '%s\n' "$out"
                            [ "$out" = "$(printf '%s\n' "$1:" "  loop 0x0460..0x06e0: 41 instructions" \
                                          "$2:" "  loop 0x0020..0x0040: 3 instructions")" ]]=]
                 ${PROJECT_SOURCE_DIR}/tools/bench/stream_bench.sh
                 ${PROJECT_SOURCE_DIR}/tools/bench/testdata/pipelined_copy_sm90.sass
                 ${PROJECT_SOURCE_DIR}/tools/bench/testdata/labels.sass)
set_tests_properties(bench.sass_loop_count PROPERTIES LABELS bench)
