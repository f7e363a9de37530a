#!/usr/bin/env bash
# The broadcast load, the GEMM A-operand pattern (issue 38, "Performance"), on the GPU machine,
# from the repository root, with build-device/ptxgen from tools/build_device.sh (carried):
# every CTA of a cluster of 2, 4 or 8 needs the same tiles (docs/benchmarks.md, "Broadcast
# loads: multicast against unicast").
#   1. times ptxgen's kernels with `ptxgen bench --target sm_90`: every spec
#      tools/bench/gen_broadcast.py writes (`--list`): multicast paced by a cluster_sync a tile
#      (broadcast_multicast_C, 4 stages), multicast paced by empty barriers across the cluster
#      (broadcast_empty_C_s6, 6 stages, 4 ahead), and the unicast twins of each ring;
#   2. builds the hand-written tools/baseline/broadcast_multicast.cu (nvcc, sm_90a) and times it
#      in the same shapes: `sync` with 4 stages, `empty` (CUTLASS's empty barriers with remote
#      arrivals) with 4 stages and with 6 stages 4 ahead; it checks its own output;
#   3. where ncu is present and may read the counters: one launch of each kernel under ncu for
#      the L2-to-SM traffic: lts__t_sectors_srcunit_tex_op_read (L2 sectors the SMs read, x 32
#      bytes) and l1tex__m_xbar2l1tex_read_bytes (bytes the SMs received from the crossbar), the
#      metrics of these this ncu knows;
#   4. prints a table last: kernel, cluster, stages/ahead, median ms, bytes delivered to shared
#      memory per second (CTAs x tiles x 32 KiB per launch / median), L2-to-SM bytes per
#      launch, and the ratio of each kernel's bandwidth to the best unicast kernel of its A and
#      cluster size (either ring).
# Every command runs under `timeout`; LIMIT (default 540 s) bounds the whole script. Logs under
# $OUT/broadcast (default /tmp/ptxgen-broadcast). Exit status 1 when a step failed.
#
#   OUT=$OUT timeout 580 bash tools/broadcast_device.sh
set -uo pipefail
log=${OUT:-/tmp/ptxgen-broadcast}/broadcast
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$log" fresh
device_clock "${LIMIT:-540}"
bin=${PTXGEN:-build-device/ptxgen}
reps=${REPS:-20}
status=0
mapfile -t specs < <(python3 tools/bench/gen_broadcast.py --list | cut -d' ' -f1)
# The hand-written kernel's runs: cluster, mode, stages, ahead, A's tiles, tiles a CTA receives
# (the last two runs: the `big` specs' shape, an A larger than L2).
baseline_runs=("2 sync 4 3 256 512" "2 empty 4 3 256 512" "2 empty 6 4 256 512"
  "4 sync 4 3 256 512" "4 empty 4 3 256 512" "4 empty 6 4 256 512" "8 empty 6 4 256 512"
  "2 empty 6 4 8448 128" "4 empty 6 4 4224 128")
# base_name C M S A: the log name of a baseline run.
base_name() { echo "nvcc_${2}_${1}_s${3}_a${4}"; }

{
  device_machine
  nvcc --version | tail -1
  "$bin" --version
  device_commit .
} > "$log/machine.txt" 2>&1

# 1. ptxgen's kernels.
for s in "${specs[@]}"; do
  timeout "$(device_capped 120)" "$bin" bench --target sm_90 --reps "$reps" --json "$log/$s.json" \
    "tools/bench/$s.toml" > "$log/$s.bench.txt" 2>&1 || {
    echo "ptxgen bench of $s failed (see $log/$s.bench.txt)"
    status=1
  }
done

# 2. The hand-written kernel.
baseline=$log/broadcast_multicast
if timeout "$(device_capped 180)" nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o "$baseline" \
  tools/baseline/broadcast_multicast.cu -lcuda > "$log/nvcc.txt" 2>&1; then
  for run in "${baseline_runs[@]}"; do
    read -r c m st ah at n <<< "$run"
    name=$(base_name "$c" "$m" "$st" "$at")
    timeout "$(device_capped 60)" "$baseline" --cluster "$c" --mode "$m" --stages "$st" \
      --ahead "$ah" --a-tiles "$at" --tiles "$n" --reps 50 > "$log/$name.txt" 2>&1 || {
      echo "broadcast_multicast $run failed (see $log/$name.txt)"
      status=1
    }
  done
else
  echo "nvcc of tools/baseline/broadcast_multicast.cu failed (see $log/nvcc.txt)"
  status=1
fi

# 3. The L2-to-SM traffic, one launch of each kernel under ncu.
ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
metrics=()
if [ -n "$ncu" ]; then
  timeout "$(device_capped 60)" "$ncu" --query-metrics > "$log/ncu_query.txt" 2>&1
  for m in lts__t_sectors_srcunit_tex_op_read.sum l1tex__m_xbar2l1tex_read_bytes.sum; do
    grep -q "^${m%.sum}\b" "$log/ncu_query.txt" && metrics+=("$m")
  done
