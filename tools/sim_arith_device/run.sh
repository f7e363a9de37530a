#!/usr/bin/env bash
# On the GPU machine, from the repository root: builds check.cu with nvcc and
# writes the GPU's results of every form of forms.def to the file given
# (default tests/data/sim_arith/h200.bin, the golden the unit test
# unit.sim_arith_device compares the simulator against).
#   bash tools/sim_arith_device/run.sh [RESULTS_FILE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-tests/data/sim_arith/h200.bin}
arch=${SIM_ARITH_ARCH:-sm_90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -std=c++17 -O2 -arch="$arch" -o "$tmp/check" "$here/check.cu"
mkdir -p "$(dirname "$out")"
"$tmp/check" "$tmp/results.bin"
mv "$tmp/results.bin" "$out"
