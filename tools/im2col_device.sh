#!/usr/bin/env bash
# The im2col specs on the H200 and on the simulator, compared byte for byte: the GPU facts
# docs/ptx-bulk.md ("im2col") lists as unchecked (the wrap to the lower corner and into the
# next image, the upper corner from dim - 1, cuTensorMapEncodeIm2col's corner order, the
# traversal stride, the fill past the batch) each decide one of specs/tma/im2col_*.toml.
# Run on the GPU machine from the repository root with build-device/ptxgen (tools/build_device.sh):
#   OUT=/tmp/im2col tools/im2col_device.sh
# Logs under $OUT; a table last.
set -u
out=${OUT:-/tmp/ptxgen-im2col}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bin=build-device/ptxgen
ptxas=$(command -v ptxas)
specs=(specs/tma/im2col_*.toml)
rm -rf "$out/dump-gpu" "$out/dump-sim"
printf '%-40s %-6s %-6s %s\n' spec gpu sim bytes > "$out/table.txt"
for s in "${specs[@]}"; do
  name=$(basename "$s" .toml)
  timeout 120 "$bin" run --backend cuda --ptxas "$ptxas" --dump "$out/dump-gpu" "$s" \
    > "$out/$name.gpu.log" 2>&1
  gpu=$?
  timeout 120 "$bin" run --backend sim --ptxas "$ptxas" --dump "$out/dump-sim" "$s" \
    > "$out/$name.sim.log" 2>&1
  sim=$?
  same=different
  if diff -r -q "$out/dump-gpu" "$out/dump-sim" > /dev/null 2>&1; then same=identical; fi
  printf '%-40s %-6s %-6s %s\n' "$name" "$gpu" "$sim" "$same" >> "$out/table.txt"
done
cat "$out/table.txt"
