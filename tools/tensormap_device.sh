#!/usr/bin/env bash
# The tensor maps edited on the device (specs/tma/tensormap_*.toml: tensormap.replace of
# global_address and global_dim, a slot per group, a map edited in shared memory and published
# by tensormap.cp_fenceproxy) on the GPU machine and on the simulator, from the repository root,
# with build-device/ptxgen (tools/build_device.sh); each compared with the reference, then the
# two backends' bytes. The map slots (tensor M) hold the driver's opaque CUtensorMap on the GPU
# and the simulator's handle on the CPU: they are left out of the byte comparison.
# Logs go to $OUT (default /tmp/ptxgen-tensormap); a table last.
# usage: tools/tensormap_device.sh    environment: PTXGEN (default build-device/ptxgen)
set -u
out=${OUT:-/tmp/ptxgen-tensormap}
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out"
bin=${PTXGEN:-build-device/ptxgen}
ptxas=$(command -v ptxas)
specs=(specs/tma/tensormap_retarget_global.toml specs/tma/tensormap_grouped.toml
  specs/tma/tensormap_shared_publish.toml specs/tma/tensormap_dims_tail.toml
  specs/tma/tensormap_global_stride.toml)
status=0
for backend in cuda sim; do
  rm -rf "$out/dump-$backend"
  timeout 240 "$bin" run --backend "$backend" --ptxas "$ptxas" --no-cache \
    --report "$out/$backend.json" --dump "$out/dump-$backend" "${specs[@]}" \
    > "$out/$backend.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || status=1
  echo "$backend: exit status $rc" >> "$out/table.txt"
done
if diff -r -x '*.M.bin' "$out/dump-cuda" "$out/dump-sim" > "$out/cuda-vs-sim.diff"; then
  echo "cuda vs sim: identical bytes in $(ls "$out/dump-cuda" | grep -vc '\.M\.bin$') tensor files" >> "$out/table.txt"
else
  echo "cuda vs sim: DIFFERENT (see cuda-vs-sim.diff)" >> "$out/table.txt"
  status=1
fi
cat "$out/table.txt"
grep -h '^summary' "$out/cuda.log" "$out/sim.log"
exit $status
