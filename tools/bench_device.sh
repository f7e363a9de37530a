#!/usr/bin/env bash
# issue 13, bench: `ptxgen bench` on the GPU machine, from the repository root, with
# build-device/ptxgen from tools/build_device.sh (carried). Times the streaming-copy
# specs against cuMemcpyDtoD of the same bytes and prints a table (docs/benchmarks.md,
# "ptxgen bench"):
#   - every specs/large/stream*.toml (the one-stage and pipelined streaming copies,
#     where they are in the corpus);
#   - tools/bench/stream_copy_one_stage.toml (the one-stage streaming copy of 2 GiB, the
#     shape of the seed stage's measured copy);
#   - tools/bench/stream_copy_persistent.toml (the persistent pipelined copy of 2 GiB that
#     tools/bench/stream_bench.sh times), emitted for sm_90 (try_wait);
#   - any spec given as an argument instead of those.
# usage: tools/bench_device.sh [SPEC...]. Environment (optional): REPS (default 20),
# WARMUP (default: bench's own, 10), PTXGEN (default build-device/ptxgen), OUT (default /tmp/ptxgen-bench): the
# JSON of each run and the logs go to $OUT/bench. Exit status: 1 when a spec was not timed.
set -u
log=${OUT:-/tmp/ptxgen-bench}/bench
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$log"
bin=${PTXGEN:-build-device/ptxgen}
reps=${REPS:-20}
warmup=()
[ -n "${WARMUP:-}" ] && warmup=(--warmup "$WARMUP")

{
  device_machine
  ptxas --version | tail -1
  "$bin" --version # names the commit it was built from (the device's .git may lag)
} > "$log/machine.txt" 2>&1
cat "$log/machine.txt"

if [ $# -gt 0 ]; then
  specs=("$@")
else
  shopt -s nullglob
  specs=(specs/large/stream*.toml tools/bench/stream_copy_one_stage.toml
         tools/bench/stream_copy_persistent.toml)
fi

failures=0
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .toml)
  # sm_90 PTX (try_wait loops) for the GPU it runs on; the bench assembles for the device.
  timeout 600 "$bin" bench --target sm_90 --reps "$reps" "${warmup[@]}" \
    --json "$log/$name.json" "$spec" > "$log/$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    failures=$((failures + 1))
    echo "FAIL $spec (exit status $rc):"
    sed 's/^/  /' "$log/$name.log"
  fi
done

# The table: one line per timed spec, from the JSON files (python3 is on the machine).
python3 - "$log" "${specs[@]}" <<'PY'
import json, os, sys
log, specs = sys.argv[1], sys.argv[2:]
print(f"{'spec':<48} {'bytes':>14} {'median_ms':>10} {'min_ms':>10} {'GB/s':>8} "
      f"{'DtoD GB/s':>9} {'of DtoD':>8}")
for spec in specs:
    path = os.path.join(log, os.path.splitext(os.path.basename(spec))[0] + ".json")
    if not os.path.exists(path):
        print(f"{spec:<48} (no result)")
        continue
    for r in json.load(open(path))["specs"]:
        if not r["ok"]:
            print(f"{r['spec']:<48} not timed: {r['problem'].splitlines()[0] if r['problem'] else ''}")
            continue
        print(f"{r['spec']:<48} {r['bytes']:>14} {r['kernel']['median_ms']:>10.4f} "
              f"{r['kernel']['min_ms']:>10.4f} {r['gb_per_s']:>8.1f} {r['memcpy_gb_per_s']:>9.1f} "
              f"{r['percent_of_memcpy']:>7.1f}%")
PY
[ $failures -eq 0 ]
