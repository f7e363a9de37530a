#!/usr/bin/env bash
# The speed figure of `ptxgen lint` (issue 37; docs/benchmarks.md, "lint of one GEMM CTA"): lint of
# one CTA of the project's own 128 x 128-tile GEMM (tests/wild/own/gemm_128x128.sm80.ptx: 256
# threads, a 3-stage cp.async ring of 32-wide k tiles, ldmatrix, 32 mma.sync m16n8k16 per warp
# and k tile) with K = 4096 (128 k tiles). Prints wall and CPU seconds, the instructions the
# simulator ran and their rate, and lint's verdict (the kernel is correct: clean).
#
#   tools/lint/bench_gemm.sh build/ptxgen [K]
set -eu
ptxgen=${1:?usage: tools/lint/bench_gemm.sh PTXGEN [K]}
k=${2:-4096}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ptx="$root/tests/wild/own/gemm_128x128.sm80.ptx"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
TIMEFORMAT='%R %U %S'
# A and B: 128 rows of K halves each; C: 128 x 128 floats (M = N = 128: one CTA).
t=$({ time timeout 600 "$ptxgen" lint "$ptx" --grid 1 --arg "0=f16[128,$k]" \
  --arg "1=f16[128,$k]" --arg "2=f32[128,128]" --arg 3=128 --arg 4=128 --arg "5=$k" \
  --diagnostics-format json > "$out" || true; } 2>&1)
read -r wall user sys <<< "$t"
python3 - "$out" "$wall" "$user" "$sys" "$k" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
wall, user, sys_ = (float(x) for x in sys.argv[2:5])
k = report["kernels"][0]
n = k["coverage"]["instructions"]
print(f"lint of gemm_128x128, one CTA, K = {sys.argv[5]}: {k['status']}, "
      f"{len(k['findings'])} finding(s)")
cpu = user + sys_
print(f"  wall {wall:.2f} s, cpu {cpu:.2f} s, {n} instructions: "
      f"{n / cpu / 1e6:.2f} M instructions per CPU second ({n / wall / 1e6:.2f} M per wall second)")
PY
