#!/usr/bin/env bash
# One 16 KiB bulk tile per CTA at 3 CTAs per SM: ptxgen's tools/bench/stream_copy_bulk_1tile_res3.toml
# (its init fenced, no bar.sync) against the hand-written tools/baseline/bulk_copy.cu of the
# same shape (-DBC_STAGES=2 -DBC_TILE=16384 -DBC_AHEAD=1), on the GPU machine, from the
# repository root, with build-device/ carried (tools/build_device.sh, then
# `cmake --build build-device --target ptxgen_stream_bench`):
#   1. both kernels' PTX, timed in one ptxgen_stream_bench process, interleaved three times
#      (hand-written, ptxgen, hand-written, ...), each launched on 131072 CTAs of 32 threads
#      with the dynamic shared memory that makes 3 CTAs per SM (hand-written: 64 KiB in all;
#      ptxgen: 16 KiB static + 48 KiB), each output verified;
#   2. `ptxgen bench` of the spec (its own launch: the residency the spec asks for);
#   3. the rows of both, last.
# Logs under $OUT (default /tmp/one-tile). Exit status 1 when a step failed.
#
#   OUT=$OUT timeout 120 bash tools/one_tile_device.sh
set -uo pipefail
out=${OUT:-/tmp/one-tile}
build=${BUILD:-build-device}
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
mkdir -p "$out"
status=0
spec=tools/bench/stream_copy_bulk_1tile_res3.toml

timeout 60 "$build/ptxgen" emit "$spec" -o "$out/ptxgen-res3.ptx" > "$out/emit.log" 2>&1 || {
  echo "ptxgen emit of $spec failed (see $out/emit.log)"
  status=1
}
timeout 60 nvcc -ptx -arch=sm_90 -O3 -DBC_STAGES=2 -DBC_TILE=16384 -DBC_AHEAD=1 \
  -o "$out/nvcc-bulk1.ptx" tools/baseline/bulk_copy.cu > "$out/nvcc.log" 2>&1 || {
  echo "nvcc of tools/baseline/bulk_copy.cu failed (see $out/nvcc.log)"
  status=1
}

kernels=()
for round in 1 2 3; do
  kernels+=(--ptx "$out/nvcc-bulk1.ptx" --entry bulk_copy --grid 131072 --block 32
    --smem 65536 --args in,out,u32:131072 --label "hand-written#$round")
  kernels+=(--ptx "$out/ptxgen-res3.ptx" --entry stream_copy_bulk_1tile_res3 --grid 131072
    --block 32 --smem 49152 --args in,out --label "ptxgen-res3#$round")
done
timeout 200 "$build/ptxgen_stream_bench" --only nvcc --reps 50 --warmup 10 "${kernels[@]}" \
  > "$out/stream_bench.log" 2>&1 || {
  echo "ptxgen_stream_bench failed (see $out/stream_bench.log)"
  status=1
}
timeout 120 "$build/ptxgen" bench --reps 50 "$spec" tools/bench/stream_copy_tma_1tile_res4.toml \
  > "$out/bench.log" 2>&1 || {
  echo "ptxgen bench failed (see $out/bench.log)"
  status=1
}
echo
cat "$out/stream_bench.log"
echo
cat "$out/bench.log"
exit $status
