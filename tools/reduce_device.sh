#!/usr/bin/env bash
# The bulk reductions on the GPU, from the repository root, with the binary built by
# tools/build_device.sh carried in build-device/: every spec of specs/reduce/ run with
# `ptxgen run --backend cuda` (cp.reduce.async.bulk of each reduction kind and split-K
# launches of several CTAs adding into one output; tensor_*.toml: cp.reduce.async.bulk.tensor
# 1-D to 5-D through tensor maps, with prefetch.tensormap), each compared byte for byte with the
# reference; the simulator on the same directory; then the split-K benchmark
# (tools/bench/split_k_reduce.cu: one cp.reduce.async.bulk .add.f32 per CTA against
# red.global.add.f32 per element, the same shape) and `ptxgen bench` of the split-K specs (1-D
# and tensor).
# Logs under $OUT (default /tmp/ptxgen-device)/reduce; a table last.
#
#   tools/reduce_device.sh [PTXGEN]      (default build-device/ptxgen)
#
# Everything under `timeout` (LIMIT, default 300 s in all).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/ptxgen-device}/reduce
limit=${LIMIT:-300}
bin=${1:-$root/build-device/ptxgen}
rm -rf "$out"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
left() { echo $((limit - ($(date +%s) - start))); }
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  git -C "$root" rev-parse --short HEAD 2>/dev/null | sed 's/^/commit: /'
} > "$out/machine.txt" 2>&1
[ -x "$bin" ] || { echo "reduce_device: no ptxgen at $bin (tools/build_device.sh)" >&2; exit 2; }
rows=()
gpu_failed=0
for spec in "$root"/specs/reduce/*.toml; do
  name=$(basename "$spec" .toml)
  timeout "$(left)" "$bin" run --backend cuda --dump "$out/dump-$name" "$spec" \
    > "$out/$name.log" 2>&1
  rc=$?
  verdict=$(grep -m1 '^summary:' "$out/$name.log" | sed 's/^summary: //')
  [ "$rc" = 0 ] || gpu_failed=1
  rows+=("$(printf '%-28s %3s  %s' "$name" "$rc" "${verdict:-(no summary; see $name.log)}")")
done
timeout "$(left)" "$bin" run --backend sim "$root/specs/reduce" > "$out/sim.log" 2>&1
sim_rc=$?
bench_rc=1
if timeout "$(left)" nvcc -arch=sm_90 -O3 -o "$out/split_k_reduce" \
  "$root/tools/bench/split_k_reduce.cu" > "$out/nvcc.log" 2>&1; then
  timeout "$(left)" "$out/split_k_reduce" 264 8 > "$out/split_k.log" 2>&1
  bench_rc=$?
  timeout "$(left)" "$out/split_k_reduce" 1056 4 >> "$out/split_k.log" 2>&1 || bench_rc=1
fi
timeout "$(left)" "$bin" bench --target sm_90 "$root/specs/reduce/add_f32_split_k.toml" \
  > "$out/ptxgen_bench.log" 2>&1
pbench_rc=$?
timeout "$(left)" "$bin" bench --target sm_90 "$root/specs/reduce/tensor_add_f32_split_k.toml" \
  > "$out/ptxgen_bench_tensor.log" 2>&1
tbench_rc=$?
cat "$out/machine.txt"
echo
printf '%-28s %3s  %s\n' spec rc "ptxgen run --backend cuda (exit 0: identical bytes to the reference)"
printf '%s\n' "${rows[@]}"
echo
echo "simulator on specs/reduce: exit $sim_rc"
grep -E '^summary' "$out/sim.log"
echo
echo "split-K reduction, tools/bench/split_k_reduce.cu (exit $bench_rc):"
cat "$out/split_k.log" 2>/dev/null
echo "ptxgen bench specs/reduce/add_f32_split_k.toml (exit $pbench_rc):"
tail -n 4 "$out/ptxgen_bench.log"
echo "ptxgen bench specs/reduce/tensor_add_f32_split_k.toml (exit $tbench_rc):"
tail -n 4 "$out/ptxgen_bench_tensor.log"
[ "$gpu_failed" = 0 ] && [ "$sim_rc" = 0 ] && [ "$bench_rc" = 0 ]
