#!/usr/bin/env bash
# issue 12, fuzz-wire: a fuzzing session on the GPU machine (docs/fuzzing.md), from the
# repository root, with build-device/ptxgen from tools/build_device.sh:
#  1. `ptxgen fuzz --backend auto --devices all` for TIME seconds, -j the core count,
#     every generated spec kept (--save-specs, in a scratch folder), findings shrunk and
#     saved, a JSON report;
#  2. tools/sass_traps_device.sh over a sample of the generated specs (at most SCAN_MAX,
#     spread evenly over the run's seeds: a long run's every spec is too many to
#     assemble and disassemble again): none of their cubins may carry a known ptxas
#     miscompile signature (the sample size is in the table);
#  3. a table last, every figure read from the JSON report.
# usage: tools/fuzz_device.sh [TIME_SECONDS]
# environment (all optional):
#   TIME      seconds of fuzzing (default 600; the argument wins)
#   SEED      the first spec's seed (default: the clock, in the report)
#   DEVICES   all or 0,2,... (default all; 0 with SANITIZE: its workers use one device)
#   SANITIZE  memcheck|racecheck|synccheck|initcheck: every GPU case under compute-sanitizer
#   SHARD     I/C, for a sweep over several machines
#   MUTANTS   invalid mutants per spec that `check` must refuse (default 1)
#   BACKEND   auto (default), cuda or sim (sim: the dry run of this script, anywhere)
#   SCAN      1: the SASS trap scan (default); 0: skipped (needs cuobjdump: GPU machine only)
#   SCAN_MAX  specs in the scan's sample (default 2000)
#   JOBS      parallel emit/assemble/simulate (default: the core count)
#   PTXGEN    the binary (default build-device/ptxgen)
#   FUZZ_ARGS more arguments for `ptxgen fuzz`, split at spaces (e.g. "--target sm_90")
#   SASS_TRAPS  the scan script (default tools/sass_traps_device.sh; a test gives a stand-in)
# Outputs under $OUT/fuzz (default /tmp/ptxgen-fuzz-device/fuzz): report.json, fuzz.log,
# findings.tar.gz (OUT/<class>-<seed>/ folders), scan_sample.tar.gz, table.txt; the trap
# scan's own logs under $OUT/sass_traps. Exit status: 0 no finding and a clean scan;
# 1 a finding or a failed scan check; 3 the fuzzer could not run or write its report.
set -u
out_root=${OUT:-/tmp/ptxgen-fuzz-device}
log=$out_root/fuzz
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$log"
bin=${PTXGEN:-build-device/ptxgen}
time_s=${1:-${TIME:-600}}
sanitize=${SANITIZE:-}
devices=${DEVICES:-$([ -n "$sanitize" ] && echo 0 || echo all)}
scan_max=${SCAN_MAX:-2000}
jobs=${JOBS:-$(nproc)}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-fuzz-device.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

args=(fuzz --backend "${BACKEND:-auto}" --devices "$devices" --time "$time_s" -j "$jobs"
  --mutants "${MUTANTS:-1}" --save-specs "$scratch/specs" --out "$scratch/findings"
  --report "$log/report.json")
[ -n "${SEED:-}" ] && args+=(--seed "$SEED")
[ -n "$sanitize" ] && args+=(--sanitize "$sanitize")
[ -n "${SHARD:-}" ] && args+=(--shard "$SHARD")
read -r -a more_args <<<"${FUZZ_ARGS:-}"
args+=("${more_args[@]}")
echo "$bin ${args[*]}" > "$log/command.txt"
# The fuzzer's own limit is TIME (it starts no batch after it); the timeout only guards
# against a hang (a batch and the shrinking of its findings).
timeout $((time_s + 900)) "$bin" "${args[@]}" > "$log/fuzz.log" 2>&1
fuzz_rc=$?
[ -d "$scratch/findings" ] && tar -C "$scratch" -czf "$log/findings.tar.gz" findings

# The trap scan over an even sample of the kept specs (sorted by seed).
scan_rc=0
scan_line="skipped (SCAN=0)"
mapfile -t kept < <(find "$scratch/specs" -name '*.toml' 2>/dev/null | sort -V)
if [ "${SCAN:-1}" = 1 ] && [ ${#kept[@]} -gt 0 ]; then
  n=${#kept[@]}
  take=$((n < scan_max ? n : scan_max))
  mkdir -p "$scratch/sample"
  # Spec k*n/take for k < take: exactly `take` distinct specs, evenly spread.
  for ((k = 0; k < take; ++k)); do cp "${kept[$((k * n / take))]}" "$scratch/sample/"; done
  sampled=$(find "$scratch/sample" -name '*.toml' | wc -l)
  tar -C "$scratch" -czf "$log/scan_sample.tar.gz" sample
  OUT=$out_root PTXGEN=$bin bash "${SASS_TRAPS:-tools/sass_traps_device.sh}" "$scratch/sample" \
    > "$log/sass_traps.log" 2>&1
  scan_rc=$?
  extra=$(grep ' extra\.sample' "$out_root/sass_traps/table.txt" 2>/dev/null)
  scan_line="$sampled of ${#kept[@]} specs (evenly spread): ${extra:-no result (sass_traps.log)}"
  [ $scan_rc -eq 0 ] && scan_line+="; every other check ok" ||
    scan_line+="; some check FAILED (sass_traps/table.txt)"
elif [ "${SCAN:-1}" = 1 ]; then
  scan_line="no spec kept"
fi

# The table, every figure from the report (its keys: driver/fuzz/loop.cpp, to_json).
report=$log/report.json
key() { # the value of a top-level key, a string without its quotes
  sed -n "s/^  \"$1\": \(.*\),\$/\1/p" "$report" | head -1 | sed 's/^"\(.*\)"$/\1/'
}
{
  if [ ! -s "$report" ]; then
    echo "no report: the fuzzer could not run (exit status $fuzz_rc, fuzz.log):"
    tail -5 "$log/fuzz.log"
  else
    echo "backend:       $(key backend)"
    echo "seed, shard:   $(key seed), $(key shard)   sanitize: $(key sanitize)"
    printf 'specs:         %s in %.0f s (shrinking %.0f s); %s mutants, %s refused as expected\n' \
      "$(key specs)" "$(key wall_seconds)" "$(key shrink_seconds)" "$(key mutants)" \
      "$(key mutants_refused)"
    printf 'specs/hour:    %.0f\n' "$(key specs_per_hour)"
    key devices | grep -o '{"device": [0-9]*, "specs": [0-9]*, "specs_per_hour": [^}]*}' |
      sed 's/[{}":,]/ /g' | while read -r _ d _ n _ rate; do
        printf '  GPU %s:       %s specs, %.0f specs/hour\n' "$d" "$n" "$rate"
      done
    echo "findings:      $(key findings_total)"
    key findings_by_class | tr -d '{}' | tr ',' '\n' | sed -n 's/^ *"\(.*\)": \([0-9]*\)$/  \1: \2/p'
  fi
  echo "trap scan:     $scan_line"
  echo "fuzz exit:     $fuzz_rc"
} | tee "$log/table.txt"
[ -s "$report" ] || exit 3
[ $fuzz_rc -eq 0 ] && [ $scan_rc -eq 0 ] && exit 0
[ $fuzz_rc -eq 3 ] && exit 3
exit 1
