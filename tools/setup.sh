#!/usr/bin/env bash
# Shared by the README's two commands: installs the Debian packages ptxgen
# needs when they are missing, then configures and builds into $BUILD_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build"}
source "$ROOT/tools/packages.sh"
ensure_packages cmake g++ libboost-program-options-dev doctest-dev libtomlplusplus-dev

cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXGEN_WERROR=ON \
  ${PTXGEN_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