fi
profile() { # NAME COMMAND...: ncu's CSV of the first kernel whose name has "broadcast"
  local name=$1
  shift
  timeout "$(device_capped 120)" "$ncu" --csv --print-units base --metrics "$(IFS=,; echo "${metrics[*]}")" \
    --kernel-name regex:broadcast --launch-count 1 "$@" > "$log/$name.ncu.csv" 2>&1 ||
    echo "ncu of $name failed (see $log/$name.ncu.csv)"
}
if [ ${#metrics[@]} -gt 0 ]; then
  for s in "${specs[@]}"; do
    profile "$s" "$bin" bench --target sm_90 --reps 1 --warmup 0 "tools/bench/$s.toml"
  done
  if [ -x "$baseline" ]; then
    for run in "${baseline_runs[@]}"; do
      read -r c m st ah at n <<< "$run"
      profile "$(base_name "$c" "$m" "$st" "$at")" "$baseline" --cluster "$c" --mode "$m" \
        --stages "$st" --ahead "$ah" --a-tiles "$at" --tiles "$n" --reps 1 --warmup 0
    done
  fi
else
  echo "no ncu, or it lists neither metric (see $log/ncu_query.txt): no L2-to-SM figures" \
    > "$log/ncu.txt"
  cat "$log/ncu.txt"
fi

# 4. The table.
cat "$log/machine.txt"
named_runs=()
for run in "${baseline_runs[@]}"; do
  read -r c m st ah at n <<< "$run"
  named_runs+=("$run $(base_name "$c" "$m" "$st" "$at")")
done
python3 - "$log" "${named_runs[@]}" <<'PY'
import csv, json, os, re, sys
log = sys.argv[1]

def spec_shape(name):
    """CTAs and tiles per CTA of a spec: its grid and its k loop's `stop`."""
    text = open(f"tools/bench/{name}.toml").read()
    grid = int(re.search(r"^grid = (\d+)", text, re.M).group(1))
    tiles = int(re.search(r'^var = "k"\nstart = 0\nstop = (\d+)', text, re.M).group(1))
    return grid, tiles

def traffic(name):
    """{metric: value} from ncu's CSV (bytes; sectors x 32)."""
    path = os.path.join(log, name + ".ncu.csv")
    out = {}
    if not os.path.exists(path):
        return out
    lines = [l for l in open(path) if l.startswith('"')]
    for row in csv.DictReader(lines):
        m, v = row.get("Metric Name", ""), row.get("Metric Value", "").replace(",", "")
        try:
            value = float(v)
        except ValueError:
            continue
        unit = row.get("Metric Unit", "")
        if m.startswith("lts__t_sectors"):
            out["l2_read"] = value * 32
        elif m.startswith("l1tex__m_xbar2l1tex"):
            scale = {"Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
                     "GB": 1e9}.get(unit, 1)
            out["xbar_in"] = value * scale
    return out

rows = []  # kernel, cluster, ring, ms, delivered bytes, traffic, A's tiles
for line in os.popen("python3 tools/bench/gen_broadcast.py --list"):
    name, mode, cluster, stages, ahead, a_tiles, _ = line.split()
    grid, tiles = spec_shape(name)
    path = os.path.join(log, name + ".json")
    ms = None
    if os.path.exists(path):
        r = json.load(open(path))["specs"][0]
        ms = r["kernel"]["median_ms"] if r["ok"] else None
    kind = {"sync": "multicast (sync)", "empty": "multicast (empty)"}.get(mode, mode)
    rows.append((f"ptxgen {kind}", cluster, f"{stages}/{ahead}", ms, grid * tiles * 32768,
                 traffic(name), a_tiles))
for line in sys.argv[2:]:
    c, m, st, ah, at, _, base = line.split()  # a baseline run and its log name (base_name)
    path = os.path.join(log, base + ".txt")
    ms, delivered = None, 0
    if os.path.exists(path):
        text = open(path).read()
        got = re.search(r"median_ms ([\d.]+) .*delivered_bytes (\d+) .* (ok|WRONG)", text)
        if got and got.group(3) == "ok":
            ms, delivered = float(got.group(1)), int(got.group(2))
    rows.append((f"nvcc multicast ({m})", c, f"{st}/{ah}", ms, delivered, traffic(base), at))

def gbps(r):
    return r[4] / (r[3] * 1e-3) / 1e9 if r[3] else None

best_unicast = {}
for r in rows:
    if r[0] == "ptxgen unicast" and gbps(r):
        key = (r[1], r[6])
        best_unicast[key] = max(best_unicast.get(key, 0), gbps(r))
print()
print(f"{'kernel':<26} {'cluster':>7} {'A tiles':>7} {'stages/ahead':>12} {'median_ms':>10} "
      f"{'delivered GB/s':>15} {'L2 read bytes':>14} {'xbar->SM bytes':>15} {'x unicast':>9}")
for r in rows:
    g = gbps(r)
    fmt = lambda v, f: (f % v) if v is not None else "-"
    best = best_unicast.get((r[1], r[6]))
    ratio = g / best if g and best else None
    print(f"{r[0]:<26} {r[1]:>7} {r[6]:>7} {r[2]:>12} {fmt(r[3], '%.4f'):>10} {fmt(g, '%.1f'):>15} "
          f"{fmt(r[5].get('l2_read'), '%.4g'):>14} {fmt(r[5].get('xbar_in'), '%.4g'):>15} "
          f"{fmt(ratio, '%.2f'):>9}")
PY
echo "logs: $log ($(($(date +%s) - device_start)) s)"
exit $status
