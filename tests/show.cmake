# `ptxgen show SPEC --svg FILE` (docs/profile.md). The picture's structure is checked by
# tests/unit/show_svg.cpp; here the command itself, a real renderer, the pipeline corpus
# and the bank figures against `run --profile` (tests/show/pictures.py).

# The command writes an SVG for the seed spec (atomically: no temp file is left beside it).
add_test(NAME show.cli_writes_svg
         COMMAND bash -c [=[set -e; dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            "$0" show "$1/specs/seed/copy_async.toml" --svg "$dir/seed.svg"
                            head -c 5 "$dir/seed.svg" | grep -q '<?xml'
                            grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$dir/seed.svg"
                            grep -q 'wavefronts (ideal' "$dir/seed.svg"
                            [ "$(ls "$dir")" = seed.svg ]]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(show.cli_writes_svg PROPERTIES LABELS show TIMEOUT 120)

# Usage: --svg is required, exactly one spec; an invalid spec is exit 1 and writes nothing.
add_test(NAME show.cli_errors
         COMMAND bash -c [=[dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            "$0" show "$1/specs/seed/copy_async.toml"; [ $? -eq 2 ] || exit 1
                            "$0" show --svg "$dir/x.svg"; [ $? -eq 2 ] || exit 1
                            bad=$(ls "$1"/specs/invalid/*.toml | head -n 1)
                            "$0" show "$bad" --svg "$dir/x.svg"; [ $? -eq 1 ] || exit 1
                            [ ! -e "$dir/x.svg" ]]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(show.cli_errors PROPERTIES LABELS show TIMEOUT 120)

# A headless browser parses and renders the picture (Debian's chromium); 77 (skipped)
# where none is installed. The DOM it parsed must be an <svg> root with no
# <parsererror> (a malformed SVG still screenshots to a large PNG: the browser draws its
# error page, 71 KB for the seed picture with one tag misspelt, 80 KB when it is right),
# and the screenshot must be a PNG.
add_test(NAME show.renders_in_browser
         COMMAND bash -c [=[browser=""
                            for b in chromium chromium-browser google-chrome; do
                              command -v "$b" >/dev/null && { browser=$b; break; }; done
                            [ -n "$browser" ] || { echo "no headless browser: skipped"; exit 77; }
                            set -e; dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            "$0" show "$1/specs/seed/copy_async.toml" --svg "$dir/seed.svg"
                            timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
                              --user-data-dir="$dir/profile" --window-size=1400,1000 \
                              --screenshot="$dir/seed.png" "file://$dir/seed.svg" 2>"$dir/log" \
                              || { cat "$dir/log"; exit 1; }
                            timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
                              --user-data-dir="$dir/profile" --dump-dom "file://$dir/seed.svg" \
                              >"$dir/dom" 2>"$dir/log" || { cat "$dir/log"; exit 1; }
                            head -c 4 "$dir/dom" | grep -qx '<svg' \
                              || { echo "the parsed DOM has no <svg> root"; exit 1; }
                            if grep -q parsererror "$dir/dom"; then
                              echo "the browser could not parse the SVG:"
                              grep -o '<parsererror.*</parsererror>' "$dir/dom" | head -c 2000
                              exit 1
                            fi
                            size=$(stat -c %s "$dir/seed.png")
                            echo "screenshot: $size bytes"
                            [ "$(head -c 8 "$dir/seed.png" | od -An -tx1 | tr -d ' ')" = \
                              89504e470d0a1a0a ] && [ "$size" -gt 10000 ]]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(show.renders_in_browser PROPERTIES LABELS show TIMEOUT 180
                     SKIP_RETURN_CODE 77)

# --diagnostics-format on show: an invalid spec's error as one JSON line with the DiagId,
# line and column of the spec's `# expect-error:` line; nothing written; an unknown
# format is a usage error.
add_test(NAME show.diagnostics_format
         COMMAND bash -c [=[set -u; spec="$1/specs/invalid/bad_dtype.toml"
                            dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
                            want=$(sed -n 's/^# expect-error: \([0-9]*\):\([0-9]*\): \[\([a-z_0-9]*\)\].*/"line":\1,"column":\2,.*"id":"\3"/p' "$spec" | head -n 1)
                            [ -n "$want" ] || { echo "no expect-error line"; exit 1; }
                            "$0" show "$spec" --svg "$dir/x.svg" --diagnostics-format=json 2>"$dir/err"
                            rc=$?; cat "$dir/err"
                            [ $rc -eq 1 ] && [ ! -e "$dir/x.svg" ] || exit 1
                            head -n 1 "$dir/err" | grep -q "^{.*$want" || { echo "want $want"; exit 1; }
                            "$0" show "$spec" --svg "$dir/x.svg" --diagnostics-format=xml 2>/dev/null
                            [ $? -eq 2 ]]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR})
set_tests_properties(show.diagnostics_format PROPERTIES LABELS "show;diagnostics" TIMEOUT 60)

# Every spec of specs/pipeline/: under 3,000 px tall, and every ring stage the pipeline
# uses (stage k % S of every tile k) drawn with its thread.
add_test(NAME show.pipeline_pictures
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/show/pictures.py $<TARGET_FILE:ptxgen>
                 ${PROJECT_SOURCE_DIR} stages)
# A conflicting spec (row_repeat_f32: 4-way) and a conflict-free one (double_buffer): the
# picture's bank figures are run --profile's and the ones pictures.py works out by hand.
add_test(NAME show.banks_agree_with_profile
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/show/pictures.py $<TARGET_FILE:ptxgen>
                 ${PROJECT_SOURCE_DIR} banks)
set_tests_properties(show.pipeline_pictures show.banks_agree_with_profile
                     PROPERTIES LABELS "show;sim;ptxas" TIMEOUT 300 SKIP_RETURN_CODE 77)
