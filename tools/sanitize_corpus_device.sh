#!/usr/bin/env bash
# compute-sanitizer over the whole corpus with `ptxgen run --sanitize TOOL`, on
# the GPU machine, from the repository root, with build-device/ptxgen built by
# tools/build_device.sh from this tree (carry build-device). Each case runs in
# its own exec'd worker under the tool (driver/cuda/sanitizer_runner.hpp).
#
#   tools/sanitize_corpus_device.sh          # wrap it: timeout 540 tools/...
#
# The four tools run at once over `specs/ specs/faults/` (what
# tools/device_conformance.sh runs), each with -j $SANITIZE_JOBS sanitizer
# processes (default 4: 16 in all on the machine's 16 cores), a limit per case
# (--sanitize-timeout $SANITIZE_TIMEOUT s, default 120) and a limit on the whole
# run ($SANITIZE_TOTAL s, default 400). Then the positive controls, which must
# come out as stated or the sweep proves nothing:
#   racecheck  cross_thread_readback with its bar.sync deleted (--ptx): a fault
#              with racecheck errors
#   synccheck  cross_thread_readback with its bar.sync under tid.x < 16: a fault
#              with synccheck errors
#   memcheck   specs/faults/out_of_bounds.toml, in the sweep: passes (it
#              faults, as a faults/ spec must) with memcheck errors attached
#   initcheck  none: the runner uploads every byte of every allocation (data
#              and guards) before the launch, so no kernel it runs can read
#              uninitialised global memory.
# Logs, JSON reports and summary.txt go to $OUT/sanitize (default /tmp/ptxgen-device).
set -u
out=${OUT:-/tmp/ptxgen-device}/sanitize
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out"
bin=build-device/ptxgen
jobs=${SANITIZE_JOBS:-4}
limit=${SANITIZE_TIMEOUT:-120}
total=${SANITIZE_TOTAL:-400}
readback=specs/thread_scope/cross_thread_readback.toml
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  compute-sanitizer --version | tail -1
  echo "jobs per tool: $jobs, per case: $limit s, per run: $total s"
} > "$out/machine.txt"
start=$(date +%s)
for t in memcheck racecheck synccheck initcheck; do
  (
    s=$(date +%s)
    timeout -k 10 "$total" "$bin" run --sanitize "$t" -j "$jobs" --sanitize-timeout "$limit" \
      --report "$out/$t.json" specs/ specs/faults/ > "$out/$t.log" 2>&1
    echo "$t: exit status $?, wall $(($(date +%s) - s)) s" > "$out/$t.status"
  ) &
done
# The controls' PTX, while the sweep runs.
"$bin" emit "$readback" --target sm_80 > "$out/readback.ptx"
grep -v 'bar.sync' "$out/readback.ptx" > "$out/nobar.ptx"
sed -e 's/^\t\.reg \.b32 %r<11>;/&\n\t.reg .pred %p<2>;/' \
    -e 's/^\tbar\.sync 0;/\tsetp.lt.u32 %p1, %r2, 16;\n\t@%p1 bar.sync 0;/' \
    "$out/readback.ptx" > "$out/divergent_bar.ptx"
wait
sweep_wall=$(($(date +%s) - start))
control() { # NAME TOOL PTX: a fault with errors of TOOL, or FAILED
  timeout -k 10 180 "$bin" run --sanitize "$2" --sanitize-timeout "$limit" --ptx "$3" "$readback" \
    --report "$out/control_$1.json" > "$out/control_$1.log" 2>&1
  local rc=$?
  if [ "$rc" = 1 ] && grep -q '"status": "fault"' "$out/control_$1.json" &&
     grep -Eq '"errors": [1-9]' "$out/control_$1.json"; then
    echo "control $1 ($2): detected (exit $rc)"
  else
    echo "control $1 ($2): FAILED (exit $rc)"
  fi
}
{
  cat "$out/machine.txt"
  echo "sweep (4 tools at once): wall $sweep_wall s"
  for t in memcheck racecheck synccheck initcheck; do
    cat "$out/$t.status" 2>/dev/null || echo "$t: no status (killed?)"
    grep -E '^(summary|compute-sanitizer|sanitizer):' "$out/$t.log"
  done
  control racecheck racecheck "$out/nobar.ptx"
  control synccheck synccheck "$out/divergent_bar.ptx"
  if grep 'specs/faults/out_of_bounds.toml' "$out/memcheck.json" | grep -q '"status": "pass"' &&
     grep 'specs/faults/out_of_bounds.toml' "$out/memcheck.json" |
       grep -Eq '"tool": "memcheck", "checked": true, "errors": [1-9]'; then
    echo "control memcheck (specs/faults/out_of_bounds.toml in the sweep): detected"
  else
    echo "control memcheck (specs/faults/out_of_bounds.toml in the sweep): FAILED"
  fi
  echo "control initcheck: none (every byte of every allocation is uploaded before the launch)"
} | tee "$out/summary.txt"
