# The simulator's tests: its unit test files also carry the `sim` label.
foreach(stem sim_cp_async sim_parser sim_decode sim_hazards sim_launch_3d sim_front sim_arith sim_arith_device sim_mbarrier sim_sync)
  if(TEST unit.${stem})
    set_tests_properties(unit.${stem} PROPERTIES LABELS "unit;sim")
  endif()
endforeach()

# Not a test of the simulator but of its inputs: every hand-written PTX file in
# tests/data/sim/ must be accepted by ptxas, so that the simulator's unit tests
# only ever run PTX the real toolchain takes. Labelled `sim` as well, so that
# `ctest -L sim` checks the inputs with the tests that use them.
file(GLOB PTXGEN_SIM_PTX_INPUTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/sim/*.ptx)
if(CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas")
  foreach(input ${PTXGEN_SIM_PTX_INPUTS})
    get_filename_component(stem ${input} NAME_WE)
    add_test(NAME ptxas.sim_input.${stem}
             COMMAND "${CUDAToolkit_BIN_DIR}/ptxas" -arch=sm_80 ${input}
                     -o ${CMAKE_CURRENT_BINARY_DIR}/sim_${stem}.cubin)
    set_tests_properties(ptxas.sim_input.${stem} PROPERTIES LABELS "sim;ptxas")
  endforeach()
endif()

# The front end's inputs (tests/data/sim_front/): hand-written PTX of the forms
# other compilers print, and nvcc's own output; ptxas must take each of them.
file(GLOB PTXGEN_SIM_FRONT_PTX_INPUTS CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_front/*.ptx)
if(CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas")
  foreach(input ${PTXGEN_SIM_FRONT_PTX_INPUTS})
    get_filename_component(stem ${input} NAME_WE)
    add_test(NAME ptxas.sim_front_input.${stem}
             COMMAND "${CUDAToolkit_BIN_DIR}/ptxas" -arch=sm_80 ${input}
                     -o ${CMAKE_CURRENT_BINARY_DIR}/sim_front_${stem}.cubin)
    set_tests_properties(ptxas.sim_front_input.${stem} PROPERTIES LABELS "sim;ptxas")
  endforeach()
endif()

# The mbarrier tests' inputs (tests/data/sim_mbarrier/), likewise; sm_90, since some use
# mbarrier.try_wait and cp.async.bulk.
file(GLOB PTXGEN_SIM_MBARRIER_PTX_INPUTS CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_mbarrier/*.ptx)
if(CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas")
  foreach(input ${PTXGEN_SIM_MBARRIER_PTX_INPUTS})
    get_filename_component(stem ${input} NAME_WE)
    add_test(NAME ptxas.sim_mbarrier_input.${stem}
             COMMAND "${CUDAToolkit_BIN_DIR}/ptxas" -arch=sm_90 ${input}
                     -o ${CMAKE_CURRENT_BINARY_DIR}/sim_mbarrier_${stem}.cubin)
    set_tests_properties(ptxas.sim_mbarrier_input.${stem} PROPERTIES LABELS "sim;ptxas")
  endforeach()
endif()

# The atomics / warp-query tests' inputs (tests/data/sim_sync/), likewise.
file(GLOB PTXGEN_SIM_SYNC_PTX_INPUTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_sync/*.ptx)
if(CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas")
  foreach(input ${PTXGEN_SIM_SYNC_PTX_INPUTS})
    get_filename_component(stem ${input} NAME_WE)
    add_test(NAME ptxas.sim_sync_input.${stem}
             COMMAND "${CUDAToolkit_BIN_DIR}/ptxas" -arch=sm_80 ${input}
                     -o ${CMAKE_CURRENT_BINARY_DIR}/sim_sync_${stem}.cubin)
    set_tests_properties(ptxas.sim_sync_input.${stem} PROPERTIES LABELS "sim;ptxas")
  endforeach()
endif()
