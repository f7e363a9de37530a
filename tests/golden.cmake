# golden: every valid spec's PTX equals golden/<same path>.ptx (a diff on mismatch).
add_test(NAME golden.check
         COMMAND ptxgen golden --check --golden-dir ${PROJECT_SOURCE_DIR}/golden
                 --spec-root ${PROJECT_SOURCE_DIR}/specs ${PROJECT_SOURCE_DIR}/specs)
set_tests_properties(golden.check PROPERTIES LABELS golden)

# ptxas: every golden assembles for every target ptxgen supports (skipped without ptxas).
file(GLOB_RECURSE PTXGEN_GOLDENS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/golden/*.ptx)
foreach(golden ${PTXGEN_GOLDENS})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/golden ${golden})
  string(REPLACE "/" "." name ${rel})
  string(REGEX REPLACE "\\.ptx$" "" name ${name})
  add_test(NAME ptxas.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/assemble_golden.sh $<TARGET_FILE:ptxgen> ${golden})
  set_tests_properties(ptxas.${name} PROPERTIES LABELS ptxas SKIP_RETURN_CODE 77)
endforeach()
