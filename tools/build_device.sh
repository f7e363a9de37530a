#!/usr/bin/env bash
# Builds the self-contained binaries that run on the GPU machine (no Boost or
# toml++ there): libstdc++ and Boost linked statically, toml++ compiled in,
# libcuda opened at run time. Output: build-device/ptxgen and
# build-device/tests/ptxgen_gpu_selftest (carry both), and build-device/ptxgen_ref_sim_bench.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cmake -S "$ROOT" -B "$ROOT/build-device" -DCMAKE_BUILD_TYPE=Release -DPTXGEN_STATIC_RUNTIME=ON \
  -DPTXGEN_BUILD_TESTS=ON >/dev/null
cmake --build "$ROOT/build-device" -j"$(nproc)" --target ptxgen ptxgen_gpu_selftest ptxgen_ref_sim_bench
strip "$ROOT/build-device/ptxgen" "$ROOT/build-device/tests/ptxgen_gpu_selftest" \
  "$ROOT/build-device/ptxgen_ref_sim_bench"
