# The simulator's tests: its unit test files also carry the `sim` label.
foreach(stem sim_cp_async sim_parser sim_decode sim_hazards sim_launch_3d sim_front sim_arith sim_arith_device sim_mbarrier sim_sync
             sim_bulk_global sim_cross_cta sim_reader sim_reader_corpus sim_kernel
             sim_tensor_core sim_cluster sim_cluster_nvcc sim_cluster_rounds)
  if(TEST unit.${stem})
    set_tests_properties(unit.${stem} PROPERTIES LABELS "unit;sim")
  endif()
endforeach()

# Not a test of the simulator but of its inputs: every PTX file the simulator's
# unit tests run must be accepted by ptxas, so that they only ever run PTX the
# real toolchain takes. Labelled `sim` as well, so that `ctest -L sim` checks
# the inputs with the tests that use them. One test per file:
# ptxas.<prefix>_input.<file stem>, assembled for `arch`.
function(ptxgen_ptxas_inputs dir prefix arch)
  if(NOT (CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas"))
    return()
  endif()
  file(GLOB inputs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/${dir}/*.ptx)
  foreach(input ${inputs})
    get_filename_component(stem ${input} NAME_WE)
    add_test(NAME ptxas.${prefix}_input.${stem}
             COMMAND "${CUDAToolkit_BIN_DIR}/ptxas" -arch=${arch} ${input}
                     -o ${CMAKE_CURRENT_BINARY_DIR}/${prefix}_${stem}.cubin)
    set_tests_properties(ptxas.${prefix}_input.${stem} PROPERTIES LABELS "sim;ptxas")
  endforeach()
endfunction()

ptxgen_ptxas_inputs(sim sim sm_80)                   # hand-written decoder and executor inputs
ptxgen_ptxas_inputs(sim_front sim_front sm_80)       # the forms other compilers print, nvcc's output
ptxgen_ptxas_inputs(sim_mbarrier sim_mbarrier sm_90) # try_wait and cp.async.bulk need sm_90
ptxgen_ptxas_inputs(sim_sync sim_sync sm_80)         # atomics and warp queries
ptxgen_ptxas_inputs(sim_reader sim_reader sm_90a)    # what the reader accepts: clusters, d|p
ptxgen_ptxas_inputs(sim_kernel sim_kernel sm_90a)    # named barriers, kernel math, setmaxnreg
ptxgen_ptxas_inputs(sim_tensor_core sim_tensor_core sm_90a) # mma.sync, stmatrix, wgmma
ptxgen_ptxas_inputs(sim_cluster sim_cluster sm_90a)  # clusters: mapa, DSMEM, multicast
ptxgen_ptxas_inputs(sim_cluster_nvcc sim_cluster_nvcc sm_90a) # nvcc's cooperative_groups clusters
