#!/usr/bin/env bash
# Hostile environment: a missing, non-executable, failing, crashing, hanging,
# flooding or garbage-printing ptxas (fake scripts written here) for `ptxgen asm`
# and `ptxgen instr --ptxas`; a read-only output folder and a full disk for
# emit/asm/golden/run outputs and for stdout. Each is a clear message and exit
# status 3 (environment), no hang and no partial output. A ptxas that exits
# non-zero is taken as rejecting the PTX (status 1, its text shown), as the real
# one does for invalid PTX: the two cannot be told apart.
#   environment.sh PTXGEN REPO WORK
source "$(dirname "$0")/lib.sh"

BIN="$WORK/fake bin"
mkdir -p "$BIN"
fake() { # fake NAME BODY: an executable sh script
  printf '#!/bin/sh\n%s\n' "$2" >"$BIN/$1"
  chmod +x "$BIN/$1"
}
fake failing 'echo "qqq something went wrong zzz" >&2; exit 1'
fake crashing 'kill -SEGV $$'
fake aborting 'kill -ABRT $$'
fake hanging 'exec sleep 1000'
fake garbage 'head -c 65536 /dev/urandom; head -c 65536 /dev/urandom >&2; exit 0'
fake flooding 'exec yes "flood flood flood flood flood flood flood flood"'
fake exec_fails 'exec /nonexistent/interpreter'
printf '#!/bin/sh\necho hi\n' >"$BIN/not_executable"
chmod -x "$BIN/not_executable"
printf '\x7fELF\x02\x01\x01garbage' >"$BIN/bad_elf"
chmod +x "$BIN/bad_elf"

"$PTXGEN" emit "$GOOD_SPEC" -o "$WORK/k.ptx" 2>/dev/null || fail "cannot emit the seed spec"

# --- ptxgen asm -o: status, message, and the old cubin untouched --------------
printf 'OLD' >"$WORK/keep.cubin"
asm_case() { # asm_case PTXAS WANT_STATUS REGEX [extra args]
  local ptxas=$1 want=$2 regex=$3
  shift 3
  OUT=
  local t0=$SECONDS
  run_ptxgen 30 asm "$WORK/k.ptx" --arch sm_80 --ptxas "$ptxas" -o "$WORK/keep.cubin" "$@"
  expect "$want" "asm with ptxas '${ptxas##*/}'"
  expect_match "$regex" "asm with ptxas '${ptxas##*/}'"
  [ "$(cat "$WORK/keep.cubin")" = OLD ] || fail "asm with ptxas '${ptxas##*/}': old cubin changed"
  [ $((SECONDS - t0)) -le 15 ] || fail "asm with ptxas '${ptxas##*/}': took $((SECONDS - t0)) s"
}
asm_case "$BIN/missing" 3 "missing"
asm_case "$BIN/not_executable" 3 "not_executable"
asm_case "$BIN/bad_elf" 3 "bad_elf|exec|start"
asm_case "$BIN/failing" 1 "qqq something went wrong zzz"
asm_case "$BIN/crashing" 3 "SIGSEGV"
asm_case "$BIN/aborting" 3 "SIGABRT|signal"
asm_case "$BIN/hanging" 3 "killed" --timeout 1
asm_case "$BIN/flooding" 3 "killed|output" --timeout 2
asm_case "$BIN/garbage" 3 "no cubin"
asm_case "$BIN" 3 "fake bin"

# --- ptxgen instr --ptxas=PATH --------------------------------------------------
instr_case() { # instr_case PTXAS WANT_STATUS REGEX
  local t0=$SECONDS
  run_ptxgen 90 instr cp.async.cg.shared.global --chunk-bytes 16 "--ptxas=$1"
  expect "$2" "instr with ptxas '${1##*/}'"
  expect_match "$3" "instr with ptxas '${1##*/}'"
  [ $((SECONDS - t0)) -le 15 ] || fail "instr with ptxas '${1##*/}': took $((SECONDS - t0)) s"
}
instr_case "$BIN/missing" 3 "missing"
instr_case "$BIN/not_executable" 3 "not_executable"
instr_case "$BIN/bad_elf" 3 "bad_elf|exec|start"
instr_case "$BIN/failing" 3 "qqq something went wrong zzz"
instr_case "$BIN/crashing" 3 "SIGSEGV"
instr_case "$BIN/aborting" 3 "SIGABRT|signal"
instr_case "$BIN" 3 "fake bin"
# Garbage on stdout/stderr with status 0 and no cubin: not a working ptxas.
instr_case "$BIN/garbage" 3 "no cubin"

# --- ptxgen run: every backend assembles with ptxas ------------------------------
# A missing or broken ptxas stops the run with status 3 on the simulator too
# (and on `auto`, which is the simulator where there is no GPU).
run_case() { # run_case BACKEND PTXAS WANT_STATUS REGEX
  local t0=$SECONDS
  run_ptxgen 60 run --backend "$1" --ptxas "$2" "$GOOD_SPEC"
  expect "$3" "run --backend $1 with ptxas '${2##*/}'"
  expect_match "$4" "run --backend $1 with ptxas '${2##*/}'"
  [ $((SECONDS - t0)) -le 30 ] || fail "run with ptxas '${2##*/}': took $((SECONDS - t0)) s"
}
for backend in sim auto; do
  run_case $backend /bin/false 3 "/bin/false"
  run_case $backend "$BIN/missing" 3 "missing"
  run_case $backend "$BIN/not_executable" 3 "not_executable"
  run_case $backend "$BIN/failing" 3 "qqq something went wrong zzz"
  run_case $backend "$BIN/crashing" 3 "SIGSEGV"
  run_case $backend "$BIN/garbage" 3 "no cubin"
  run_case $backend "$BIN" 3 "fake bin"
