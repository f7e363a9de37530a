#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what clang-format makes
# of it (the repository's .clang-format). Exits 77 without clang-format.
# One clang-format process checks every file (a process per file took 30 s of CI's time,
# mostly starting clang-format); only when that fails does a file-by-file pass name them.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fmt=${1:-}
if [ -z "$fmt" ] || [[ "$fmt" == *NOTFOUND ]] || ! [ -x "$(command -v "$fmt")" ]; then
  echo "no clang-format: skipped"
  exit 77
fi
cd "$ROOT"
files=()
while IFS= read -r -d '' f; do
  files+=("$f")
done < <(find emitter driver tests fuzz tools python examples \( -name '*.cpp' -o -name '*.hpp' \) -print0 2>/dev/null)
[ "${#files[@]}" -gt 0 ] || { echo "no C++ files found under $ROOT"; exit 1; }
if "$fmt" --dry-run -Werror "${files[@]}" >/dev/null 2>&1; then
  echo "${#files[@]} files formatted"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: $fmt -i $f)"
    bad=1
  fi
done
# The whole run failed, so some file must: a run that fails with every file passing alone
# (an argument list too long, a crash) is a failure too.
[ "$bad" -eq 1 ] || echo "clang-format failed on the files together but on none alone"
exit 1
