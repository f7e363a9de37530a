#!/usr/bin/env bash
# The foreign-PTX corpus (tests/foreign/, docs/foreign.md) on the GPU machine,
# from the repository root, with the binaries of tools/build_device.sh in
# build-device/. For every kernel of tests/foreign/kernels.list and every
# generated PTX of it (sm_80 and sm_90, -O3 and -G; sm_90 files only on a
# device that runs them): run it on the GPU and on the simulator against its
# spec, each dumping its output tensors (--dump), compare the two dumps byte
# for byte, and run the GPU case again under compute-sanitizer racecheck
# (with a time limit, so a hanging sanitizer costs one case).
#
#   tools/foreign_device.sh [NAME...]      (default: every kernel)
#
# Logs go to $OUT/foreign/ (default /tmp/ptxgen-device); a table last: case,
# GPU exit status, simulator exit status, dumps (same / DIFFERENT / -),
# racecheck hazards ("-": no summary, i.e. not checked) and the verdict
# (ok only when both runs pass, the bytes are identical and racecheck is
# clean with a summary).
set -u
out=${OUT:-/tmp/ptxgen-device}/foreign
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out" fresh
bin=build-device/ptxgen
ptxas=$(command -v ptxas)
limit=${RACECHECK_TIMEOUT:-120}
corpus=tests/foreign
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  while read -r n _; do
    case "$n" in '' | '#'*) continue ;; esac
    names+=("$n")
  done < "$corpus/kernels.list"
fi
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.[:space:]')
ok=0
bad=0
table=""
for name in "${names[@]}"; do
  entry=$(awk -v n="$name" '$1 == n { print $2 }' "$corpus/kernels.list")
  spec=$corpus/specs/$name.toml
  targets=$(awk -v n="$name" '$1 == n { print $3 }' "$corpus/kernels.list")
  for v in sm80.O3 sm80.G sm90.O3 sm90.G; do
    [ -z "$targets" ] || [[ ",$targets," == *",${v%%.*},"* ]] || continue
    sm=${v%%.*}
    sm=${sm#sm}
    [ "$sm" -le "${cc:-0}" ] || continue
    ptx=$corpus/ptx/$name.$v.ptx
    case_name=$name.$v
    # The GPU runs SASS for its own target: sm_80 code does not run on an sm_90
    # device, so an sm_80 PTX is assembled for the device's target (as the
    # driver's JIT would); the simulator takes the PTX's own target.
    common=(--ptxas "$ptxas" --ptx "$ptx" --entry "$entry")
    gpu=(--arch "sm_$cc" "${common[@]}")
    timeout -k 10 "$limit" "$bin" run --backend cuda "${gpu[@]}" --dump "$out/gpu/$case_name" \
      --report "$out/$case_name.gpu.json" "$spec" > "$out/$case_name.gpu.log" 2>&1
    gpu_rc=$?
    timeout -k 10 "$limit" "$bin" run --backend sim --arch "sm_$sm" "${common[@]}" --dump "$out/sim/$case_name" \
      --report "$out/$case_name.sim.json" "$spec" > "$out/$case_name.sim.log" 2>&1
    sim_rc=$?
    if [ -d "$out/gpu/$case_name" ] && [ -d "$out/sim/$case_name" ] &&
      [ -n "$(ls "$out/gpu/$case_name")" ]; then
      if diff -r "$out/gpu/$case_name" "$out/sim/$case_name" > "$out/$case_name.diff" 2>&1; then
        dumps=same
      else
        dumps=DIFFERENT
      fi
    else
      dumps=-
    fi
    timeout -k 10 "$limit" compute-sanitizer --tool racecheck --target-processes all \
      "$bin" run --backend cuda "${gpu[@]}" "$spec" > "$out/$case_name.racecheck.log" 2>&1
    rc_rc=$?
    hazards=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$out/$case_name.racecheck.log" |
      grep -Eo '[0-9]+' | awk '{ n += $1 } END { if (NR) print n }')
    [ -z "$hazards" ] && hazards="-"
    [ "$rc_rc" = 124 ] || [ "$rc_rc" = 137 ] && hazards="TIMEOUT"
    if [ "$gpu_rc" = 0 ] && [ "$sim_rc" = 0 ] && [ "$dumps" = same ] && [ "$rc_rc" = 0 ] &&
      [ "$hazards" = 0 ]; then
      verdict=ok
      ok=$((ok + 1))
    else
      verdict=FAILED
      bad=$((bad + 1))
    fi
    table+="$(printf '%-32s %4s %4s %-9s %7s %s' "$case_name" "$gpu_rc" "$sim_rc" "$dumps" "$hazards" "$verdict")"$'\n'
  done
done
{
  device_machine
  compute-sanitizer --version | tail -1
  printf '%-32s %4s %4s %-9s %7s %s\n' case gpu sim dumps hazards verdict
  printf '%s' "$table"
  echo "foreign corpus on the device: $((ok + bad)) cases, $ok ok, $bad not ok"
} | tee "$out/summary.txt"
[ "$bad" = 0 ]
