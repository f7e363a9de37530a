# The installable package (issue 13): an emitter-only tree configured without Boost, toml++
# or CUDA; the built tree installed into a temporary prefix with examples/ built against it;
# the .deb from CPack, inspected (CI also installs it: tools/test.sh). All in
# tools/package_check.sh. Not in the sanitizer build: its libraries need -fsanitize to link,
# and these tests check packaging, not memory safety.
if(NOT PTXGEN_SANITIZE AND NOT PTXGEN_FUZZ)
  set(PTXGEN_PACKAGE_CHECK ${PROJECT_SOURCE_DIR}/tools/package_check.sh)
  add_test(NAME package.emitter_only COMMAND bash ${PTXGEN_PACKAGE_CHECK} emitter-only)
  add_test(NAME package.install_examples
           COMMAND bash ${PTXGEN_PACKAGE_CHECK} install ${PROJECT_BINARY_DIR})
  add_test(NAME package.deb COMMAND bash ${PTXGEN_PACKAGE_CHECK} deb ${PROJECT_BINARY_DIR})
  # The emitter-only tree's compiler is the one this tree was configured with.
  set_tests_properties(package.emitter_only PROPERTIES ENVIRONMENT "CXX=${CMAKE_CXX_COMPILER}")
  set_tests_properties(package.emitter_only package.install_examples package.deb
                       PROPERTIES LABELS package SKIP_RETURN_CODE 77 TIMEOUT 600)
  # One at a time: each compiles or installs, and they would compete for the two cores.
  set_tests_properties(package.emitter_only package.install_examples package.deb
                       PROPERTIES RESOURCE_LOCK ptxgen_package)
endif()
