# The ptxas runner against the real ptxas (label ptxas; skipped, exit 77, where
# no ptxas is found).

add_executable(ptxgen_real_ptxas_test ${CMAKE_CURRENT_SOURCE_DIR}/fake_ptxas/real_ptxas_test.cpp)
target_link_libraries(ptxgen_real_ptxas_test PRIVATE ptxgen_driver doctest::doctest)
target_compile_options(ptxgen_real_ptxas_test PRIVATE ${PTXGEN_WARNINGS})
target_compile_definitions(ptxgen_real_ptxas_test PRIVATE PTXGEN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME ptxas.runner_real COMMAND ptxgen_real_ptxas_test)
set_tests_properties(ptxas.runner_real PROPERTIES LABELS ptxas SKIP_RETURN_CODE 77 TIMEOUT 300)
