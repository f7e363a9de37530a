#!/usr/bin/env bash
# Throughput of `ptxgen run` on one GPU and on every GPU of the machine (for
# the 2-GPU machine kind), from the repository root, with the binary built by
# tools/build_device.sh carried in build-device/. Runs the corpus with
# --devices 0, then --devices all, REPEAT times each (the spec arguments given
# REPEAT times over, default 1), and prints a table: wall time and specs per
# second of the whole run, the GPU phase alone (the report's device_seconds,
# after emit, reference and ptxas) and the cases it ran per second, and how many
# cases each device ran (from the JSON reports' `device`).
# Logs and reports go to $OUT (default /tmp/ptxgen-devices).
#   usage: bash tools/devices_throughput.sh [SPEC|DIR...]   (default: specs/ specs/faults/)
set -u
out=${OUT:-/tmp/ptxgen-devices}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bin=${PTXGEN:-build-device/ptxgen}
ptxas=$(command -v ptxas)
repeat=${REPEAT:-1}
backend=${BACKEND:-cuda} # BACKEND=sim: a dry run of this script on a machine without a GPU
[ $# -gt 0 ] || set -- specs/ specs/faults/
args=()
for ((r = 0; r < repeat; r++)); do args+=("$@"); done
{ command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; } > "$out/gpus.txt" 2>&1

printf '%-14s %5s %6s %8s %8s %8s %9s  %s\n' run exit specs wall_s specs/s gpu_s gpu_cs/s \
  "cases per device" \
  > "$out/table.txt"
for devices in 0 all; do
  for pass in 1 2; do # the first pass of each warms the driver and the page cache
    name="devices-$devices-$pass"
    start=$(date +%s.%N)
    "$bin" run --backend "$backend" --ptxas "$ptxas" --devices "$devices" \
      --report "$out/$name.json" "${args[@]}" > "$out/$name.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    specs=$(grep -c '"spec": ' "$out/$name.json" 2>/dev/null || true)
    gpu_s=$(grep -o '"device_seconds": [0-9.e+-]*' "$out/$name.json" 2>/dev/null | awk '{print $2}')
    on_gpu=$(grep -c '"device": [0-9]' "$out/$name.json" 2>/dev/null || true)
    per_device=$(grep -o '"device": [0-9a-z]*' "$out/$name.json" 2>/dev/null | sort | uniq -c |
      awk '{printf "%s:%s ", $3, $1}')
    awk -v n="$name" -v rc="$rc" -v s="${specs:-0}" -v a="$start" -v b="$end" -v d="$per_device" \
      -v g="${gpu_s:-0}" -v c="${on_gpu:-0}" 'BEGIN { w = b - a;
        printf "%-14s %5s %6d %8.2f %8.1f %8.2f %9.1f  %s\n", n, rc, s, w, (w > 0 ? s / w : 0), g,
          (g > 0 ? c / g : 0), d }' \
      >> "$out/table.txt"
  done
done
cat "$out/gpus.txt" "$out/table.txt"
grep -h '^backend:' "$out"/devices-*-2.log
