#!/usr/bin/env bash
# The README's test command: install, configure, build, run every CTest test.
# Extra arguments go to ctest (e.g. `tools/test.sh -L unit`, `-R golden`).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/tools/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$(nproc)" "$@"
