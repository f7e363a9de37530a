#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what clang-format makes
# of it (the repository's .clang-format). Exits 77 without clang-format.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fmt=${1:-}
if [ -z "$fmt" ] || [[ "$fmt" == *NOTFOUND ]] || ! [ -x "$(command -v "$fmt")" ]; then
  echo "no clang-format: skipped"
  exit 77
fi
cd "$ROOT"
bad=0
while IFS= read -r -d '' f; do
  if ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: $fmt -i $f)"
    bad=1
  fi
done < <(find emitter driver tests fuzz tools \( -name '*.cpp' -o -name '*.hpp' \) -print0 2>/dev/null)
exit $bad
