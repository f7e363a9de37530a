#!/usr/bin/env bash
# Fails when a unit-test file does not keep its file-local names in a namespace of its own
# (unit_<file>, or ptxgen::unit_<file>): the sanitizer build compiles several test files
# as one translation unit (cmake/unity.cmake), where two files' helpers of one name clash,
# or, in a batch that happens not to pair them, would clash once files come and go.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bad=0
for f in "$ROOT"/tests/unit/*.cpp; do
  stem=$(basename "$f" .cpp)
  [ "$stem" = main ] && continue
  if ! grep -Eq "^namespace (ptxgen::)?unit_${stem} \{$" "$f"; then
    echo "tests/unit/$stem.cpp: no 'namespace unit_$stem {' around its tests and helpers"
    bad=1
  fi
done
exit $bad
