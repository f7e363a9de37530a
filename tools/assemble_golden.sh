#!/usr/bin/env bash
# Assembles one golden PTX file with the real ptxas for every target ptxgen
# supports. Exits 77 (CTest: skipped) when no ptxas can be found.
set -euo pipefail
ptxgen=$1
golden=$2
targets=(sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_120)
ptxas=${PTXGEN_PTXAS:-}
if [ -z "$ptxas" ]; then
  for p in /usr/local/cuda/bin/ptxas "$(command -v ptxas || true)"; do
    if [ -n "$p" ] && [ -x "$p" ]; then ptxas=$p; break; fi
  done
fi
if [ -z "$ptxas" ]; then
  echo "no ptxas found: skipped"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A golden carries `.target sm_80` (sm_90 for the bulk family's kernels); ptxas compiles it
# for any later -arch, so the targets before the golden's own are left out.
own=$(sed -n 's/^\.target sm_\([0-9]*\).*/\1/p' "$golden" | head -1)
kept=()
for t in "${targets[@]}"; do
  n=${t#sm_}
  n=${n%a}
  [ "$n" -ge "${own:-0}" ] && kept+=("$t")
done
targets=("${kept[@]}")
# In CI (CI=true) the golden's own target and the newest only: PTX is forward compatible, so
# the targets between add ptxas runs (about 60% of these tests' time) and no new verdict on
# any golden so far; outside CI every target runs.
if [ "${CI:-}" = true ] && [ "${#targets[@]}" -gt 2 ]; then
  targets=("${targets[0]}" "${targets[-1]}")
fi
# An architecture-specific golden (`.target sm_90a`: setmaxnreg) runs on that target alone.
own_a=$(sed -n 's/^\.target \(sm_[0-9]*a\)\b.*/\1/p' "$golden" | head -1)
[ -n "$own_a" ] && targets=("$own_a")
"$ptxgen" asm --ptxas "$ptxas" --arch "$(IFS=,; echo "${targets[*]}")" --out-dir "$out" "$golden"
