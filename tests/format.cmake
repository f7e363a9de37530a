# style: every C++ file is formatted with the repository's .clang-format
# (skipped where clang-format is not installed).
find_program(PTXGEN_CLANG_FORMAT NAMES clang-format clang-format-14)
add_test(NAME style.clang_format
         COMMAND bash ${PROJECT_SOURCE_DIR}/tools/check_format.sh ${PTXGEN_CLANG_FORMAT})
set_tests_properties(style.clang_format PROPERTIES LABELS style SKIP_RETURN_CODE 77)

# style: every diagnostic ID is documented, unique and produced somewhere.
add_test(NAME style.diag_ids COMMAND bash ${PROJECT_SOURCE_DIR}/tools/check_diag_ids.sh
                                     ${PROJECT_SOURCE_DIR})
set_tests_properties(style.diag_ids PROPERTIES LABELS style)

# style: each unit-test file in a namespace of its own (the unity build of tools/sanitize.sh).
add_test(NAME style.unit_namespaces COMMAND bash ${PROJECT_SOURCE_DIR}/tools/check_unit_namespaces.sh)
set_tests_properties(style.unit_namespaces PROPERTIES LABELS style)

# style: docs/design.md's map of rooms says, arrow for arrow, which room includes which
# (tools/design_map.py), and no arrow points back up.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME style.design_map
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/design_map.py --check
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(style.design_map PROPERTIES LABELS style)
endif()
