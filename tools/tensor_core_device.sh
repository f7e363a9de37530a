#!/usr/bin/env bash
# The tensor-core kernels (tests/data/sim_tensor_core/mma_kernels.ptx: mma.sync f16/bf16/tf32/
# s8/u8/e4m3/f64, ldmatrix/movmatrix/stmatrix, wgmma f16/bf16/s8 with and without swizzle, A
# from registers) on the GPU with random inputs, from the repository root. Needs no ptxgen
# build: tools/tensor_core_device/run.cu loads the checked-in PTX through the driver API, checks
# the GPU against its double-precision reference under the declared mode (cases.hpp: s32 bit
# for bit, floats within the stated bound), and writes every input and GPU result to
# $OUT/tensor_core/h200.bin. The simulator is compared with those records by
# unit.sim_tensor_core once the file is checked in as tests/data/sim_tensor_core/h200.bin
# (or named by PTXGEN_TENSOR_CORE_RESULTS); with a build carried in build/ (ptxgen_unit), this
# script runs that comparison too.
#
#   tools/tensor_core_device.sh [ROUNDS]      (default 8 random rounds per kernel)
#
# Everything under `timeout` (LIMIT, default 170 s); the table last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-/tmp/ptxgen-device}/tensor_core
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out" fresh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
device_clock "${LIMIT:-170}"
{
  device_machine
  nvcc --version | tail -1
  device_commit "$root"
} > "$out/machine.txt" 2>&1
device_build_runner tensor_core_device "$here/tensor_core_device/run.cu" "$tmp/run" "$out/build.log" || exit 1
timeout "$(device_left)" "$tmp/run" "$root/tests/data/sim_tensor_core/mma_kernels.ptx" \
  "$out/h200.bin" "${1:-8}" > "$out/gpu.log" 2>&1
gpu_rc=$?
sim_rc=-
unit=$root/build/tests/ptxgen_unit
if [ -x "$unit" ] && [ -s "$out/h200.bin" ]; then
  PTXGEN_TENSOR_CORE_RESULTS="$out/h200.bin" timeout "$(device_left)" "$unit" \
    --source-file='*/sim_tensor_core.cpp' --test-case='*H200*' > "$out/sim.log" 2>&1
  sim_rc=$?
fi
cat "$out/machine.txt"
cat "$out/gpu.log"
echo "gpu exit status: $gpu_rc (124: timed out); records: $out/h200.bin"
echo "simulator against the GPU records (unit.sim_tensor_core): $sim_rc (-: no build/ here)"
[ "$gpu_rc" = 0 ] && { [ "$sim_rc" = 0 ] || [ "$sim_rc" = - ]; }
