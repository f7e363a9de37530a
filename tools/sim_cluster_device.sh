#!/usr/bin/env bash
# The cluster kernels (tests/data/sim_cluster/cluster.ptx: special registers, DSMEM exchange,
# remote mbarrier arrive, bulk copy into a peer, multicast bulk load; and nvcc's
# tests/data/sim_cluster_nvcc/cluster_kernels.ptx: cooperative_groups' map_shared_rank and
# cluster.sync(), a distributed histogram with DSMEM atomics) on the GPU with random inputs, from
# the repository root. tools/sim_cluster_device/run.cu loads the checked-in PTX through the
# driver API and writes every input and GPU output to $OUT/sim_cluster/h200.bin; with a build
# carried in build/ (ptxgen_unit), the simulator runs the same launches on those inputs and
# compares the bytes (unit.sim_cluster_nvcc, PTXGEN_SIM_CLUSTER_RESULTS).
#
#   tools/sim_cluster_device.sh [ROUNDS]      (default 4 random rounds per kernel)
#
# Everything under `timeout` (LIMIT, default 170 s); the table last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-/tmp/ptxgen-device}/sim_cluster
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
device_build_runner sim_cluster_device "$here/sim_cluster_device/run.cu" "$tmp/run" "$out/build.log" || exit 1
timeout "$(device_left)" "$tmp/run" "$root/tests/data" "$out/h200.bin" "${1:-4}" > "$out/gpu.log" 2>&1
gpu_rc=$?
sim_rc=-
unit=$root/build/tests/ptxgen_unit
if [ -x "$unit" ] && [ -s "$out/h200.bin" ]; then
  PTXGEN_SIM_CLUSTER_RESULTS="$out/h200.bin" timeout "$(device_left)" "$unit" \
    --source-file='*/sim_cluster_nvcc.cpp' --test-case='*H200*' > "$out/sim.log" 2>&1
  sim_rc=$?
fi
cat "$out/machine.txt"
cat "$out/gpu.log"
tail -3 "$out/sim.log" 2>/dev/null
echo "gpu exit status: $gpu_rc (124: timed out); records: $out/h200.bin"
echo "simulator against the GPU records, byte for byte (unit.sim_cluster_nvcc): $sim_rc (-: no build/ here)"
[ "$gpu_rc" = 0 ] && { [ "$sim_rc" = 0 ] || [ "$sim_rc" = - ]; }
