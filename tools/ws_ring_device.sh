#!/usr/bin/env bash
# The warp-specialized streaming ring (tools/bench/stream_copy_ws_ring.toml: a producer warp
# issuing 64 KiB bulk loads into a 3-stage ring, 4 consumer warps storing with 16-byte
# ld.shared/st.global) against the hand-written nvcc kernel of the same shape
# (tools/baseline/ws_copy.cu), on the GPU machine, from the repository root, with
# build-device/ carried (tools/build_device.sh, then
# `cmake --build build-device --target ptxgen_stream_bench`):
#   1. SASS: the spec emitted by build-device/ptxgen emit (no --target: sm_90 from its ops),
#      the baseline by nvcc -ptx -arch=sm_90 -O3 (and its setmaxnreg form, -DWS_THREADS=384
#      -DWS_SETMAXNREG=1 for sm_90a, for the registers only), each assembled by ptxas -O3 -v
#      (registers) and listed by cuobjdump -sass; the loop bodies counted as
#      tools/bench/stream_bench.sh --count-loops counts them; the longest is the ring's;
#   2. times: build-device/ptxgen_stream_bench once, 2 GiB, cuMemcpyDtoD, the hand-written
#      bulk ring (nvcc-bulk, the single-thread ring), the nvcc warp-specialized kernel and
#      ptxgen's, each verified, on 132 CTAs of 160 threads with 197632 bytes of dynamic
#      shared memory (the 192 KiB ring, ptxgen's barriers at 196608.. and the dynamic
#      layout's 1024-byte alignment, rounded up);
#   3. prints a table: kernel, registers, SASS loop body, median ms, % of cuMemcpyDtoD.
# Logs under $OUT (default /tmp/ws-ring). Exit status 1 when a step failed.
#
#   OUT=$OUT timeout 580 bash tools/ws_ring_device.sh
set -uo pipefail
out=${OUT:-/tmp/ws-ring}
build=${BUILD:-build-device}
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
mkdir -p "$out"
status=0
smem=197632

regs() { grep -o 'Used [0-9]* registers' "$1" | grep -o '[0-9]*' | head -1; }
longest_loop() {
  bash tools/bench/stream_bench.sh --count-loops "$1" |
    sed -n 's/.*: \([0-9]*\) instructions/\1/p' | sort -n | tail -1
}

declare -A reg loop
sass() { # LABEL PTX ARCH
  local label=$1 ptx=$2 arch=$3
  if timeout 120 ptxas -arch="$arch" -O3 -v "$ptx" -o "$out/$label.cubin" > "$out/$label.ptxas.txt" 2>&1 &&
    cuobjdump -sass "$out/$label.cubin" > "$out/$label.sass" 2>&1; then
    reg[$label]=$(regs "$out/$label.ptxas.txt")
    loop[$label]=$(longest_loop "$out/$label.sass")
  else
    echo "$label: ptxas or cuobjdump failed (see $out/$label.ptxas.txt)"
    status=1
  fi
}

if timeout 300 "$build/ptxgen" emit tools/bench/stream_copy_ws_ring.toml -o "$out/ptxgen-ws.ptx" \
  > "$out/ptxgen-ws.emit.log" 2>&1; then
  sass ptxgen-ws "$out/ptxgen-ws.ptx" sm_90
else
  echo "ptxgen emit of stream_copy_ws_ring.toml failed (see $out/ptxgen-ws.emit.log)"
  status=1
fi
if timeout 120 nvcc -ptx -arch=sm_90 -O3 -o "$out/nvcc-ws.ptx" tools/baseline/ws_copy.cu \
  > "$out/nvcc-ws.log" 2>&1; then
  sass nvcc-ws "$out/nvcc-ws.ptx" sm_90
else
  echo "nvcc of tools/baseline/ws_copy.cu failed (see $out/nvcc-ws.log)"
  status=1
fi
if timeout 120 nvcc -ptx -arch=sm_90a -O3 -DWS_THREADS=384 -DWS_SETMAXNREG=1 \
  -o "$out/nvcc-ws-384.ptx" tools/baseline/ws_copy.cu > "$out/nvcc-ws-384.log" 2>&1; then
  sass nvcc-ws-384 "$out/nvcc-ws-384.ptx" sm_90a
fi

run=("$build/ptxgen_stream_bench" --only bulk)
[ -f "$out/ptxgen-ws.ptx" ] && run+=(--ptx "$out/ptxgen-ws.ptx" --entry stream_copy_ws_ring
  --grid 132 --block 160 --smem $smem --args in,out --label ptxgen-ws)
[ -f "$out/nvcc-ws.ptx" ] && run+=(--ptx "$out/nvcc-ws.ptx" --entry ws_copy --grid 132
  --block 160 --smem $smem --args in,out,u32:tiles/65536 --label nvcc-ws)
timeout 250 "${run[@]}" > "$out/stream_bench.log" 2>&1 || {
  echo "ptxgen_stream_bench failed (see $out/stream_bench.log)"
  status=1
}

# The timed rows: method, median ms, % of cuMemcpyDtoD.
row() { awk -v m="$1" '$1 == m { print $2, $(NF - 1) }' "$out/stream_bench.log" 2> /dev/null; }
echo
printf '%-12s %10s %16s %10s %9s\n' kernel registers "SASS loop body" median_ms "% DtoD"
for k in memcpyDtoD nvcc-bulk nvcc-ws ptxgen-ws nvcc-ws-384; do
  read -r ms pct <<< "$(row "$k")"
  printf '%-12s %10s %16s %10s %9s\n' "$k" "${reg[$k]:--}" "${loop[$k]:--}" "${ms:--}" "${pct:--}"
done
exit $status
