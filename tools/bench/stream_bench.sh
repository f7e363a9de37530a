#!/usr/bin/env bash
# The streaming-copy benchmark, on the GPU machine, from the repository root,
# with build-device/ carried (tools/build_device.sh, then
# `cmake --build build-device --target ptxgen_stream_bench`):
#   1. emits ptxgen's streaming copies with build-device/ptxgen emit --target
#      sm_90: the persistent cp.async ring (SPEC), the one-stage cp.async copy,
#      the 1-D bulk ring and the 2-D TMA ring, and the bulk and TMA copies of
#      one tile per CTA (tools/bench/stream_copy_*.toml);
#      a spec that does not emit is reported and left out (status 1), the
#      others are still timed;
#   2. runs build-device/ptxgen_stream_bench once: cuMemcpyDtoD, the
#      hand-written kernels (tools/baseline/: pipelined_copy.cu on the
#      persistent spec's grid, bulk_copy.cu and tma_copy.cu in their default
#      persistent shapes, the same as the bulk and TMA specs', on as many CTAs
#      as are resident, and, where nvcc is found, both again in the shape of one
#      tile per CTA: 16 KiB bulk tiles and 32 x 256 TMA boxes on 131072 CTAs)
#      and every emitted ptxgen kernel, all on 2 GiB, each verified;
#   3. assembles every PTX file with ptxas -arch=sm_90 -O3 -v (registers) and
#      counts the SASS instructions of each loop body (cuobjdump -sass: from a
#      back-edge branch's target to the branch, both included).
# Logs go to $OUT (default /tmp/ptxgen-stream-bench). With --count-loops
# FILE..., only step 3's count on cuobjdump listings. Exit status: the
# benchmark's (1 when a kernel's output is wrong), or 1 when a step failed.
#
# Environment (all optional):
#   BUILD  the folder holding ptxgen and ptxgen_stream_bench (default build-device)
#   SPEC   the persistent cp.async spec (default tools/bench/stream_copy_persistent.toml)
#   PTX    a PTX file to time instead of emitting SPEC (then ENTRY too)
#   ENTRY  its kernel's name (default: the spec's [kernel] name)
#   GRID, BLOCK  its launch (default: the spec's grid and block)
#   SMEM   its dynamic shared bytes (default 0: static shared, as for shared
#          tensors up to 48 KiB in all)
#   ARGS   its parameters in ABI order (default in,out,u32:tiles/8192: the
#          spec's A, B and n_tiles, emitter/lower/abi.hpp)
#   SPEC_BULK, SMEM_BULK, ARGS_BULK  the bulk spec (default
#          tools/bench/stream_copy_bulk.toml; 132096 bytes: its 128 KiB ring,
#          its barriers and the dynamic layout's alignment, rounded up; in,out)
#   SPEC_TMA, SMEM_TMA, ARGS_TMA  the TMA spec (default
#          tools/bench/stream_copy_tma.toml; 132096; in,out then the maps of A
#          and B: tmap2d:in:131072,8192,64,256,0,tmap2d:out:131072,8192,64,256,0;
#          set ARGS_TMA to the lowering's parameter order, abi::kernel_params)
#   ARGS_TMA_1TILE  the parameters of tools/bench/stream_copy_tma_1tile.toml
#          (one box per CTA; in,out then maps of 32 x 256 boxes); the bulk one,
#          stream_copy_bulk_1tile.toml, takes ARGS_BULK; both static shared
#   SPEC_ONE_STAGE  the one-stage copy (default tools/bench/stream_copy_one_stage.toml)
#   BENCH_FLAGS  more options for ptxgen_stream_bench (--reps 100, --bytes N)
set -uo pipefail
out=${OUT:-/tmp/ptxgen-stream-bench}
export PATH=/usr/local/cuda/bin:$PATH
build=${BUILD:-build-device}
spec=${SPEC:-tools/bench/stream_copy_persistent.toml}
bench=$build/ptxgen_stream_bench
status=0

