# foreign: the foreign-PTX corpus (tests/foreign/, docs/foreign.md). nvcc's PTX
# for CUDA sources that use the public cp.async APIs runs on the simulator
# against its spec (foreign.kernel.NAME: every sm_80/sm_90, -O3/-G file must
# pass), and every mutant of it must fail as tests/foreign/mutants.toml states
# (foreign.mutant.NAME). tools/foreign/check.sh does the work.
file(STRINGS ${PROJECT_SOURCE_DIR}/tests/foreign/kernels.list PTXGEN_FOREIGN_KERNELS
     REGEX "^[a-z0-9_]+ ")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/tests/foreign/kernels.list
             ${PROJECT_SOURCE_DIR}/tests/foreign/mutants.toml)
foreach(line ${PTXGEN_FOREIGN_KERNELS})
  string(REGEX MATCH "^[a-z0-9_]+" name "${line}")
  add_test(NAME foreign.kernel.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/foreign/check.sh $<TARGET_FILE:ptxgen> kernel
                   ${name})
  set_tests_properties(foreign.kernel.${name} PROPERTIES LABELS "sim;foreign")
endforeach()
file(STRINGS ${PROJECT_SOURCE_DIR}/tests/foreign/mutants.toml PTXGEN_FOREIGN_MUTANTS
     REGEX "^name = \"[^\"]+\"")
foreach(line ${PTXGEN_FOREIGN_MUTANTS})
  string(REGEX REPLACE "^name = \"([^\"]+)\".*" "\\1" name "${line}")
  add_test(NAME foreign.mutant.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tools/foreign/check.sh $<TARGET_FILE:ptxgen> mutant
                   ${name})
  set_tests_properties(foreign.mutant.${name} PROPERTIES LABELS "sim;foreign")
endforeach()
# early_read (not in kernels.list: wrong on purpose, the racecheck control of
# tools/racecheck_memcpy_async.sh) reads its cp.async destination before the
# wait: on the simulator, with no --arch (the file's own .target), a
# `read before wait` race.
add_test(NAME foreign.control.early_read
         COMMAND bash -c [=[dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            "$0" run --backend sim --ptx "$1/ptx/early_read.sm90.O3.ptx" \
                              --entry _Z10early_readPKjPj --report "$dir/r.json" "$1/specs/early_read.toml"
                            rc=$?; echo "exit $rc, want 1"; cat "$dir/r.json"
                            [ "$rc" = 1 ] && grep -q '"race_kind": "read before wait"' "$dir/r.json"]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR}/tests/foreign)
set_tests_properties(foreign.control.early_read PROPERTIES LABELS "sim;foreign")
