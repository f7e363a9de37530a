#!/usr/bin/env bash
# Shared by the README's two commands: installs the Debian packages ptxgen
# needs when they are missing, then configures and builds into $BUILD_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build"}
source "$ROOT/tools/packages.sh"
ensure_packages cmake g++ libboost-program-options-dev doctest-dev libtomlplusplus-dev

# No debug information unless asked for: -g is about 40% of the compile time
# (conformance.cpp: 9.1 s with it, 6.0 s without); the main job must build in minutes and CI
# finish in 15 on 2 cores. For a debugger, reconfigure by hand:
#   cmake build "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g -DNDEBUG" && cmake --build build
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXGEN_WERROR=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" ${PTXGEN_CMAKE_ARGS:-} >/dev/null
# PTXGEN_BUILD_TARGETS (space-separated) builds only those targets: the main job builds the
# ptxgen command alone, not the test programs it never runs.
targets=()
for t in ${PTXGEN_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}"
