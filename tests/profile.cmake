# issue 13: `ptxgen run --profile` on the simulator (docs/profile.md). The models and the
# executor's collection are unit tests (tests/unit/profile_*.cpp); here the command.
#
# specs/thread_scope/row_repeat_f32.toml: thread t copies its 64-byte row in four 16-byte
# cp.asyncs to shared byte 64 t + 16 r. A quarter-warp's 8 lanes span 512 bytes, lanes t
# and t+2 share banks 16 t + 4 r .. +3 (mod 32): 4 words per bank, 4-way, so each request
# takes 4 phases x 4 = 16 wavefronts (ideal 4); 128 threads = 4 warps = 4 requests per
# instruction. The source side: 32 lanes x 16 bytes in 64-byte steps = 32 sectors per
# request, ideal 16 (512 distinct bytes).
add_test(NAME profile.run_cli
         COMMAND bash -c [=[dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            "$0" run --backend sim --profile --report "$dir/r.json" \
                              "$1/specs/thread_scope/row_repeat_f32.toml" >"$dir/out"; rc=$?
                            cat "$dir/out"
                            if [ $rc -eq 3 ] && ! command -v ptxas >/dev/null; then
                              echo "no ptxas: skipped"; exit 77; fi
                            [ $rc -eq 0 ] || exit 1
                            n=$(grep -cE 'cp\.async dst +4 +16\.00 +4\.00 +4 ' "$dir/out")
                            [ "$n" -eq 4 ] || { echo "expected 4 cp.async dst rows, got $n"; exit 1; }
                            n=$(grep -cE 'cp\.async src +4 +32\.00 +16\.00 +32 ' "$dir/out")
                            [ "$n" -eq 4 ] || { echo "expected 4 cp.async src rows, got $n"; exit 1; }
                            grep -q '"profile": {"rows": \[' "$dir/r.json"]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(profile.run_cli PROPERTIES LABELS "profile;sim;ptxas" TIMEOUT 180
                     SKIP_RETURN_CODE 77)

# --profile is a simulator figure: with --backend cuda it is a usage error.
add_test(NAME profile.run_cli_cuda_is_usage
         COMMAND bash -c [=["$0" run --backend cuda --profile "$1/specs/seed/copy_async.toml"
                            [ $? -eq 2 ]]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(profile.run_cli_cuda_is_usage PROPERTIES LABELS profile TIMEOUT 60)

# The profile says what its columns mean (`worst` among them) and where its PTX lines are:
# each row's line + 1 in `ptxgen emit SPEC --target sm_80` (one comment line first) is the
# row's instruction, as the legend says.
add_test(NAME profile.legend_and_lines
         COMMAND bash -c [=[set -u; spec="$1/specs/pipeline/double_buffer.toml"
                            out=$("$0" run --backend sim --profile "$spec"); rc=$?
                            printf '%s\n' "$out"
                            if [ $rc -eq 3 ] && ! command -v ptxas >/dev/null; then
                              echo "no ptxas: skipped"; exit 77; fi
                            [ $rc -eq 0 ] || exit 1
                            grep -q '^  worst  ' <<<"$out" || { echo "worst is not defined"; exit 1; }
                            grep -qF 'ptxgen emit SPEC --target sm_80` prints it after one comment line: there, line + 1' \
                              <<<"$out" || { echo "no legend for line"; exit 1; }
                            ptx=$("$0" emit "$spec" --target sm_80) || exit 1
                            rows=$(sed -n '/^profile: /,/^  shared: /p' <<<"$out" | grep -E '^ +[0-9]+  ')
                            [ -n "$rows" ] || { echo "no rows"; exit 1; }
                            while read -r line _; do
                              text=$(grep -E "^ +$line  " <<<"$rows" |
                                     head -n 1 | sed -E 's/^ +[0-9]+  .{12}[ 0-9.]{37}  //')
                              at=$(sed -n "$((line + 1))p" <<<"$ptx" | sed -E 's/^\t//')
                              [ "$text" = "$at" ] || { echo "line $line: '$text' but emit has '$at'"; exit 1; }
                            done <<<"$rows"]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(profile.legend_and_lines PROPERTIES LABELS "profile;sim;ptxas" TIMEOUT 180
                     SKIP_RETURN_CODE 77)
