#!/usr/bin/env bash
# The README's main command: build ptxgen and run its main job.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/tools/setup.sh"
"$BUILD_DIR/ptxgen" instr cp.async.cg.shared.global --chunk-bytes 16 --target sm_80 --ptxas "$@"
