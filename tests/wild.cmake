# wild: real public PTX kernels (tests/wild/MANIFEST.toml, docs/lint.md "The wild corpus").
# tools/wild_lint.py lints every entry whose file is present with `ptxgen lint` and fails
# when a verdict differs from the manifest's `expected` (re-record with --write-expected
# after a change that moves a verdict). The public kernels themselves are kept out of the
# repository (tests/wild/README.md): where they are absent, the project's own
# reproductions (tests/wild/own/) are what this checks.
find_package(Python3 3.11 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME wild.lint
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/wild_lint.py
                   --ptxgen $<TARGET_FILE:ptxgen> --check --present-only)
  set_tests_properties(wild.lint PROPERTIES LABELS "sim;lint" TIMEOUT 300)
endif()
# wild.device_manifest: every kernel says how the H200 run compares with the simulator's
# (`gpu`: bytes, TYPE ulp N, or skip: why) and with what inputs (`fill`); tools/wild_device.sh
# (docs/lint.md "The wild corpus") reads them through tools/wild_device_prepare.py.
if(Python3_Interpreter_FOUND)
  add_test(NAME wild.device_manifest
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/wild_device_prepare.py --check)
  set_tests_properties(wild.device_manifest PROPERTIES LABELS "lint" TIMEOUT 30)
endif()
