#!/usr/bin/env bash
# Runs the corpus on the GPU: `ptxgen run --backend cuda ARGS...`. Exits 77
# (CTest: skipped) when ptxgen finds no usable GPU, so machines without one
# skip rather than pass. The reason is read from the JSON report's typed
# `setup` field, never from the wording of a message.
set -uo pipefail
ptxgen=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$ptxgen" run --backend cuda --report "$dir/report.json" "$@"
status=$?
if [ "$status" -eq 3 ] && grep -q '"setup": "no_gpu"' "$dir/report.json" 2>/dev/null; then
  echo "no usable GPU: skipped"
  exit 77
fi
exit "$status"
