#!/usr/bin/env bash
# The broadcast load, the GEMM A-operand pattern (issue 38, "Performance"), on the GPU machine,
# from the repository root, with build-device/ptxgen from tools/build_device.sh (carried):
# every CTA of a cluster of 2 or of 4 needs the same tiles (docs/benchmarks.md, "Broadcast
# loads: multicast against unicast").
#   1. times ptxgen's kernels with `ptxgen bench --target sm_90`: the multicast kernels
#      tools/bench/broadcast_multicast_{2,4}.toml and the unicast ones of the same launch, ring
#      and tiles, tools/bench/broadcast_unicast_{2,4}.toml;
#   2. builds the hand-written tools/baseline/broadcast_multicast.cu (nvcc, sm_90a) and times it
#      in the same shape, in both of its modes: `sync` (a cluster barrier per tile, as the specs)
#      and `empty` (CUTLASS's empty barriers with remote arrivals); it checks its own output;
#   3. where ncu is present and may read the counters: one launch of each kernel under ncu for
#      the L2-to-SM traffic: lts__t_sectors_srcunit_tex_op_read (L2 sectors the SMs read, x 32
#      bytes) and l1tex__m_xbar2l1tex_read_bytes (bytes the SMs received from the crossbar), the
#      metrics of these this ncu knows;
#   4. prints a table last: kernel, cluster, median ms, bytes delivered to shared memory per
#      second (CTAs x tiles x 32 KiB per launch / median), L2-to-SM bytes per launch, and the
#      ratio of each multicast kernel's bandwidth to its unicast twin's.
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
specs=(broadcast_multicast_2 broadcast_unicast_2 broadcast_multicast_4 broadcast_unicast_4)

# Seconds for the next step: `want`, or what is left of LIMIT when that is less (at least 1).
capped() {
  local left
  left=$(device_left)
  if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}

{
  device_machine
  nvcc --version | tail -1
  "$bin" --version
  device_commit .
} > "$log/machine.txt" 2>&1

# 1. ptxgen's kernels.
for s in "${specs[@]}"; do
  timeout "$(capped 120)" "$bin" bench --target sm_90 --reps "$reps" --json "$log/$s.json" \
    "tools/bench/$s.toml" > "$log/$s.bench.txt" 2>&1 || {
    echo "ptxgen bench of $s failed (see $log/$s.bench.txt)"
    status=1
  }
done

# 2. The hand-written kernel.
baseline=$log/broadcast_multicast
if timeout "$(capped 180)" nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o "$baseline" \
  tools/baseline/broadcast_multicast.cu -lcuda > "$log/nvcc.txt" 2>&1; then
  for c in 2 4; do
    for m in sync empty; do
      timeout "$(capped 60)" "$baseline" --cluster $c --mode $m --reps 50 \
        > "$log/nvcc_${m}_$c.txt" 2>&1 || {
        echo "broadcast_multicast --cluster $c --mode $m failed (see $log/nvcc_${m}_$c.txt)"
        status=1
      }
    done
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
  timeout "$(capped 60)" "$ncu" --query-metrics > "$log/ncu_query.txt" 2>&1
  for m in lts__t_sectors_srcunit_tex_op_read.sum l1tex__m_xbar2l1tex_read_bytes.sum; do
    grep -q "^${m%.sum}\b" "$log/ncu_query.txt" && metrics+=("$m")
  done
fi
profile() { # NAME COMMAND...: ncu's CSV of the first kernel whose name has "broadcast"
  local name=$1
  shift
  timeout "$(capped 120)" "$ncu" --csv --print-units base --metrics "$(IFS=,; echo "${metrics[*]}")" \
    --kernel-name regex:broadcast --launch-count 1 "$@" > "$log/$name.ncu.csv" 2>&1 ||
    echo "ncu of $name failed (see $log/$name.ncu.csv)"
}
if [ ${#metrics[@]} -gt 0 ]; then
  for s in "${specs[@]}"; do
    profile "$s" "$bin" bench --target sm_90 --reps 1 --warmup 0 "tools/bench/$s.toml"
  done
  if [ -x "$baseline" ]; then
    for c in 2 4; do
      for m in sync empty; do
        profile "nvcc_${m}_$c" "$baseline" --cluster $c --mode $m --reps 1 --warmup 0
      done
    done
  fi
else
  echo "no ncu, or it lists neither metric (see $log/ncu_query.txt): no L2-to-SM figures" \
    > "$log/ncu.txt"
  cat "$log/ncu.txt"
fi

# 4. The table.
cat "$log/machine.txt"
python3 - "$log" <<'PY'
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

rows = []
for name in ("broadcast_multicast_2", "broadcast_unicast_2", "broadcast_multicast_4",
             "broadcast_unicast_4"):
    grid, tiles = spec_shape(name)
    path = os.path.join(log, name + ".json")
    ms = None
    if os.path.exists(path):
        r = json.load(open(path))["specs"][0]
        ms = r["kernel"]["median_ms"] if r["ok"] else None
    rows.append(("ptxgen " + name.replace("broadcast_", ""), name[-1], ms,
                 grid * tiles * 32768, traffic(name)))
for c in ("2", "4"):
    for m in ("sync", "empty"):
        path = os.path.join(log, f"nvcc_{m}_{c}.txt")
        ms, delivered = None, 0
        if os.path.exists(path):
            line = open(path).read()
            got = re.search(r"median_ms ([\d.]+) .*delivered_bytes (\d+) .* (ok|WRONG)", line)
            if got and got.group(3) == "ok":
                ms, delivered = float(got.group(1)), int(got.group(2))
        rows.append((f"nvcc multicast ({m})", c, ms, delivered, traffic(f"nvcc_{m}_{c}")))

def gbps(r):
    return r[3] / (r[2] * 1e-3) / 1e9 if r[2] else None

unicast = {r[1]: gbps(r) for r in rows if "unicast" in r[0]}
print()
print(f"{'kernel':<28} {'cluster':>7} {'median_ms':>10} {'delivered GB/s':>15} "
      f"{'L2 read bytes':>14} {'xbar->SM bytes':>15} {'x unicast':>9}")
for r in rows:
    g = gbps(r)
    fmt = lambda v, f: (f % v) if v is not None else "-"
    ratio = g / unicast[r[1]] if g and unicast.get(r[1]) else None
    print(f"{r[0]:<28} {r[1]:>7} {fmt(r[2], '%.4f'):>10} {fmt(g, '%.1f'):>15} "
          f"{fmt(r[4].get('l2_read'), '%.4g'):>14} {fmt(r[4].get('xbar_in'), '%.4g'):>15} "
          f"{fmt(ratio, '%.2f'):>9}")
PY
echo "logs: $log ($(($(date +%s) - device_start)) s)"
exit $status
