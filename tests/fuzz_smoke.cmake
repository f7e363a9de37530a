# A short run of every libFuzzer target over its seed corpus (label fuzz). Only when
# the targets are built: configure with -DPTXGEN_FUZZ=ON and clang (tools/fuzz.sh).
if(PTXGEN_FUZZ)
  set(_corpus ${CMAKE_BINARY_DIR}/fuzz-smoke-corpus)
  add_test(NAME fuzz.corpus
           COMMAND ${PROJECT_SOURCE_DIR}/libfuzzer/make_corpus.sh ${PROJECT_SOURCE_DIR} ${_corpus})
  set_tests_properties(fuzz.corpus PROPERTIES LABELS fuzz FIXTURES_SETUP fuzz_corpus)
  foreach(target ${PTXGEN_FUZZ_TARGETS})
    # The seeds are read but not added to (a scratch copy is the corpus written to).
    add_test(NAME fuzz.smoke.${target}
             COMMAND $<TARGET_FILE:fuzz_${target}> -runs=2000 -seed=1 -timeout=10
                     -rss_limit_mb=2048 -max_len=8192 ${_corpus}/${target})
    set_tests_properties(fuzz.smoke.${target} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_corpus
                                                         TIMEOUT 300)
  endforeach()
endif()
