#!/usr/bin/env bash
# Runs the corpus on the GPU: `ptxgen run --backend cuda ARGS...`. Exits 77
# (CTest: skipped) when ptxgen finds no usable GPU, so machines without one
# skip rather than pass.
set -uo pipefail
ptxgen=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$ptxgen" run --backend cuda "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 3 ] && grep -q "no usable GPU" "$log"; then
  echo "no usable GPU: skipped"
  exit 77
fi
exit "$status"
