#!/usr/bin/env bash
# CTest sass.asm.SCENARIO: `ptxgen asm --sass` end to end, with a fake cuobjdump
# that checks its arguments and prints SASS captured on the H200
# (tests/data/sass/). Needs the real ptxas (skipped without one).
# usage: check_asm_sass.sh PTXGEN SOURCE_DIR SCENARIO
set -u
ptxgen=$1 src=$2 scenario=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-sass-cli-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap_ptx=$src/tests/traps/ldgsts_unwritten_uniform.ptx
clean_spec=$src/specs/cache_hint/u64_param.toml

"$ptxgen" asm --arch sm_90 "$trap_ptx" >/dev/null 2>&1
if [ $? -eq 3 ]; then echo "PTXGEN-SKIP: no ptxas"; exit 0; fi

# fake NAME EXIT: a cuobjdump that prints tests/data/sass/NAME and exits EXIT.
fake() {
  printf '#!/bin/sh\n[ "$1" = -sass ] && [ -s "$2" ] || { echo "bad arguments: $*"; exit 9; }\ncat "%s"\nexit %s\n' \
    "$src/tests/data/sass/$1" "$2" > "$work/cuobjdump"
  chmod +x "$work/cuobjdump"
}
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1; }
run() { "$ptxgen" asm "$@" >"$work/out" 2>"$work/err"; rc=$?; echo "exit status $rc"; }

case $scenario in
trap)
  fake ldgsts_unwritten_uniform.sm_90.sass 0
  run --arch sm_90 --sass --disassembler "$work/cuobjdump" -o "$work/k.cubin" "$trap_ptx"
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  grep -q 'warning: ptxas miscompile ldgsts_unwritten_uniform at SASS line 55 ' "$work/err" ||
    fail "no warning naming the signature and its SASS line"
  grep -q 'LDGSTS.E.BYPASS.128 \[R9+UR0\], desc\[UR1\]\[R2.64\]' "$work/out" || fail "no SASS printed"
  [ ! -e "$work/k.cubin" ] || fail "a cubin was written for code known to fail"
  ;;
clean)
  fake cache_hint__u64_param.sm_90.sass 0
  run --arch sm_90 --sass --disassembler "$work/cuobjdump" -o "$work/k.cubin" "$clean_spec"
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  ! grep -q 'miscompile' "$work/err" || fail "a warning for SASS without the signature"
  grep -q 'LDGSTS' "$work/out" || fail "no SASS printed"
  [ -s "$work/k.cubin" ] || fail "no cubin written"
  ;;
broken)
  fake cache_hint__u64_param.sm_90.sass 5
  run --arch sm_90 --sass --disassembler "$work/cuobjdump" "$clean_spec"
  [ $rc -eq 3 ] || fail "exit status $rc, expected 3 (the disassembler failed)"
  ;;
missing)
  run --arch sm_90 --sass --disassembler "$work/none" "$clean_spec"
  [ $rc -eq 3 ] || fail "exit status $rc, expected 3 (no disassembler)"
  grep -q "is not an executable file" "$work/err" || fail "no message naming the missing disassembler"
  ;;
usage)
  run --arch sm_90 --disassembler "$work/none" "$clean_spec"
  [ $rc -eq 2 ] || fail "exit status $rc, expected 2 (--disassembler without --sass)"
  ;;
*)
  echo "unknown scenario $scenario"; exit 1 ;;
esac
echo "ok: $scenario"
