#!/usr/bin/env bash
# The README's main command: build ptxgen and run the conformance corpus —
# emit every spec, assemble it, run it on the GPU (or, without one, on the
# CPU simulator) and compare byte for byte with the independent reference.
# Extra arguments go to `ptxgen run` (e.g. --report out.json, --backend sim).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PTXGEN_BUILD_TARGETS=ptxgen source "$ROOT/tools/setup.sh"
cd "$ROOT"
exec "$BUILD_DIR/ptxgen" run specs/ "$@"
