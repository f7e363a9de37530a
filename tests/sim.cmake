# The simulator's tests: its unit test files also carry the `sim` label, and every
# hand-written PTX input in tests/data/sim/ must be accepted by ptxas (so the
# simulator is only ever tested on PTX the real toolchain takes).
foreach(stem sim_cp_async sim_parser)
  if(TEST unit.${stem})
    set_tests_properties(unit.${stem} PROPERTIES LABELS "unit;sim")
  endif()
endforeach()

file(GLOB PTXGEN_SIM_PTX_INPUTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/sim/*.ptx)
if(CUDAToolkit_FOUND AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas")
  foreach(input ${PTXGEN_SIM_PTX_INPUTS})
    get_filename_component(stem ${input} NAME_WE)
    add_test(NAME sim.ptxas_accepts.${stem}
             COMMAND "${CUDAToolkit_BIN_DIR}/ptxas" -arch=sm_80 ${input}
                     -o ${CMAKE_CURRENT_BINARY_DIR}/sim_${stem}.cubin)
    set_tests_properties(sim.ptxas_accepts.${stem} PROPERTIES LABELS "sim;ptxas")
  endforeach()
endif()