done
# A --ptx file that the real ptxas rejects never passes: a target without
# cp.async, a PTX version without it (the simulator runs both: only ptxas
# refuses them), and an instruction that does not exist.
if REAL_PTXAS=$(command -v ptxas); then
  sed 's/^\.target sm_80$/.target sm_70/' "$WORK/k.ptx" >"$WORK/sm70.ptx"
  sed 's/^\.version 7\.0$/.version 6.5/' "$WORK/k.ptx" >"$WORK/v65.ptx"
  sed 's/^\(\s*\)ret;$/\1frobnicate.u32 %r1, %r1;\n\1ret;/' "$WORK/k.ptx" >"$WORK/bad_op.ptx"
  grep -q '^\.target sm_70$' "$WORK/sm70.ptx" || fail "the sm_70 variant of k.ptx did not apply"
  grep -q '^\.version 6\.5$' "$WORK/v65.ptx" || fail "the 6.5 variant of k.ptx did not apply"
  grep -q frobnicate "$WORK/bad_op.ptx" || fail "the bad-instruction variant of k.ptx did not apply"
  for backend in sim auto; do
    for bad in sm70 v65 bad_op; do
      run_ptxgen 60 run --backend $backend --ptxas "$REAL_PTXAS" --ptx "$WORK/$bad.ptx" "$GOOD_SPEC"
      expect 1 "run --backend $backend --ptx $bad.ptx"
      expect_match "ptxas rejected" "run --backend $backend --ptx $bad.ptx"
      expect_match "backend: .*$bad\.ptx" "run --backend $backend --ptx $bad.ptx"
    done
    # The same file unchanged passes, so the failures above are ptxas's.
    run_ptxgen 60 run --backend $backend --ptxas "$REAL_PTXAS" --ptx "$WORK/k.ptx" "$GOOD_SPEC"
    expect 0 "run --backend $backend --ptx k.ptx"
  done
else
  echo "SKIPPED: run --ptx with PTX ptxas rejects (no ptxas on PATH)" >&2
fi

# --- a read-only output folder and a full disk ---------------------------------
# As root, permissions do not stop writes: use read-only and full tmpfs mounts.
MOUNTS=()
cleanup() {
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
}
trap cleanup EXIT
mkdir -p "$WORK/ro" "$WORK/full"
ro_ok=0
full_ok=0
if [ "$(id -u)" = 0 ]; then
  if mount -t tmpfs -o size=64k,ro tmpfs "$WORK/ro" 2>/dev/null; then
    MOUNTS+=("$WORK/ro")
    ro_ok=1
  fi
  if mount -t tmpfs -o size=64k tmpfs "$WORK/full" 2>/dev/null; then
    MOUNTS+=("$WORK/full")
    dd if=/dev/zero of="$WORK/full/filler" bs=1k 2>/dev/null
    full_ok=1
  fi
else
  chmod 555 "$WORK/ro" && ro_ok=1
fi

# out_case DIR WHAT: every writing command into DIR is status 3 and leaves nothing.
out_case() {
  local dir=$1 what=$2
  run_ptxgen 30 emit "$GOOD_SPEC" -o "$dir/k.ptx"
  expect 3 "emit -o into a $what"
  run_ptxgen 30 emit "$GOOD_SPEC" --out-dir "$dir/sub"
  expect 3 "emit --out-dir into a $what"
  run_ptxgen 30 asm "$WORK/k.ptx" --arch sm_80 --ptxas "$BIN/garbage" --out-dir "$dir"
  expect 3 "asm --out-dir into a $what"
  run_ptxgen 120 run --backend sim --report "$dir/r.json" "$GOOD_SPEC"
  expect 3 "run --report into a $what"
  run_ptxgen 60 golden --update --golden-dir "$dir/g" --spec-root "$REPO/specs" \
    "$REPO/specs/seed/copy_async.toml"
  expect 3 "golden --update into a $what"
  no_stray "$dir" "$what" filler
}
if [ $ro_ok = 1 ]; then
  out_case "$WORK/ro" "read-only folder"
else
  echo "SKIPPED: read-only folder (cannot mount a read-only tmpfs here)" >&2
fi
if [ $full_ok = 1 ]; then
  out_case "$WORK/full" "full disk"
else
  echo "SKIPPED: full disk (cannot mount a small tmpfs here)" >&2
fi
# stdout on a full device.
if [ -w /dev/full ]; then
  "$PTXGEN" emit "$GOOD_SPEC" >/dev/full 2>"$WORK/.err"
  RC=$?
  OUT=
  ERR=$(cat "$WORK/.err")
  expect 3 "emit to stdout on /dev/full"
  expect_match "standard output" "emit to stdout on /dev/full"
fi

finish
