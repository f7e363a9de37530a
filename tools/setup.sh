#!/usr/bin/env bash
# Shared by the README's two commands: installs the Debian packages ptxgen
# needs when they are missing, then configures and builds into $BUILD_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build"}
source "$ROOT/tools/packages.sh"
ensure_packages cmake g++ libboost-program-options-dev doctest-dev libtomlplusplus-dev nlohmann-json3-dev \
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest

# No debug information unless asked for: -g is about 40% of the compile time
# (conformance.cpp: 9.1 s with it, 6.0 s without); the main job must build in minutes and CI
# finish in 15 on 2 cores. For a debugger, reconfigure by hand:
#   cmake build "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g -DNDEBUG" && cmake --build build
# In CI (CI=true, a clean clone built once) the libraries and the unit tests are unity builds
# (cmake/unity.cmake), as in tools/sanitize.sh: at -O2 with gcc 16 test files compile in 19 s
# as one translation unit against 52 s apart. Elsewhere one file per translation unit, so that
# an edit recompiles one file and the build folder keeps the flags the compiler cache knows.
ci_args=()
[ "${CI:-}" = true ] && ci_args+=(-DPTXGEN_UNITY_BUILD=ON)
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXGEN_WERROR=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "${ci_args[@]}" ${PTXGEN_CMAKE_ARGS:-} >/dev/null
# PTXGEN_BUILD_TARGETS (space-separated) builds only those targets: the main job builds the
# ptxgen command alone, not the test programs it never runs.
targets=()
for t in ${PTXGEN_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}"
