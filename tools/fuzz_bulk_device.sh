#!/usr/bin/env bash
# A time-boxed fuzz campaign of the bulk/TMA family (docs/fuzzing.md, "The bulk/TMA family"):
# `ptxgen fuzz --family bulk --target sm_90` on the GPU (--backend cuda by default; a spec
# check accepted that faults, hangs or mismatches there is a false accept), every mutation rule
# per spec, findings shrunk within a budget that keeps the whole command inside the device
# machine's 10-minute limit, a JSON report, and at the end the seed range, the next seed and
# the counts. Run it again with --seed NEXT to continue the campaign where it stopped.
# `--family cluster` runs the cluster family ("The cluster family") the same way.
# usage: tools/fuzz_bulk_device.sh --seconds S --seed N [--backend cuda|sim|auto] [--out DIR]
#   [--family bulk|cluster]
# environment: PTXGEN (default build-device/ptxgen), JOBS (default the core count),
#   PTXGEN_TEST_DISABLE_RULE (test only: a campaign with a rule disabled must report false
#   accepts).
# Exit status: ptxgen fuzz's (0 no finding, 1 findings, 3 environment); 3 without a report.
set -u
seconds=480 seed=1 backend=cuda out= family=bulk
while [ $# -gt 0 ]; do
  case $1 in
  --seconds) seconds=$2; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  --backend) backend=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --family) family=$2; shift 2 ;;
  *) echo "usage: $0 --seconds S --seed N [--backend cuda|sim|auto] [--out DIR] [--family bulk|cluster]" >&2; exit 2 ;;
  esac
done
out=${out:-${OUT:-/tmp/ptxgen-fuzz-$family}}
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
bin=${PTXGEN:-build-device/ptxgen}
mkdir -p "$out"
report=$out/report-$seed.json
args=(fuzz --family "$family" --target sm_90 --backend "$backend" --seed "$seed" --time "$seconds"
  -j "${JOBS:-$(nproc)}" --mutants 100 --per-class 1 --shrink-budget 200
  --out "$out/findings-$seed" --report "$report")
echo "$bin ${args[*]}" | tee "$out/command-$seed.txt"
# The fuzzer starts no batch after --time; the guard bounds a last batch and its shrinking.
timeout $((seconds + 90)) "$bin" "${args[@]}" > "$out/fuzz-$seed.log" 2>&1
rc=$?
[ -s "$report" ] || { echo "no report (exit $rc):"; tail -5 "$out/fuzz-$seed.log"; exit 3; }
key() { sed -n "s/^  \"$1\": \(.*\),\$/\1/p" "$report" | head -1; }
specs=$(key specs)
echo "backend:         $(key backend)"
echo "seeds:           $seed .. $((seed + specs - 1)) ($specs specs); next: --seed $((seed + specs))"
echo "wall seconds:    $(key wall_seconds)"
echo "specs passed:    $(key passed)"
echo "mutants:         $(key mutants) checked, $(key mutants_refused) refused as declared, $(key mutants_pending) of pending rules (not checked)"
echo "false accepts:   $(key false_accepts)"
echo "findings:        $(key findings_total) $(key findings_by_class)"
echo "report:          $report (exit $rc)"
exit $rc
