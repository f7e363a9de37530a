#!/usr/bin/env bash
# racecheck's memcpy_async hazards, on the GPU machine, from the repository root,
# with the binaries of tools/build_device.sh in build-device/ (docs/conformance.md,
# "racecheck's warnings"). tests/foreign/src/early_read.cu reads its cp.async
# destination before the group is waited; for its sm_90 -O3 PTX this records:
#
#   run.{log,json}        ptxgen run --sanitize racecheck: must fail the case (exit 1),
#                         "racecheck: 0 errors, N warnings" with N > 0
#   by_hand.*.log         compute-sanitizer racecheck around ptxgen run, default report
#                         (the real log for tests/data/sanitizer/)
#   by_hand_hazard.*.log  the same with --racecheck-report hazard
#   sim.{log,json}        the simulator on the same PTX: `read before wait`
#   lint.log              ptxgen lint on the same PTX, when build-device/ptxgen has it
#
#   tools/racecheck_memcpy_async.sh            (output under $OUT/racecheck_memcpy_async/)
set -u
out=${OUT:-/tmp/ptxgen-device}/racecheck_memcpy_async
rm -rf "$out"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bin=build-device/ptxgen
ptxas=$(command -v ptxas)
limit=${RACECHECK_TIMEOUT:-120}
ptx=tests/foreign/ptx/early_read.sm90.O3.ptx
spec=tests/foreign/specs/early_read.toml
entry=_Z10early_readPKjPj
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  timeout 30 nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  timeout 30 compute-sanitizer --version | tail -1
  git log -1 --format='commit: %h %s'
} > "$out/machine.txt" 2>&1
# 1. ptxgen's own sanitizer run (the device's target: no --arch).
timeout -k 10 "$limit" "$bin" run --backend cuda --sanitize racecheck --ptxas "$ptxas" \
  --ptx "$ptx" --entry "$entry" --report "$out/run.json" "$spec" > "$out/run.log" 2>&1
echo "run rc=$?" >> "$out/rc.txt"
# 2. compute-sanitizer by hand around a plain run (the worker is a child process).
timeout -k 10 "$limit" compute-sanitizer --tool racecheck --target-processes all \
  --log-file "$out/by_hand.%p.log" "$bin" run --backend cuda --ptxas "$ptxas" --ptx "$ptx" \
  --entry "$entry" "$spec" > "$out/by_hand.stdout" 2>&1
echo "by_hand rc=$?" >> "$out/rc.txt"
timeout -k 10 "$limit" compute-sanitizer --tool racecheck --racecheck-report hazard \
  --target-processes all --log-file "$out/by_hand_hazard.%p.log" "$bin" run --backend cuda \
  --ptxas "$ptxas" --ptx "$ptx" --entry "$entry" "$spec" > "$out/by_hand_hazard.stdout" 2>&1
echo "by_hand_hazard rc=$?" >> "$out/rc.txt"
# 3. The simulator on the same PTX (the file's own .target).
timeout -k 10 "$limit" "$bin" run --backend sim --ptxas "$ptxas" --ptx "$ptx" --entry "$entry" \
  --report "$out/sim.json" "$spec" > "$out/sim.log" 2>&1
echo "sim rc=$?" >> "$out/rc.txt"
# 4. ptxgen lint, where this build has it.
if timeout 30 "$bin" lint --help > /dev/null 2>&1; then
  timeout -k 10 "$limit" "$bin" lint "$ptx" > "$out/lint.log" 2>&1
  echo "lint rc=$?" >> "$out/rc.txt"
fi
{
  cat "$out/machine.txt" "$out/rc.txt"
  grep -h 'compute-sanitizer racecheck:\|^sanitizer:' "$out/run.log"
  grep -h 'RACECHECK SUMMARY' "$out"/by_hand*.log
  grep -o '"race_kind": "[^"]*"' "$out/sim.json"
} | tee "$out/summary.txt"
