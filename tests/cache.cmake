# The cubin cache through the ptxgen executable (issue 13): a re-run does not
# start ptxas, --no-cache and PTXGEN_NO_CACHE bypass it, two processes at once
# leave one valid entry, `ptxgen cache stats|clear`. A fake ptxas counts its runs.

foreach(scenario hit bypass concurrent clear)
  add_test(NAME cache.cli_${scenario}
           COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen>
                   -DPTX=${CMAKE_CURRENT_SOURCE_DIR}/data/asm/copy_async.ptx
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cache_cli/${scenario}
                   -DSCENARIO=${scenario}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cache/cache_cli_check.cmake)
  set_tests_properties(cache.cli_${scenario} PROPERTIES LABELS "cache;asm" TIMEOUT 120)
endforeach()
