#!/usr/bin/env bash
# The fuzz loop finds a disagreement and shrinks it: `ptxgen fuzz --inject-fault TEXT`
# (a hidden test hook) flips one byte of the simulator's output of every case whose PTX
# contains TEXT. The fuzz run must fail (exit 1), save a sim_mismatch finding whose
# shrunk spec is smaller than the generated one and still emits TEXT, and that spec must
# pass on the simulator without the hook (the finding was the injected fault alone).
# BACKEND sim: the class is sim_mismatch. BACKEND auto: the GPU and the simulator in one
# run (ConformanceOptions::also_simulate), the class cuda_pass-sim_mismatch; exit 77
# (skipped) where there is no GPU.
# usage: injected_fault.sh PTXGEN WORKDIR SEED COUNT TEXT BACKEND
set -u
ptxgen=$1 work=$2 seed=$3 count=$4 text=$5 backend=$6
class=sim_mismatch
[ "$backend" = auto ] && class=cuda_pass-sim_mismatch
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# Without a GPU (or ptxas), `--backend cuda` stops at its setup, exit 3, before any spec:
# skip at once instead of fuzzing on the simulator first.
if [ "$backend" = auto ]; then
  "$ptxgen" fuzz --seed 1 --count 1 --backend cuda -j 1 --no-shrink >"$work/probe.log" 2>&1
  if [ "$?" = 3 ]; then
    cat "$work/probe.log"
    echo "no GPU: skipped"
    exit 77
  fi
fi
"$ptxgen" fuzz --seed "$seed" --count "$count" --backend "$backend" -j 2 --per-class 1 \
  --inject-fault "$text" --out "$work/findings" --report "$work/report.json" >"$work/log" 2>&1
rc=$?
cat "$work/log"
if [ "$backend" = auto ] && ! grep -q '"backend": "cuda"' "$work/report.json"; then
  echo "no GPU: skipped"
  exit 77
fi
[ "$rc" = 1 ] || fail "ptxgen fuzz exited $rc, expected 1 (findings)"

shopt -s nullglob
dirs=("$work"/findings/"$class"-*)
[ "${#dirs[@]}" = 1 ] || fail "expected one $class finding (--per-class 1), got ${#dirs[@]}"
d=${dirs[0]}
for f in spec.toml original.toml outcome.json; do
  [ -s "$d/$f" ] || fail "$d/$f missing or empty"
done
leftovers=("$work"/findings/.partial-*)
[ "${#leftovers[@]}" = 0 ] || fail "a partial finding folder was left behind"

# Shrunk: fewer bytes than the generated spec, and a lower complexity.
orig=$(wc -c <"$d/original.toml") shrunk=$(wc -c <"$d/spec.toml")
echo "original.toml: $orig bytes, spec.toml: $shrunk bytes"
[ "$shrunk" -lt "$orig" ] || fail "spec.toml ($shrunk bytes) is not smaller than original.toml ($orig)"
before=$(grep -o '"complexity_before": [0-9]*' "$d/outcome.json" | grep -o '[0-9]*$')
after=$(grep -o '"complexity_after": [0-9]*' "$d/outcome.json" | grep -o '[0-9]*$')
[ -n "$before" ] && [ -n "$after" ] && [ "$after" -lt "$before" ] ||
  fail "complexity not lowered: before '$before', after '$after'"
grep -q '"status": "mismatch"' "$d/outcome.json" || fail "outcome.json records no mismatch"
grep -q "\"seed\": " "$d/outcome.json" || fail "outcome.json records no seed"
grep -q '"reproduce": ".*fuzz --seed' "$d/outcome.json" || fail "no reproduce command"

# The shrunk spec keeps what triggers the fault, and without the hook it passes.
"$ptxgen" emit "$d/spec.toml" >"$work/spec.ptx" || fail "the shrunk spec does not emit"
grep -q -F "$text" "$work/spec.ptx" || fail "the shrunk spec's PTX lost '$text'"
"$ptxgen" run --backend "$backend" "$d/spec.toml" || fail "the shrunk spec fails without the hook"
echo "PASS: $d"
