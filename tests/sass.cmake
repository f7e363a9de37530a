# issue 12, sass-trap: `ptxgen asm --sass` and the regression entry of tests/traps/
# (docs/conformance.md, "Toolchain traps"). The parser and the signatures are
# unit tests (tests/unit/sass_*.cpp); the GPU side is tools/sass_traps_device.sh.

# `asm --sass` with a fake cuobjdump printing SASS captured on the H200.
foreach(scenario trap clean broken missing usage)
  add_test(NAME sass.asm.${scenario}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/traps/check_asm_sass.sh
                   $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR} ${scenario})
  set_tests_properties(sass.asm.${scenario} PROPERTIES LABELS "sass;ptxas" TIMEOUT 120
                       SKIP_REGULAR_EXPRESSION "PTXGEN-SKIP:")
endforeach()

# The regression PTX is valid: on the simulator it (and its control without the
# hint) matches its spec; only the H200 running ptxas 13.0's code faults.
foreach(ptx ldgsts_unwritten_uniform ldgsts_unwritten_uniform.nohint)
  add_test(NAME sass.traps.${ptx}.sim
           COMMAND $<TARGET_FILE:ptxgen> run --backend sim
                   --ptx ${CMAKE_CURRENT_SOURCE_DIR}/traps/${ptx}.ptx
                   ${CMAKE_CURRENT_SOURCE_DIR}/traps/ldgsts_unwritten_uniform.toml)
  set_tests_properties(sass.traps.${ptx}.sim PROPERTIES LABELS "sass;sim" TIMEOUT 120)
endforeach()
