#!/usr/bin/env bash
# Nothing lost: a failing emit -o, golden --update, asm -o or run --report never
# truncates or clobbers an existing output and leaves no partial file; paths with
# spaces, quotes and shell metacharacters work everywhere.
#   outputs.sh PTXGEN REPO WORK
source "$(dirname "$0")/lib.sh"

# A folder name the shell would misread: spaces, both quotes, $(...), `...`, ;&|*?<>.
ODD="$WORK/a dir 'q' \"dq\" \$(touch pwned) \`touch pwned\` ; & | * ? <x> #"
mkdir -p "$ODD"
cp "$GOOD_SPEC" "$ODD/good spec;\$x.toml"
printf '[kernel]\nname = "k"\nblock = 0\n' >"$ODD/bad spec.toml"
SENTINEL="precious contents that must survive"

# emit -o: a good spec into the odd folder works; a bad spec leaves the old file.
run_ptxgen 30 emit "$ODD/good spec;\$x.toml" -o "$ODD/out 'k'.ptx"
expect 0 "emit into an odd path"
grep -q '^\.version' "$ODD/out 'k'.ptx" 2>/dev/null || fail "emit into an odd path: no PTX written"
printf '%s' "$SENTINEL" >"$WORK/keep.ptx"
cp "$WORK/keep.ptx" "$WORK/keep.orig"
run_ptxgen 30 emit "$ODD/bad spec.toml" -o "$WORK/keep.ptx"
expect 1 "emit -o of a bad spec"
same_file "$WORK/keep.ptx" "$WORK/keep.orig" "emit -o of a bad spec"
# -o naming a directory: an I/O error, the directory untouched.
mkdir -p "$WORK/outdir.ptx"
run_ptxgen 30 emit "$GOOD_SPEC" -o "$WORK/outdir.ptx"
expect 3 "emit -o onto a directory"
[ -d "$WORK/outdir.ptx" ] || fail "emit -o onto a directory: the directory is gone"
[ ! -e "$WORK/pwned" ] && [ ! -e "$ODD/pwned" ] && [ ! -e pwned ] ||
  fail "a shell ran the metacharacters in a path"
no_stray "$WORK" "emit" keep.ptx keep.orig outdir.ptx "${ODD##*/}" .out .err

# golden --update over a temp copy of specs/seed with one bad spec among good ones:
# the bad spec's golden stays byte for byte; the good ones are (re)written.
S="$WORK/spec root \$(x)"
G="$WORK/golden 'dir'"
mkdir -p "$S/seed" "$G/seed"
cp "$REPO"/specs/seed/*.toml "$S/seed/"
cp "$REPO"/golden/seed/*.ptx "$G/seed/"
printf '[kernel]\nname = "broken"\nblock = 0\n' >"$S/seed/copy_async.toml"
cp "$G/seed/copy_async.ptx" "$WORK/golden.orig"
printf 'stale\n' >"$G/seed/zero_fill_valid_rows.ptx"
run_ptxgen 60 golden --update --golden-dir "$G" --spec-root "$S" "$S"
expect 1 "golden --update with one bad spec"
same_file "$G/seed/copy_async.ptx" "$WORK/golden.orig" "golden --update with one bad spec"
grep -q '^\.version' "$G/seed/zero_fill_valid_rows.ptx" ||
  fail "golden --update: the stale golden of a good spec was not rewritten"
no_stray "$G/seed" "golden --update" copy_async.ptx zero_fill_if_then_else.ptx \
  zero_fill_valid_rows.ptx

# asm -o: ptxas rejecting, crashing or printing garbage never touches the old cubin.
mkdir -p "$WORK/bin dir"
printf '#!/bin/sh\necho "ptxas fatal   : Unresolved extern function foo" >&2\nexit 255\n' \
  >"$WORK/bin dir/ptxas rejects"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$WORK/bin dir/ptxas crashes"
chmod +x "$WORK/bin dir"/*
"$PTXGEN" emit "$GOOD_SPEC" -o "$WORK/k.ptx" 2>/dev/null
printf '%s' "$SENTINEL" >"$ODD/k 'x'.cubin"
cp "$ODD/k 'x'.cubin" "$WORK/cubin.orig"
run_ptxgen 60 asm "$WORK/k.ptx" --arch sm_80 --ptxas "$WORK/bin dir/ptxas rejects" \
  -o "$ODD/k 'x'.cubin"
expect 1 "asm -o with ptxas rejecting"
same_file "$ODD/k 'x'.cubin" "$WORK/cubin.orig" "asm -o with ptxas rejecting"
run_ptxgen 60 asm "$WORK/k.ptx" --arch sm_80 --ptxas "$WORK/bin dir/ptxas crashes" \
  -o "$ODD/k 'x'.cubin"
expect 3 "asm -o with ptxas crashing"
same_file "$ODD/k 'x'.cubin" "$WORK/cubin.orig" "asm -o with ptxas crashing"

# run --report: written into an odd path; a report that cannot be written (its
# folder is missing, or it names a directory) is status 3 and leaves the old file.
run_ptxgen 120 run --backend sim --report "$ODD/report 'r'.json" "$ODD/good spec;\$x.toml"
expect 0 "run --report into an odd path"
grep -q '"' "$ODD/report 'r'.json" 2>/dev/null || fail "run --report: no report written"
run_ptxgen 120 run --backend sim --report "$WORK/no such dir/r.json" "$GOOD_SPEC"
expect 3 "run --report into a missing folder"
mkdir -p "$WORK/r.xml"
run_ptxgen 120 run --backend sim --report "$WORK/r.xml" "$GOOD_SPEC"
expect 3 "run --report onto a directory"
printf '%s' "$SENTINEL" >"$WORK/keep.json"
run_ptxgen 120 run --backend sim --report "$WORK/keep.json" "$ODD/bad spec.toml"
expect 1 "run --report of a bad spec"
# The report of a failing run is a complete report (it says what failed), never a stub.
if cmp -s "$WORK/keep.json" <(printf '%s' "$SENTINEL"); then
  : # left alone: fine too
elif command -v python3 >/dev/null; then
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/keep.json" 2>/dev/null ||
    fail "run --report of a bad spec: the report is neither the old file nor valid JSON"
elif [ "$(head -c 1 "$WORK/keep.json")" != "{" ] || [ "$(tail -c 2 "$WORK/keep.json" | head -c 1)" != "}" ]; then
  fail "run --report of a bad spec: the report is neither the old file nor a JSON object"
fi

# An output folder that cannot be created (a file stands where its parent
# should be) is said as such and is status 3, for emit, golden and run --dump.
printf 'a file' >"$WORK/plain file"
run_ptxgen 30 emit "$GOOD_SPEC" --out-dir "$WORK/plain file/out"
expect 3 "emit --out-dir below a file"
expect_match "cannot create" "emit --out-dir below a file"
run_ptxgen 60 golden --update --golden-dir "$WORK/plain file/g" --spec-root "$REPO/specs" \
  "$REPO/specs/seed/copy_async.toml"
expect 3 "golden --update below a file"
expect_match "cannot create" "golden --update below a file"
run_ptxgen 120 run --backend sim --dump "$WORK/plain file/dump" "$GOOD_SPEC"
expect 3 "run --dump below a file"
expect_match "cannot create" "run --dump below a file"
[ "$(cat "$WORK/plain file")" = "a file" ] || fail "the file below which outputs were asked changed"

finish
