#!/usr/bin/env bash
# Builds the self-contained binaries that run on the GPU machine (no Boost or
# toml++ there): libstdc++ and Boost linked statically, toml++ compiled in,
# libcuda opened at run time. Output: build-device/ptxgen and
# build-device/tests/ptxgen_gpu_selftest (carry both), and build-device/ptxgen_ref_sim_bench.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The compile flags of tools/setup.sh's build (-O2, warnings as errors): with a compiler cache
# (PTXGEN_CMAKE_ARGS=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache) every object but toml++'s users
# is then shared with build/, so on a 2-core machine this takes a minute or two after it
# instead of a quarter of an hour. Static linking changes only the link steps.
cmake -S "$ROOT" -B "$ROOT/build-device" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" -DPTXGEN_WERROR=ON -DPTXGEN_STATIC_RUNTIME=ON \
  -DPTXGEN_BUILD_TESTS=ON ${PTXGEN_CMAKE_ARGS:-} >/dev/null
cmake --build "$ROOT/build-device" -j"$(nproc)" --target ptxgen ptxgen_gpu_selftest ptxgen_ref_sim_bench
strip "$ROOT/build-device/ptxgen" "$ROOT/build-device/tests/ptxgen_gpu_selftest" \
  "$ROOT/build-device/ptxgen_ref_sim_bench"
