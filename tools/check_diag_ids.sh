#!/usr/bin/env bash
# Checks emitter/support/diagnostic_ids.def: every PTXGEN_DIAG(id) line has a `///`
# doc comment right above it, its identifier is unique, and it is used somewhere in
# emitter/ or driver/ as DiagId::id (no ID declared and never produced); and every rule
# has one home: a spec_* or contract_* ID is raised (DiagId::id written where a diagnostic
# is made) in one room only, a room being a file's first two path components (emitter/tile,
# driver/toml; python/ is one room). Not raises: `case DiagId::id`, comparisons with == or
# !=, and expectation rows `{"what", DiagId::id, ...}` (the fuzzer's mutants).
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
# One home per rule: list each spec_*/contract_* ID raised in two or more rooms.
mapfile -t files < <(cd "$root" && find emitter driver python -name '*.cpp' -o -name '*.hpp' 2>/dev/null | sort)
while IFS= read -r row; do
  [ -n "$row" ] || continue
  echo "raised in two rooms (one rule, one home): $row"
  status=1
done < <(cd "$root" && perl -e '
  my %rooms;
  for my $f (@ARGV) {
    open(my $fh, "<", $f) or next;
    local $/;
    my $t = <$fh>;
    close $fh;
    my @p = split m{/}, $f;
    my $room = @p > 2 ? "$p[0]/$p[1]" : $p[0];
    while ($t =~ /(case\s+|[=!]=\s*|"\s*,\s*)?DiagId::((?:spec|contract)_\w+)(\s*[=!]=)?/g) {
      next if defined $1 || defined $3;
      my $line = 1 + (substr($t, 0, $-[0]) =~ tr/\n//);
      $rooms{$2}{$room} //= "$f:$line";
    }
  }
  for my $id (sort keys %rooms) {
    my @r = sort keys %{$rooms{$id}};
    print "$id: ", join(", ", map { $rooms{$id}{$_} } @r), "\n" if @r > 1;
  }' "${files[@]}")
[ ${#seen[@]} -gt 0 ] || { echo "diagnostic_ids.def declares no ID"; status=1; }
exit $status
