# The Python module (python/, docs/python.md): its pytest suite and the two examples, run
# with the interpreter the module was built for and PYTHONPATH at the build tree's module.
# Tests that run kernels need ptxas (every backend assembles first): pytest skips them, and
# the examples exit 77 (skipped) where there is none.
if(TARGET ptxgen_python)
  set(PTXGEN_PY_ENV "PYTHONPATH=${PROJECT_BINARY_DIR}/python"
                    "PTXGEN_SOURCE_DIR=${PROJECT_SOURCE_DIR}" "PYTHONDONTWRITEBYTECODE=1"
                    "PTXGEN_EXE=$<TARGET_FILE:ptxgen>")
  add_test(NAME python.pytest
           COMMAND ${PTXGEN_PYTHON_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_SOURCE_DIR}/python)
  set(PTXGEN_PY_NEEDS_PTXAS
      [=[command -v ptxas >/dev/null || [ -x "$0" ] || { echo "no ptxas: skipped"; exit 77; }
         exec "$@"]=])
  set(PTXGEN_CONFIGURED_PTXAS_PATH "${CUDAToolkit_BIN_DIR}/ptxas")
  add_test(NAME python.example_seed
           COMMAND bash -c "${PTXGEN_PY_NEEDS_PTXAS}" ${PTXGEN_CONFIGURED_PTXAS_PATH}
                   ${PTXGEN_PYTHON_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/python/seed.py)
  add_test(NAME python.example_stages
           COMMAND bash -c "${PTXGEN_PY_NEEDS_PTXAS}" ${PTXGEN_CONFIGURED_PTXAS_PATH}
                   ${PTXGEN_PYTHON_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/python/stages.py)
  set_tests_properties(python.pytest python.example_seed python.example_stages
                       PROPERTIES LABELS python ENVIRONMENT "${PTXGEN_PY_ENV}"
                                  SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
