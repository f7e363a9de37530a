#!/usr/bin/env bash
# The streaming-copy benchmark of issue 10, on the GPU machine, from the
# repository root, with build-device/ carried (tools/build_device.sh, then
# `cmake --build build-device --target ptxgen_stream_bench`):
#   1. emits the persistent pipelined copy spec with build-device/ptxgen
#      (--target sm_90);
#   2. runs build-device/ptxgen_stream_bench: cuMemcpyDtoD, the nvcc kernel
#      (tools/baseline/pipelined_copy.cu) and ptxgen's kernel on 2 GiB, the
#      nvcc kernel on the spec's grid so that both have the same shape;
#   3. assembles both PTX files with ptxas -arch=sm_90 -O3 -v (registers) and
#      counts the SASS instructions of each loop body (cuobjdump -sass: from a
#      back-edge branch's target to the branch, both included).
# Logs go to $OUT (default /tmp/ptxgen-stream-bench). With --count-loops
# FILE..., only step 3's count on cuobjdump listings. Exit status: the
# benchmark's (1 when a kernel's output is wrong), or 1 when a step failed.
#
# Environment (all optional):
#   SPEC   the spec (default tools/bench/stream_copy_persistent.toml; the lead
#          moves it to specs/pipeline/)
#   PTX    a PTX file to time instead of emitting SPEC (then ENTRY too)
#   ENTRY  the kernel's name (default: the spec's [kernel] name)
#   GRID, BLOCK  the launch (default: the spec's grid and block)
#   SMEM   dynamic shared bytes of ptxgen's kernel (default 0: static shared,
#          as for shared tensors up to 48 KiB in all)
#   ARGS   its parameters in ABI order (default in,out,u32:tiles/8192: the
#          spec's A, B and n_tiles, emitter/lower/abi.hpp)
#   BENCH_FLAGS  more options for ptxgen_stream_bench (--reps 100, --bytes N)
set -uo pipefail
out=${OUT:-/tmp/ptxgen-stream-bench}
export PATH=/usr/local/cuda/bin:$PATH
spec=${SPEC:-tools/bench/stream_copy_persistent.toml}
bench=build-device/ptxgen_stream_bench
status=0

# The first `KEY = N` in the spec's [kernel] table (grid, block as one number).
kernel_key() {
  awk -v key="$1" '/^\[/ { in_kernel = ($0 == "[kernel]") }
    in_kernel && $1 == key && $2 == "=" { gsub(/"/, "", $3); print $3; exit }' "$spec"
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

ptxgen_ptx=${PTX:-}
entry=${ENTRY:-$(kernel_key name)}
if [ -z "$ptxgen_ptx" ]; then
  ptxgen_ptx=$out/ptxgen.ptx
  { time build-device/ptxgen emit --target sm_90 -o "$ptxgen_ptx" "$spec"; } \
    > "$out/emit.log" 2>&1 || {
    echo "ptxgen emit $spec failed (see emit.log); timing the other two only"
    status=1
    ptxgen_ptx=
  }
  cat "$out/emit.log"
fi
grid=${GRID:-$(kernel_key grid)}
block=${BLOCK:-$(kernel_key block)}
args=${ARGS:-in,out,u32:tiles/8192}

baseline_ptx=$out/nvcc.ptx
"$bench" --dump-baseline-ptx "$baseline_ptx"

run=("$bench" --baseline-grid "$grid")
if [ -n "$ptxgen_ptx" ]; then
  run+=(--ptx "$ptxgen_ptx" --entry "$entry" --grid "$grid" --block "$block"
    --smem "${SMEM:-0}" --args "$args")
fi
# shellcheck disable=SC2206 # BENCH_FLAGS is a list of words
run+=(${BENCH_FLAGS:-})
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu \
  --format=csv > "$out/gpu.txt" 2>&1
"${run[@]}" 2>&1 | tee "$out/stream_bench.log"
bench_status=${PIPESTATUS[0]}
[ "$bench_status" -ne 0 ] && status=$bench_status

for which in nvcc ptxgen; do
  if [ "$which" = nvcc ]; then ptx=$baseline_ptx; else ptx=$ptxgen_ptx; fi
  [ -n "$ptx" ] || continue
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
