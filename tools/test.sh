#!/usr/bin/env bash
# The README's test command: install, configure, build, run every CTest test.
# Extra arguments go to ctest (e.g. `tools/test.sh -L unit`, `-R golden`).
# In CI (CI=true, as root) the test package.deb gives way to its fuller form after
# CTest: the Debian package is built, installed with apt-get and used
# (tools/package_check.sh deb BUILD --install).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/tools/setup.sh"
cd "$BUILD_DIR"
if [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ]; then
  ctest --output-on-failure -j"$(nproc)" -E '^package\.deb$' "$@"
  bash "$ROOT/tools/package_check.sh" deb "$BUILD_DIR" --install
else
  ctest --output-on-failure -j"$(nproc)" "$@"
fi