# The first `KEY = N` in the [kernel] table of spec FILE (grid, block as one number).
kernel_key() {
  awk -v key="$2" '/^\[/ { in_kernel = ($0 == "[kernel]") }
    in_kernel && $1 == key && $2 == "=" { gsub(/"/, "", $3); print $3; exit }' "$1"
}

# Instructions of each loop body in a cuobjdump -sass listing: for every
# backward branch (BRA to a label or address at or before it, not to itself),
# the instructions from its target to the branch, both included.
count_loops() {
  awk '
    function hex(s,   i, c, v) { v = 0; s = tolower(s)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1))
        if (c == 0) break; v = v * 16 + c - 1 }
      return v }
    /^[ \t]*\.[A-Za-z_0-9]+:/ { lab = $1; sub(/:.*/, "", lab); pending[lab] = 1; next }
    match($0, /^[ \t]*\/\*[0-9a-fA-F]+\*\/[ \t]+[^ \t\/]/) {
      line = $0; sub(/^[ \t]*\/\*/, "", line); addr = hex(substr(line, 1, index(line, "*") - 1))
      for (l in pending) { at[l] = addr; delete pending[l] }
      n++; addrs[n] = addr; text[n] = $0
    }
    END {
      loops = 0
      for (i = 1; i <= n; i++) {
        if (text[i] !~ /[ \t]BRA[ .\t]/) continue
        t = -1
        if (match(text[i], /`\([^)]*\)/)) { l = substr(text[i], RSTART + 2, RLENGTH - 3); if (l in at) t = at[l] }
        else if (match(text[i], /BRA[ \t]+0x[0-9a-fA-F]+/)) { s = substr(text[i], RSTART, RLENGTH); sub(/.*0x/, "", s); t = hex(s) }
        if (t < 0 || t >= addrs[i]) continue
        count = 0
        for (j = 1; j <= i; j++) if (addrs[j] >= t) count++
        printf "  loop 0x%04x..0x%04x: %d instructions\n", t, addrs[i], count
        loops++
      }
      if (loops == 0) print "  no loop (no backward branch)"
    }' "$1"
}

# `stream_bench.sh --count-loops FILE...`: only the loop count of listings
# (the test bench.sass_loop_count uses it).
if [ "${1:-}" = --count-loops ]; then
  shift
  for listing in "$@"; do
    echo "$listing:"
    count_loops "$listing" || exit 1
  done
  exit 0
fi

mkdir -p "$out"
if [ ! -x "$bench" ]; then
  echo "no $bench: run tools/build_device.sh and" \
    "cmake --build build-device --target ptxgen_stream_bench" | tee "$out/stream_bench.log"
  exit 1
fi

run=("$bench")
sass_names=()  # the PTX files whose loops are counted: name=file
# add_kernel LABEL SPEC SMEM ARGS [PTX ENTRY GRID BLOCK]: emits SPEC (unless
# PTX is given) and times it as LABEL.
add_kernel() {
  local label=$1 file=$2 smem=$3 args=$4 ptx=${5:-} entry=${6:-} grid=${7:-} block=${8:-}
  if [ -z "$ptx" ]; then
    ptx=$out/$label.ptx
    { time "$build/ptxgen" emit --target sm_90 -o "$ptx" "$file"; } > "$out/$label.emit.log" 2>&1 || {
      echo "ptxgen emit $file failed (see $label.emit.log); $label is not timed"
      head -5 "$out/$label.emit.log"
      status=1
      return
    }
  fi
  run+=(--ptx "$ptx" --label "$label" --entry "${entry:-$(kernel_key "$file" name)}"
    --grid "${grid:-$(kernel_key "$file" grid)}" --block "${block:-$(kernel_key "$file" block)}"
    --smem "$smem" --args "$args")
  sass_names+=("$label=$ptx")
}

add_kernel ptxgen "$spec" "${SMEM:-0}" "${ARGS:-in,out,u32:tiles/8192}" "${PTX:-}" "${ENTRY:-}" \
  "${GRID:-}" "${BLOCK:-}"
add_kernel ptxgen-1stage "${SPEC_ONE_STAGE:-tools/bench/stream_copy_one_stage.toml}" 0 in,out
add_kernel ptxgen-bulk "${SPEC_BULK:-tools/bench/stream_copy_bulk.toml}" "${SMEM_BULK:-132096}" \
  "${ARGS_BULK:-in,out}"
add_kernel ptxgen-tma "${SPEC_TMA:-tools/bench/stream_copy_tma.toml}" "${SMEM_TMA:-132096}" \
  "${ARGS_TMA:-in,out,tmap2d:in:131072,8192,64,256,0,tmap2d:out:131072,8192,64,256,0}"
add_kernel ptxgen-bulk-1tile tools/bench/stream_copy_bulk_1tile.toml 0 "${ARGS_BULK:-in,out}"
add_kernel ptxgen-tma-1tile tools/bench/stream_copy_tma_1tile.toml 0 \
  "${ARGS_TMA_1TILE:-in,out,tmap2d:in:131072,8192,32,256,0,tmap2d:out:131072,8192,32,256,0}"

# The hand-written kernels: the pipelined one on the persistent spec's grid,
# the bulk and TMA ones in their default (persistent) shapes on the resident
# CTAs and, built here, in the shape of one tile per CTA.
run+=(--baseline-grid "${GRID:-$(kernel_key "$spec" grid)}" --bulk-ptx default@occ --tma-ptx default@occ)
if nvcc -ptx -arch=sm_90 -O3 -DBC_STAGES=2 -DBC_TILE=16384 -DBC_AHEAD=1 \
  -o "$out/bulk_1tile.ptx" tools/baseline/bulk_copy.cu > "$out/nvcc_1tile.log" 2>&1 &&
  nvcc -ptx -arch=sm_90 -O3 -DTC_STAGES=2 -DTC_BOX_ROWS=32 -DTC_BOX_COLS=256 -DTC_AHEAD=1 \
    -o "$out/tma_1tile.ptx" tools/baseline/tma_copy.cu >> "$out/nvcc_1tile.log" 2>&1; then
  run+=(--bulk-ptx "$out/bulk_1tile.ptx@131072" --tma-ptx "$out/tma_1tile.ptx@131072")
else
  echo "nvcc could not build the one-tile-per-CTA kernels (see nvcc_1tile.log): not timed"
fi
# shellcheck disable=SC2206 # BENCH_FLAGS is a list of words
run+=(${BENCH_FLAGS:-})
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu \
  --format=csv > "$out/gpu.txt" 2>&1
"${run[@]}" 2>&1 | tee "$out/stream_bench.log"
bench_status=${PIPESTATUS[0]}
[ "$bench_status" -ne 0 ] && status=$bench_status

"$bench" --dump-baseline-ptx "$out/nvcc.ptx" --dump-bulk-ptx "$out/nvcc-bulk.ptx" \
  --dump-tma-ptx "$out/nvcc-tma.ptx"
for entry in nvcc="$out/nvcc.ptx" nvcc-bulk="$out/nvcc-bulk.ptx" nvcc-tma="$out/nvcc-tma.ptx" \
  "${sass_names[@]}"; do
  which=${entry%%=*}
  ptx=${entry#*=}
  cubin=$out/$which.cubin
  if ptxas -arch=sm_90 -O3 -v "$ptx" -o "$cubin" > "$out/$which.ptxas.txt" 2>&1 &&
    cuobjdump -sass "$cubin" > "$out/$which.sass" 2>&1; then
    echo "$which: $(grep -o 'Used [0-9]* registers' "$out/$which.ptxas.txt"), SASS loop bodies:"
    count_loops "$out/$which.sass"
  else
    echo "$which: ptxas or cuobjdump failed (see $which.ptxas.txt, $which.sass)"
    status=1
  fi
done > "$out/sass_loops.txt" 2>&1
cat "$out/sass_loops.txt"
rm -f "$out"/*.cubin
exit "$status"
