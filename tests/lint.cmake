# lint: `ptxgen lint` (docs/lint.md). Every kernel of the foreign corpus lints clean with
# only an --arg per scalar, its spec's value (lint.kernel.NAME); every mutant of
# tests/foreign/mutants.toml is reported with the kind tests/lint/mutants.expect gives it
# (lint.mutant.NAME); tools/lint/check.sh does both. tests/lint/check_cases.cmake checks the
# worked example of docs/lint.md, the JSON and SARIF shapes, the exit statuses, an unset
# scalar, sized --arg regions, a file of .funcs and the races on global memory, a racy file
# and its fixed twin (lint.case.NAME).
file(STRINGS ${PROJECT_SOURCE_DIR}/tests/foreign/kernels.list PTXGEN_LINT_KERNELS
     REGEX "^[a-z0-9_]+ ")
file(STRINGS ${PROJECT_SOURCE_DIR}/tests/lint/mutants.expect PTXGEN_LINT_MUTANTS
     REGEX "^[a-z0-9_]+\\.[a-z0-9_]+ ")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/tests/lint/mutants.expect)
foreach(line ${PTXGEN_LINT_KERNELS})
  string(REGEX MATCH "^[a-z0-9_]+" name "${line}")
  add_test(NAME lint.kernel.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/lint/check.sh $<TARGET_FILE:ptxgen> kernel
                   ${name})
  set_tests_properties(lint.kernel.${name} PROPERTIES LABELS "sim;lint")
endforeach()
foreach(line ${PTXGEN_LINT_MUTANTS})
  string(REGEX MATCH "^[a-z0-9_]+\\.[a-z0-9_]+" name "${line}")
  add_test(NAME lint.mutant.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/lint/check.sh $<TARGET_FILE:ptxgen> mutant
                   ${name})
  set_tests_properties(lint.mutant.${name} PROPERTIES LABELS "sim;lint")
endforeach()
# Every mutant of the corpus has its expectation: a new one without it fails here.
add_test(NAME lint.mutants_listed
         COMMAND bash -c [=[missing=0
                            for n in $(sed -n 's/^name = "\(.*\)"/\1/p' "$0"); do
                              grep -q "^$n " "$1" || { echo "no expectation for $n in $1"; missing=1; }
                            done
                            exit $missing]=]
                 ${PROJECT_SOURCE_DIR}/tests/foreign/mutants.toml
                 ${PROJECT_SOURCE_DIR}/tests/lint/mutants.expect)
set_tests_properties(lint.mutants_listed PROPERTIES LABELS "lint")
foreach(case example sarif exit_status unset_scalar sized_arg funcs seeds read_before_wait
             global_races ctas clusters dsmem_peer_views race_cap)
  add_test(NAME lint.case.${case}
           COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen> -DROOT=${PROJECT_SOURCE_DIR}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/lint_${case} -DCASE=${case}
                   -P ${PROJECT_SOURCE_DIR}/tests/lint/check_cases.cmake)
  set_tests_properties(lint.case.${case} PROPERTIES LABELS "sim;lint" TIMEOUT 120)
endforeach()
