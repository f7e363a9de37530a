#!/usr/bin/env bash
# The persistent bulk and TMA rings (tools/bench/stream_copy_bulk.toml, stream_copy_tma.toml)
# against the hand-written nvcc kernels of the same shape (tools/baseline/bulk_copy.cu,
# tma_copy.cu), on the GPU machine, from the repository root, with build-device/ carried
# (tools/build_device.sh, then `cmake --build build-device --target ptxgen_stream_bench`):
#   1. SASS: each ring emitted by build-device/ptxgen emit (no --target: the ops raise it
#      to sm_90), each baseline by nvcc -ptx -arch=sm_90 -O3, all four assembled by
#      ptxas -arch=sm_90 -O3 -v (registers) and listed by cuobjdump -sass; the loop bodies
#      counted as tools/bench/stream_bench.sh --count-loops counts them (from a back
#      branch's target to the branch); the ring's loop is the longest one;
#   2. times: `ptxgen bench` of both specs without --target (it must raise the target as
#      emit does: a refusal is a failure here) and tools/bench/stream_bench.sh, which times
#      the same rings beside the hand-written kernels and cuMemcpyDtoD in one run;
#   3. prints a table: kernel, registers, SASS loop body, median ms, % of cuMemcpyDtoD.
# Logs under $OUT (default /tmp/ring-sass). Exit status 1 when a step failed.
#
#   OUT=$OUT timeout 500 bash tools/ring_sass_device.sh
set -uo pipefail
out=${OUT:-/tmp/ring-sass}
build=${BUILD:-build-device}
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
mkdir -p "$out"
status=0

regs() { grep -o 'Used [0-9]* registers' "$1" | grep -o '[0-9]*' | head -1; }
# The longest loop body of a cuobjdump listing (the ring's loop; the others are spins).
longest_loop() {
  bash tools/bench/stream_bench.sh --count-loops "$1" |
    sed -n 's/.*: \([0-9]*\) instructions/\1/p' | sort -n | tail -1
}

declare -A reg loop
sass() { # LABEL PTX
  local label=$1 ptx=$2
  if timeout 120 ptxas -arch=sm_90 -O3 -v "$ptx" -o "$out/$label.cubin" > "$out/$label.ptxas.txt" 2>&1 &&
    cuobjdump -sass "$out/$label.cubin" > "$out/$label.sass" 2>&1; then
    reg[$label]=$(regs "$out/$label.ptxas.txt")
    loop[$label]=$(longest_loop "$out/$label.sass")
  else
    echo "$label: ptxas or cuobjdump failed (see $out/$label.ptxas.txt)"
    status=1
  fi
}

for s in bulk tma; do
  if timeout 60 "$build/ptxgen" emit "tools/bench/stream_copy_$s.toml" -o "$out/ptxgen-$s.ptx" \
    > "$out/ptxgen-$s.emit.log" 2>&1; then
    sass "ptxgen-$s" "$out/ptxgen-$s.ptx"
  else
    echo "ptxgen emit of stream_copy_$s.toml failed (see $out/ptxgen-$s.emit.log)"
    status=1
  fi
  base=tools/baseline/${s}_copy.cu # bulk_copy.cu, tma_copy.cu
  if timeout 120 nvcc -ptx -arch=sm_90 -O3 -o "$out/nvcc-$s.ptx" "$base" > "$out/nvcc-$s.log" 2>&1; then
    sass "nvcc-$s" "$out/nvcc-$s.ptx"
  else
    echo "nvcc of $base failed (see $out/nvcc-$s.log)"
    status=1
  fi
done

# ptxgen bench without --target: the bulk ops must raise it to sm_90 as emit does.
timeout 200 "$build/ptxgen" bench tools/bench/stream_copy_bulk.toml \
  tools/bench/stream_copy_tma.toml --json "$out/bench.json" > "$out/bench.log" 2>&1 || {
  echo "ptxgen bench (no --target) failed (see $out/bench.log)"
  status=1
}
OUT=$out/sb timeout 250 bash tools/bench/stream_bench.sh > "$out/stream_bench.out" 2>&1 || status=1

# The timed rows of stream_bench.sh's table: method, median ms, % of cuMemcpyDtoD.
row() { awk -v m="$1" '$1 == m { print $2, $(NF - 1) }' "$out/sb/stream_bench.log" 2> /dev/null; }
echo
tail -4 "$out/bench.log" 2> /dev/null
echo
printf '%-12s %10s %16s %10s %9s\n' kernel registers "SASS loop body" median_ms "% DtoD"
for k in nvcc-bulk ptxgen-bulk nvcc-tma ptxgen-tma; do
  case $k in
  nvcc-bulk) m=nvcc-bulk@occ ;;
  nvcc-tma) m=nvcc-tma@occ ;;
  *) m=$k ;;
  esac
  read -r ms pct <<< "$(row "$m")"
  printf '%-12s %10s %16s %10s %9s\n' "$k" "${reg[$k]:--}" "${loop[$k]:--}" "${ms:--}" "${pct:--}"
done
exit $status
