# The C++ API as a consumer project uses it (examples/race_kernel.cpp: `ptxgen::api` only):
# built here against the libraries, run on the simulator, it must find its planted race at
# its own source line. tools/package_check.sh builds examples/ against the installed package.
if(NOT PTXGEN_FUZZ)
  add_executable(ptxgen_race_kernel ${PROJECT_SOURCE_DIR}/examples/race_kernel.cpp)
  target_link_libraries(ptxgen_race_kernel PRIVATE ptxgen_driver)
  target_compile_options(ptxgen_race_kernel PRIVATE ${PTXGEN_WARNINGS})
  add_test(NAME api.consumer_race COMMAND ptxgen_race_kernel)
  set_tests_properties(api.consumer_race PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
endif()
