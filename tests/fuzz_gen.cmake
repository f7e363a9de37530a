# issue 12, fuzz-gen: the random spec generator's tests (label fuzzgen). The unit tests
# (tests/unit/fuzz_gen_*.cpp) are registered one per file by tests/CMakeLists.txt; they
# get the label here. Together well under a minute on 2 cores.
foreach(stem fuzz_gen_valid fuzz_gen_mutants fuzz_gen_coverage fuzz_gen_determinism fuzz_gen_bulk
        fuzz_gen_cluster fuzz_gen_shrink fuzz_gen_build)
  set_tests_properties(unit.${stem} PROPERTIES LABELS "unit;fuzzgen")
endforeach()
# The sanitizer build (tools/sanitize.sh) checks the first 60 seeds' specs and mutants,
# not all 400: ASan makes each check ~15 times slower (183 s for 400 on 2 cores).
if(PTXGEN_SANITIZE)
  target_compile_definitions(ptxgen_unit PRIVATE PTXGEN_FUZZ_GEN_CHECKED_SEEDS=60)
endif()

# The same seeds give byte-identical specs and mutants in two processes.
add_test(NAME fuzzgen.two_processes
         COMMAND bash -c [=[d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT || exit 1
                            for f in a b; do
                              PTXGEN_FUZZ_GEN_DUMP="$d/$f" "$0" --source-file='*/fuzz_gen_determinism.cpp' \
                                --test-case='*two-process*' > "$d/$f.log" 2>&1 || { cat "$d/$f.log"; exit 1; }
                            done
                            test -s "$d/a" && cmp "$d/a" "$d/b" && echo "two processes: $(wc -c < "$d/a") identical bytes"]=]
                 $<TARGET_FILE:ptxgen_unit>)
set_tests_properties(fuzzgen.two_processes PROPERTIES LABELS fuzzgen)
