# tools/mutation_net.py itself, without building anything: its list applies to the tree
# (one line each), bad lists are refused, a mutation is applied to the scratch copy only
# and reverted (tests/mutation_net/selftest.py). Seconds, so it runs with the unit tests.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME mutation_net.selftest
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mutation_net/selftest.py
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(mutation_net.selftest PROPERTIES LABELS "unit;tools" TIMEOUT 120)
endif()
