# Mutation tests of the simulator check (issue 5): they run mutated PTX on the
# simulator, so they carry the `sim` label as well as `unit`.
file(GLOB PTXGEN_MUTATION_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/mutation_*.cpp)
foreach(source ${PTXGEN_MUTATION_SOURCES})
  get_filename_component(stem ${source} NAME_WE)
  if(TEST unit.${stem})
    set_tests_properties(unit.${stem} PROPERTIES LABELS "unit;sim")
  endif()
endforeach()
