#!/usr/bin/env bash
# Whether the GPU and the fuzzer see the hazards the bulk/TMA family's ordering rules refuse
# (docs/fuzzing.md, "The bulk/TMA family"). For each rule in turn, with that rule disabled
# (PTXGEN_TEST_DISABLE_RULE, test only):
#  (a) a seeded `ptxgen fuzz --family bulk` campaign with every mutant: the mutants that rule
#      refuses are now accepted, and the report counts them as false accepts;
#  (b) the specs of those accepted mutants run on the GPU (and on the simulator), the hardware
#      as the oracle: a fault, a hang or bytes other than the reference's show the hazard
#      (a race may also pass on one run: the hardware shows, it does not prove).
# Logs and reports under $OUT (default /tmp/ptxgen-fuzz-rules); a table printed last.
# usage: tools/fuzz_rules_device.sh [--seed N] [--count N] [--keep N] [--backend cuda|sim]
#   [--out DIR] [RULE...]   (default rules: the four below)
# environment: PTXGEN (default build-device/ptxgen), JOBS (default the core count).
# Exit status: 0 when every rule's campaign reported false accepts, 1 otherwise, 3 without
# a report.
set -u
seed=1 count=768 keep=24 backend=cuda out=${OUT:-/tmp/ptxgen-fuzz-rules}
rules=()
while [ $# -gt 0 ]; do
  case $1 in
  --seed) seed=$2; shift 2 ;;
  --count) count=$2; shift 2 ;;
  --keep) keep=$2; shift 2 ;;
  --backend) backend=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  -*) echo "usage: $0 [--seed N] [--count N] [--keep N] [--backend cuda|sim] [--out DIR] [RULE...]" >&2
    exit 2 ;;
  *) rules+=("$1"); shift ;;
  esac
done
[ ${#rules[@]} -gt 0 ] || rules=(check_proxy_fence_load check_proxy_fence_global
  check_bulk_wait_scope check_bulk_global_write_race)
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
bin=${PTXGEN:-build-device/ptxgen}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
# A top-level "KEY": VALUE, of a report.
key() { sed -n "s/^  \"$2\": \(.*\),\$/\1/p" "$1" | head -1; }
# The sum of field $3 over the mutants_by_rule entries of DiagId $2.
by_rule() {
  grep -o "{\"rule\": [^}]*\"diag_id\": \"$2\"[^}]*}" "$1" |
    grep -o "\"$3\": [0-9]*" | grep -o '[0-9]*$' | awk '{s += $1} END {print s + 0}'
}
# A count of the run report's summary.
summary() { grep -o "\"$2\": [0-9]*" "$1" | head -1 | grep -o '[0-9]*$'; }

status=0
rows=()
backends=("$backend")
[ "$backend" = sim ] || backends+=(sim)
for rule in "${rules[@]}"; do
  dir=$out/$rule
  rm -rf "$dir" && mkdir -p "$dir/accepted"
  args=(fuzz --family bulk --target sm_90 --backend "$backend" --seed "$seed" --count "$count"
    -j "$jobs" --mutants 100 --no-shrink --per-class "$keep" --out "$dir/findings"
    --report "$dir/report.json")
  echo "PTXGEN_TEST_DISABLE_RULE=$rule $bin ${args[*]}" | tee "$dir/command.txt"
  PTXGEN_TEST_DISABLE_RULE=$rule timeout 240 "$bin" "${args[@]}" > "$dir/fuzz.log" 2>&1
  rc=$?
  if [ ! -s "$dir/report.json" ]; then
    echo "$rule: no report (exit $rc):"; tail -5 "$dir/fuzz.log"
    rows+=("$(printf '%-30s %8s' "$rule" "no report")"); status=3; continue
  fi
  fa=$(key "$dir/report.json" false_accepts)
  m=$(by_rule "$dir/report.json" "$rule" mutants) r=$(by_rule "$dir/report.json" "$rule" refused)
  [ "${fa:-0}" -ge 1 ] || { [ $status = 3 ] || status=1; }
  # (b) the accepted mutants (saved as false_accept findings) on the GPU and the simulator.
  n=0
  for f in "$dir"/findings/false_accept-*/spec.toml; do
    [ -e "$f" ] || continue
    cp "$f" "$dir/accepted/$(basename "$(dirname "$f")").toml" && n=$((n + 1))
  done
  res=()
  for b in "${backends[@]}"; do
    if [ "$n" = 0 ]; then res+=("-"); continue; fi
    PTXGEN_TEST_DISABLE_RULE=$rule timeout 150 "$bin" run "$dir/accepted" --backend "$b" \
      --target sm_90 -j "$jobs" --report "$dir/run-$b.json" > "$dir/run-$b.log" 2>&1
    if [ -s "$dir/run-$b.json" ]; then
      res+=("$(summary "$dir/run-$b.json" pass)/$(summary "$dir/run-$b.json" mismatch)/$(summary "$dir/run-$b.json" fault)/$(summary "$dir/run-$b.json" error)")
    else
      res+=("timeout")
    fi
  done
  rows+=("$(printf '%-30s %6s %7s %7s %8s %8s  %-15s %-15s' "$rule" "$(key "$dir/report.json" specs)" \
    "$m" "$r" "$fa" "$n" "${res[0]}" "${res[1]:--}")")
done
echo
echo "bulk family, seeds $seed .. $((seed + count - 1)), --backend $backend, one rule disabled per row"
echo "(a) mutants: the rule's mutants, refused by check with it disabled, false accepts of the run"
echo "(b) accepted: mutant specs saved and run; pass/mismatch/fault/error on ${backends[*]}"
second=sim
[ "$backend" = sim ] && second=-
printf '%-30s %6s %7s %7s %8s %8s  %-15s %-15s\n' rule specs mutants refused false_acc accepted \
  "$backend" "$second"
for row in "${rows[@]}"; do echo "$row"; done
exit $status
