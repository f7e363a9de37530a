#!/usr/bin/env bash
# The GEMM operand stream (issue 38, "Performance"), on the GPU machine, from the repository
# root, with build-device/ptxgen from tools/build_device.sh (carried): the specs
# tools/bench/gen_gemm_operands.py writes, a 22 x 6 grid in 2 x 2 clusters walking K with the
# warp-specialized ring, A's tiles multicast along each cluster row and B's along each column
# against the same ring loading both whole tiles per CTA (docs/benchmarks.md, "GEMM operands:
# row and column multicast against unicast").
#   1. `ptxgen bench --target sm_90` of each spec (REPS launches, medians);
#   2. where ncu is present and lists them: one launch of each under ncu for the L2-to-SM
#      traffic (lts__t_sectors_srcunit_tex_op_read x 32 bytes, l1tex__m_xbar2l1tex_read_bytes)
#      and the DRAM reads (dram__bytes_read);
#   3. a table last: median ms, bytes delivered to shared memory per second (CTAs x steps x
#      64 KiB / median), the traffic, and each kernel's ratio to the unicast one.
# Every command runs under `timeout`; LIMIT (default 300 s) bounds the whole script. Logs under
# $OUT/gemm_operands (default /tmp/ptxgen-gemm-operands). Exit status 1 when a step failed.
#
#   OUT=$OUT timeout 320 bash tools/gemm_operands_device.sh
set -uo pipefail
log=${OUT:-/tmp/ptxgen-gemm-operands}/gemm_operands
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$log" fresh
device_clock "${LIMIT:-300}"
bin=${PTXGEN:-build-device/ptxgen}
reps=${REPS:-20}
status=0
mapfile -t specs < <(python3 tools/bench/gen_gemm_operands.py --list | cut -d' ' -f1)
{
  device_machine
  "$bin" --version
  device_commit .
} > "$log/machine.txt" 2>&1

for s in "${specs[@]}"; do
  timeout "$(device_capped 150)" "$bin" bench --target sm_90 --reps "$reps" --json "$log/$s.json" \
    "tools/bench/$s.toml" > "$log/$s.bench.txt" 2>&1 || {
    echo "ptxgen bench of $s failed (see $log/$s.bench.txt)"
    status=1
  }
done

ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
metrics=()
if [ -n "$ncu" ]; then
  timeout "$(device_capped 60)" "$ncu" --query-metrics > "$log/ncu_query.txt" 2>&1
  for m in lts__t_sectors_srcunit_tex_op_read.sum l1tex__m_xbar2l1tex_read_bytes.sum \
    dram__bytes_read.sum; do
    grep -q "^${m%.sum}\b" "$log/ncu_query.txt" && metrics+=("$m")
  done
fi
if [ ${#metrics[@]} -gt 0 ]; then
  for s in "${specs[@]}"; do
    timeout "$(device_capped 120)" "$ncu" --csv --print-units base \
      --metrics "$(IFS=,; echo "${metrics[*]}")" --kernel-name regex:gemm_operands \
      --launch-count 1 "$bin" bench --target sm_90 --reps 1 --warmup 0 "tools/bench/$s.toml" \
      > "$log/$s.ncu.csv" 2>&1 || echo "ncu of $s failed (see $log/$s.ncu.csv)"
  done
else
  echo "no ncu, or it lists none of the metrics: no traffic figures" | tee "$log/ncu.txt"
fi

cat "$log/machine.txt"
python3 - "$log" <<'PY'
import csv, json, os, re, sys
log = sys.argv[1]

def traffic(name):
    path = os.path.join(log, name + ".ncu.csv")
    out = {}
    if not os.path.exists(path):
        return out
    for row in csv.DictReader(l for l in open(path) if l.startswith('"')):
        m, v = row.get("Metric Name", ""), row.get("Metric Value", "").replace(",", "")
        try:
            value = float(v)
        except ValueError:
            continue
        if m.startswith("lts__t_sectors"):
            out["l2"] = value * 32
        elif m.startswith("l1tex__m_xbar2l1tex"):
            out["xbar"] = value
        elif m.startswith("dram__bytes_read"):
            out["dram"] = value
    return out

rows = []
for line in os.popen("python3 tools/bench/gen_gemm_operands.py --list"):
    name, mode, stages, steps = line.split()
    text = open(f"tools/bench/{name}.toml").read()
    gx, gy = map(int, re.search(r"^grid = \[(\d+), (\d+)\]", text, re.M).groups())
    ms = None
    path = os.path.join(log, name + ".json")
    if os.path.exists(path):
        r = json.load(open(path))["specs"][0]
        ms = r["kernel"]["median_ms"] if r["ok"] else None
    delivered = gx * gy * int(steps) * 65536
    rows.append((name, mode, ms, delivered / (ms * 1e-3) / 1e9 if ms else None, traffic(name)))
uni = next((r[3] for r in rows if r[1] == "unicast" and r[3]), None)
fmt = lambda v, f: (f % v) if v is not None else "-"
print(f"\n{'kernel':<30} {'median_ms':>10} {'delivered GB/s':>15} {'L2 read bytes':>14} "
      f"{'xbar->SM bytes':>15} {'DRAM read bytes':>15} {'x unicast':>9}")
for name, mode, ms, g, t in rows:
    print(f"{name:<30} {fmt(ms, '%.4f'):>10} {fmt(g, '%.1f'):>15} {fmt(t.get('l2'), '%.4g'):>14} "
          f"{fmt(t.get('xbar'), '%.4g'):>15} {fmt(t.get('dram'), '%.4g'):>15} "
          f"{fmt(g / uni if g and uni else None, '%.2f'):>9}")
PY
echo "logs: $log ($(($(date +%s) - device_start)) s)"
exit $status
