#!/usr/bin/env bash
# Code quality check: registers used by ptxgen's seed kernel against the
# hand-written CUDA C++ baseline (tools/baseline/copy_async.cu, nvcc -O3),
# per target, as reported by `ptxas -v`. Exits 1 when ptxgen uses more.
# Usage: tools/compare_registers.sh [PTXGEN]   (default build/ptxgen)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PTXGEN=${1:-"$ROOT/build/ptxgen"}
CUDA=${CUDA_HOME:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PTXGEN" emit "$ROOT/specs/seed/copy_async.toml" -o "$tmp/ptxgen.ptx"
regs() { sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | head -1; }
printf '%-8s %-22s %-22s\n' target "ptxgen (registers)" "nvcc -O3 hand-written"
worse=0
for arch in sm_80 sm_90; do
  a=$("$CUDA/bin/ptxas" -arch=$arch -v "$tmp/ptxgen.ptx" -o "$tmp/a.cubin" 2>&1 | regs)
  b=$("$CUDA/bin/nvcc" -O3 -arch=$arch -Xptxas -v -c "$ROOT/tools/baseline/copy_async.cu" \
        -o "$tmp/b.o" 2>&1 | regs)
  printf '%-8s %-22s %-22s\n' "$arch" "$a" "$b"
  [ "$a" -le "$b" ] || worse=1
done
exit $worse
