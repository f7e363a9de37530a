#!/usr/bin/env bash
# `ptxgen tune` without a GPU: every combination of the choices becomes a candidate spec, each
# is checked and run on the simulator (a refused one names its DiagId), the JSON lists them,
# and bad choices are refused with what is wrong.
# usage: tune.sh PTXGEN SPEC WORKDIR
set -u
ptxgen=$1 spec=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$ptxgen" tune "$spec" --backend sim --choose kernel.ctas_per_sm=1,3,40 \
  --choose 'kernel.block=32,[64,1,1]' --json tune.json 2>progress.txt)
rc=$?
[ $rc = 0 ] || fail "tune exited $rc: $out"
[ "$(grep -c 'pass (not timed)' <<<"$out")" = 4 ] || fail "expected 4 passing candidates: $out"
[ "$(grep -c 'invalid \[spec_ctas_per_sm_range\]' <<<"$out")" = 2 ] ||
  fail "expected ctas_per_sm=40 refused twice: $out"
grep -q 'kernel.ctas_per_sm=3 kernel.block=\[64,1,1\]' <<<"$out" || fail "no 3 x [64,1,1]: $out"
grep -q '6 candidates' progress.txt || fail "no progress line: $(cat progress.txt)"
python3 - tune.json <<'PY' || fail "tune.json"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["candidates"]
assert len(c) == 6, len(c)
assert [x["chosen"]["kernel.ctas_per_sm"] for x in c] == ["1", "1", "3", "3", "40", "40"]
assert [x["status"] for x in c] == ["pass"] * 4 + ["invalid"] * 2
assert not any(x["fastest"] for x in c)  # nothing timed on the simulator
PY
refused() { # WHAT RC MESSAGE ARGS...
  local what=$1 want=$2 says=$3
  shift 3
  msg=$("$ptxgen" tune "$spec" --backend sim "$@" 2>&1)
  r=$?
  [ $r = "$want" ] || fail "$what: exit $r, expected $want: $msg"
  grep -q -- "$says" <<<"$msg" || fail "$what: '$msg' does not say '$says'"
}
refused "no choice" 2 "at least one --choose"
refused "no =" 2 "expected KEY=V1,V2" --choose kernel.block
refused "unclosed [" 2 "unclosed" --choose 'kernel.block=[32,1'
refused "a key the spec lacks" 1 "has no 'nosuch'" --choose nosuch.x=1
refused "not TOML" 1 "not a TOML value" --choose kernel.block=3x
refused "too many" 1 "more than 4096" --choose kernel.block=$(seq -s, 1 100) \
  --choose kernel.grid=$(seq -s, 1 100)
echo PASS
