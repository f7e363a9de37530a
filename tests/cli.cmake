# The command's shared texts: the exit-status table that `ptxgen --help` prints is the one
# docs/conformance.md "Exit statuses of every command" shows, line for line, numbered 0..N
# in order (that it has every ExitStatus, driver/cli/command.hpp asserts at compile time).
add_test(NAME cli.exit_status_table
         COMMAND bash -c [=[set -u
                            help=$("$0" --help | grep -E '^  [0-9]+  ')
                            doc=$(sed -n '/^## Exit statuses of every command/,/^## /p' \
                                    "$1/docs/conformance.md" | grep -E '^  [0-9]+  ')
                            printf 'help:\n%s\ndocs:\n%s\n' "$help" "$doc"
                            [ -n "$help" ] && [ "$help" = "$doc" ] || { echo "they differ"; exit 1; }
                            want=$(seq 0 "$(awk 'END{print $1}' <<<"$help")")
                            [ "$(awk '{print $1}' <<<"$help")" = "$want" ] || { echo "not 0..N in order"; exit 1; }]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.exit_status_table PROPERTIES LABELS cli TIMEOUT 60)

# A fault spec that faulted passes: the summary counts it among the passes and says so,
# never beside "0 fault" unexplained. The count is every spec of specs/faults/ (each
# declares expect = "fault" and faults on the simulator).
add_test(NAME cli.summary_expected_faults
         COMMAND bash -c [=[out=$("$0" run --backend sim "$1/specs/faults" 2>&1); rc=$?
                            printf '%s\n' "$out"
                            n=$(grep -l '^expect = "fault"' "$1"/specs/faults/*.toml | wc -l)
                            [ "$rc" = 0 ] && [ "$n" -gt 0 ] &&
                              grep -q "^summary: $n specs: $n pass ($n faulted as expected), 0 mismatch, 0 fault," <<<"$out"]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.summary_expected_faults PROPERTIES LABELS "cli;sim" TIMEOUT 120)
