#!/usr/bin/env bash
# The device conformance run, on the GPU machine, from the repository root,
# with the binaries built by tools/build_device.sh carried in build-device/:
# GPU self-test, the corpus on the GPU (twice, for the timing), the corpus on
# the simulator, and a byte-for-byte comparison of the two backends' outputs;
# then specs/mbarrier/ lowered for sm_90 (try_wait loops) on both, compared too.
# Logs and reports go to $OUT (default /tmp/ptxgen-device); a table last.
set -u
out=${OUT:-/tmp/ptxgen-device}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bin=build-device/ptxgen
ptxas=$(command -v ptxas)
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  "$ptxas" --version | tail -1
} > "$out/machine.txt"
build-device/tests/ptxgen_gpu_selftest > "$out/selftest.log" 2>&1
echo "gpu self-test exit status: $?" >> "$out/machine.txt"
rm -rf /tmp/dump-gpu /tmp/dump-sim
{ time "$bin" run --backend cuda --ptxas "$ptxas" --report "$out/gpu.json" --dump /tmp/dump-gpu \
    specs/ specs/faults/; } > "$out/gpu.log" 2>&1
echo "gpu corpus exit status: $?" >> "$out/machine.txt"
{ time "$bin" run --backend cuda --ptxas "$ptxas" specs/ specs/faults/; } > "$out/gpu2.log" 2>&1
{ time "$bin" run --backend sim --ptxas "$ptxas" --report "$out/sim.json" --dump /tmp/dump-sim \
    specs/ specs/faults/; } > "$out/sim.log" 2>&1
echo "sim corpus exit status: $?" >> "$out/machine.txt"
# Fault specs are left out: by design they fault on one backend and not the other. So are the
# specs the simulator skips (a `# sim-skip:` line: clusters of several CTAs), run on the GPU only.
skipped=()
for s in $(grep -rlE '^#[[:space:]]*sim-skip:' specs/); do skipped+=(-x "${s//\//__}.*"); done
# A tensor map slot (a tensormap_copy's dst) holds the driver's opaque CUtensorMap on the GPU and
# the simulator's handle on the CPU: never compared (docs/spec-format.md, "Tensor maps edited on
# the device").
for s in $(grep -rl '^op = "tensormap_copy"' specs/); do
  for t in $(awk '/^op = "tensormap_copy"/ { c = 1; next } c && /^dst = / { gsub(/^dst = .|[.\x27].*$/, ""); print; c = 0 } /^\[\[op\]\]/ { c = 0 }' "$s" | sort -u); do
    skipped+=(-x "${s//\//__}.$t.bin")
  done
done
if diff -r -x 'specs__faults__*' "${skipped[@]}" /tmp/dump-gpu /tmp/dump-sim > "$out/gpu-vs-sim.diff"; then
  echo "gpu vs sim: identical bytes in all $(ls /tmp/dump-sim | grep -vc '^specs__faults__') tensor files" >> "$out/machine.txt"
else
  echo "gpu vs sim: DIFFERENT (see gpu-vs-sim.diff)" >> "$out/machine.txt"
fi
# The mbarrier specs lowered for sm_90 (try_wait loops) on both backends, compared too.
rm -rf /tmp/dump-gpu90 /tmp/dump-sim90
"$bin" run --backend cuda --target sm_90 --ptxas "$ptxas" --dump /tmp/dump-gpu90 specs/mbarrier \
  > "$out/gpu-sm90-mbarrier.log" 2>&1
echo "gpu --target sm_90 specs/mbarrier exit status: $?" >> "$out/machine.txt"
"$bin" run --backend sim --target sm_90 --ptxas "$ptxas" --dump /tmp/dump-sim90 specs/mbarrier \
  > "$out/sim-sm90-mbarrier.log" 2>&1
echo "sim --target sm_90 specs/mbarrier exit status: $?" >> "$out/machine.txt"
if diff -r /tmp/dump-gpu90 /tmp/dump-sim90 > "$out/gpu-vs-sim-sm90.diff"; then
  echo "gpu vs sim, sm_90 mbarrier: identical bytes in all $(ls /tmp/dump-gpu90 | wc -l) tensor files" >> "$out/machine.txt"
else
  echo "gpu vs sim, sm_90 mbarrier: DIFFERENT (see gpu-vs-sim-sm90.diff)" >> "$out/machine.txt"
fi
cat "$out/machine.txt"
tail -n 8 "$out/gpu.log"
grep -E '^(summary|real)' "$out/gpu2.log" "$out/sim.log"
