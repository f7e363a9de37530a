#!/usr/bin/env bash
# Checks emitter/support/diagnostic_ids.def: every PTXGEN_DIAG(id) line has a `///`
# doc comment right above it, its identifier is unique, and it is used somewhere in
# emitter/ or driver/ as DiagId::id (no ID declared and never produced).
# Usage: tools/check_diag_ids.sh [ROOT]. Exit 0 when all hold, 1 with a list otherwise.
set -u
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
def="$root/emitter/support/diagnostic_ids.def"
[ -f "$def" ] || { echo "no $def" >&2; exit 2; }
status=0
prev=""
declare -A seen=()
while IFS= read -r line; do
  if [[ "$line" =~ ^PTXGEN_DIAG\(([a-z0-9_]+)\)$ ]]; then
    id=${BASH_REMATCH[1]}
    if [[ ! "$prev" =~ ^/// ]]; then
      echo "diagnostic_ids.def: $id has no /// doc comment above it"
      status=1
    fi
    if [ -n "${seen[$id]:-}" ]; then
      echo "diagnostic_ids.def: $id is declared twice"
      status=1
    fi
    seen[$id]=1
    if ! grep -rqw --include='*.cpp' --include='*.hpp' -e "DiagId::$id" "$root/emitter" "$root/driver"; then
      echo "diagnostic_ids.def: $id is never used as DiagId::$id in emitter/ or driver/"
      status=1
    fi
  elif [[ "$line" == PTXGEN_DIAG* ]]; then
    echo "diagnostic_ids.def: malformed line: $line"
    status=1
  fi
  [ -n "$line" ] && prev=$line
done < "$def"
[ ${#seen[@]} -gt 0 ] || { echo "diagnostic_ids.def declares no ID"; status=1; }
exit $status
