#!/usr/bin/env bash
# Registers of ptxgen's 3-stage ring over a runtime K
# (tests/data/lower_loops/stage3_k7.toml) against the hand-written CUDA C++
# kernel of the same shape (tools/baseline/loop_stage3.cu, nvcc -O3), per
# target, as `ptxas -v` reports them. With cuobjdump on PATH (the GPU
# machine), also the SASS instruction count of each kernel's loop body.
# Exits 1 when ptxgen uses more registers.
# Usage: tools/baseline/compare_loop_registers.sh [PTXGEN]   (default build/ptxgen)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PTXGEN=${1:-"$ROOT/build/ptxgen"}
CUDA=${CUDA_HOME:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PTXGEN" emit "$ROOT/tests/data/lower_loops/stage3_k7.toml" -o "$tmp/ptxgen.ptx"
regs() { sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | head -1; }
# For each loop (a BRA to a lower address), the instructions from its target
# to the branch, in cuobjdump -sass output: "9" or "36,9" (unrolled + remainder).
loop_body() {
  python3 -c '
import re, sys
ins = [(int(m.group(1), 16), l) for l in sys.stdin
       for m in [re.search(r"/\*([0-9a-f]{4})\*/", l)] if m]
out = []
for i, (addr, l) in enumerate(ins):
    t = re.search(r"BRA[^;]*?(0x[0-9a-f]+)", l)
    if t and int(t.group(1), 16) < addr:
        out.append(str(sum(1 for a, _ in ins[: i + 1] if a >= int(t.group(1), 16))))
print(",".join(out) or "none")'
}
printf '%-8s %-20s %-20s %-16s %-16s\n' target "ptxgen registers" "nvcc -O3 registers" \
  "ptxgen loop SASS" "nvcc loop SASS"
worse=0
for arch in sm_80 sm_90; do
  a=$("$CUDA/bin/ptxas" -arch=$arch -v "$tmp/ptxgen.ptx" -o "$tmp/a.cubin" 2>&1 | regs)
  b=$("$CUDA/bin/nvcc" -O3 -arch=$arch -Xptxas -v -cubin "$ROOT/tools/baseline/loop_stage3.cu" \
        -o "$tmp/b.cubin" 2>&1 | regs)
  la=- lb=-
  if command -v cuobjdump >/dev/null; then
    la=$(cuobjdump -sass "$tmp/a.cubin" | loop_body)
    lb=$(cuobjdump -sass "$tmp/b.cubin" | loop_body)
  fi
  printf '%-8s %-20s %-20s %-16s %-16s\n' "$arch" "$a" "$b" "$la" "$lb"
  [ "$a" -le "$b" ] || worse=1
done
exit $worse
