#!/usr/bin/env bash
# The README's test command: install, configure, build, run every CTest test.
# Extra arguments go to ctest (e.g. `tools/test.sh -L unit`, `-R golden`).
# In CI (CI=true, as root) it then installs the Debian package with apt-get and
# uses it (tools/package_check.sh deb BUILD --install).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/tools/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$(nproc)" "$@"
if [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ]; then
  bash "$ROOT/tools/package_check.sh" deb "$BUILD_DIR" --install
fi
