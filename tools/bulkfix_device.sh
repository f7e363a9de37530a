#!/usr/bin/env bash
# The specs of the swizzle-share lowering fix and the per-CTA proofs on the GPU machine, from
# the repository root, with build-device/ptxgen (tools/build_device.sh): each at every value
# of its declared ranges (run --param-sweep) on the GPU and on the simulator, each compared
# with the reference; then the two backends' bytes. Before the fix the swizzle specs faulted
# on the simulator (a write-after-write race; a store past shared memory).
# Logs go to $OUT (default /tmp/ptxgen-bulkfix); a table last.
# usage: tools/bulkfix_device.sh    environment: PTXGEN (default build-device/ptxgen)
set -u
out=${OUT:-/tmp/ptxgen-bulkfix}
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out"
bin=${PTXGEN:-build-device/ptxgen}
ptxas=$(command -v ptxas)
specs=(specs/tma/swizzle_share_mid_chunk_copy.toml specs/tma/swizzle_share_mid_chunk_fill.toml
  specs/tma/pipeline_grid_stride_tiles.toml specs/tma/pipeline_grid_stride_loop.toml)
status=0
for backend in cuda sim; do
  rm -rf "$out/dump-$backend"
  timeout 240 "$bin" run --backend "$backend" --ptxas "$ptxas" --param-sweep \
    --report "$out/$backend.json" --dump "$out/dump-$backend" "${specs[@]}" \
    > "$out/$backend.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || status=1
  echo "$backend: exit status $rc" >> "$out/table.txt"
done
if diff -r "$out/dump-cuda" "$out/dump-sim" > "$out/cuda-vs-sim.diff"; then
  echo "cuda vs sim: identical bytes in $(ls "$out/dump-cuda" | wc -l) tensor files" >> "$out/table.txt"
else
  echo "cuda vs sim: DIFFERENT (see cuda-vs-sim.diff)" >> "$out/table.txt"
  status=1
fi
cat "$out/table.txt"
grep -h '^summary' "$out/cuda.log" "$out/sim.log"
exit $status
