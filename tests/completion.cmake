# Bash completion (tools/completion/ptxgen.bash, issue 13): every subcommand of
# `ptxgen --help` and every option of each `ptxgen COMMAND --help` completes.
add_test(NAME completion.bash
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/completion/check_completion.sh
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR}/tools/completion/ptxgen.bash)
set_tests_properties(completion.bash PROPERTIES LABELS unit TIMEOUT 120)
