#!/usr/bin/env bash
# Runs the foreign-PTX corpus (docs/foreign.md) on the CPU simulator.
#
#   tools/foreign/check.sh PTXGEN kernel NAME    every PTX of kernel NAME must pass
#   tools/foreign/check.sh PTXGEN mutant NAME    mutant NAME must fail as it states
#   tools/foreign/check.sh PTXGEN all            both, for everything; a table last
#
# Kernels are listed in tests/foreign/kernels.list (NAME ENTRY [TARGETS]): each
# of tests/foreign/ptx/NAME.{sm80,sm90}.{O3,G}.ptx (the TARGETS only) runs with
# `ptxgen run --backend sim --arch sm_XX --ptx FILE --entry ENTRY
# tests/foreign/specs/NAME.toml` and must come out `pass` (exit 0). A kernel
# the simulator cannot run yet fails here: never skipped.
#
# Mutants are listed in tests/foreign/mutants.toml ([[mutant]] tables; the
# file is TOML, read here line by line: `key = "value"` or `key = 'value'`,
# one per line). Each names a generated PTX (`ptx = "NAME.sm80.O3"`) and
# textual edits of it, applied in order: `delete = 'TEXT'` deletes the line
# containing TEXT, `replace = 'OLD'` with `by = 'NEW'` replaces OLD by NEW in
# its line. TEXT/OLD are fixed strings that must occur exactly once in the
# file, or, with `after = 'ANCHOR'` (a fixed string that must occur exactly
# once), the edit applies to the first line after ANCHOR's line containing
# them; anything else makes the mutant BROKEN (a failure). The edit keys of
# a [[mutant]] table are its first edit; each [[mutant.edit]] table under it
# adds one. The edited PTX (in a private temp dir) runs against the kernel's
# spec, must exit non-zero, and must give `expect`:
#   "mismatch"             the run completes and some output byte differs
#   "race:KIND"            a simulator race fault of that kind ("read in flight", ...)
#   "fault:KIND"           another simulator fault kind ("illegal address", ...)
#   "status:STATUS"        the case's status in the report (e.g. "error", "invalid")
#   "diag:ID"              refused (status error or invalid) with DiagId ID (e.g. run_param_type)
set -u
if [ $# -lt 2 ]; then
  echo "usage: check.sh PTXGEN kernel NAME | mutant NAME | all" >&2
  exit 2
fi
ptxgen=$1
mode=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
corpus=$root/tests/foreign
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-foreign-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
variants=(sm80.O3 sm80.G sm90.O3 sm90.G)

entry_of() { # NAME -> its mangled entry (kernels.list), or nothing
  awk -v n="$1" '$1 == n { print $2 }' "$corpus/kernels.list"
}

variants_of() { # NAME -> its PTX variants: every one, or those of its TARGETS column
  local targets t v
  targets=$(awk -v n="$1" '$1 == n { print $3 }' "$corpus/kernels.list")
  [ -n "$targets" ] || { echo "${variants[*]}"; return; }
  for t in ${targets//,/ }; do
    for v in "${variants[@]}"; do [ "${v%%.*}" = "$t" ] && echo "$v"; done
  done
}

# run_case PTX ENTRY SPEC ARCH -> sets rc, status, detail, sim_fault, race_kind (the
# report's fault and race kinds as data: nothing is read out of the detail's wording)
run_case() {
  local report=$tmp/report.json
  rm -f "$report"
  "$ptxgen" run --backend sim --arch "$4" --ptx "$1" --entry "$2" --report "$report" "$3" \
    > "$tmp/run.log" 2>&1
  rc=$?
  status=$(grep -o '"status": "[a-z_]*"' "$report" 2>/dev/null | head -1 | sed 's/.*: "\(.*\)"/\1/')
  detail=$(sed -n 's/.*"detail": "\(.*\)", "emit_ms".*/\1/p' "$report" 2>/dev/null | head -1)
  sim_fault=$(sed -n 's/.*"sim_fault": "\([^"]*\)".*/\1/p' "$report" 2>/dev/null | head -1)
  race_kind=$(sed -n 's/.*"race_kind": "\([^"]*\)".*/\1/p' "$report" 2>/dev/null | head -1)
  if [ -z "$status" ]; then
    status="no-report"
    detail=$(tr '\n' ' ' < "$tmp/run.log" | cut -c1-400)
  fi
}

arch_of() { # NAME.smXX.OPT -> sm_XX
  local v=${1#*.}
  v=${v%%.*}
  echo "sm_${v#sm}"
}

check_kernel() { # NAME -> 0 when every variant passes
  local name=$1 entry bad=0 v
  entry=$(entry_of "$name")
  if [ -z "$entry" ]; then
    echo "check.sh: kernel '$name' is not in kernels.list" >&2
    return 1
  fi
  for v in $(variants_of "$name"); do
    local ptx=$corpus/ptx/$name.$v.ptx
    if [ ! -f "$ptx" ]; then
      printf 'kernel %-24s %-7s MISSING %s\n' "$name" "$v" "$ptx"
      bad=1
      continue
    fi
    run_case "$ptx" "$entry" "$corpus/specs/$name.toml" "$(arch_of "$name.$v")"
    if [ "$rc" = 0 ] && [ "$status" = pass ]; then
      printf 'kernel %-24s %-7s pass\n' "$name" "$v"
    else
      printf 'kernel %-24s %-7s FAIL (exit %s, %s): %s\n' "$name" "$v" "$rc" "$status" \
        "$(echo "$detail" | cut -c1-600)"
      bad=1
    fi
  done
  return $bad
}

# Reads mutants.toml: mutant i has m_name[i], m_ptx[i], m_expect[i]; edit j
# belongs to mutant e_of[j] and has e_delete[j], e_replace[j], e_by[j],
# e_after[j]. Edit keys in a [[mutant]] table are its first edit; each
# [[mutant.edit]] table starts another. Refuses lines it does not understand.
load_mutants() {
  m_name=() m_ptx=() m_expect=() e_of=() e_delete=() e_replace=() e_by=() e_after=()
  local line n=0 i=-1 j=-1 key value
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case "$line" in
    '' | '#'*) continue ;;
    '[[mutant]]')
      i=$((i + 1)) j=$((j + 1))
      m_name[i]='' m_ptx[i]='' m_expect[i]=''
      e_of[j]=$i e_delete[j]='' e_replace[j]='' e_by[j]='' e_after[j]=''
      continue
      ;;
    '[[mutant.edit]]')
      if [ $i -lt 0 ]; then
        echo "mutants.toml:$n: [[mutant.edit]] before the first [[mutant]]" >&2
        return 1
      fi
      # the [[mutant]] table's own first edit slot stays empty when unused
      j=$((j + 1))
      e_of[j]=$i e_delete[j]='' e_replace[j]='' e_by[j]='' e_after[j]=''
      continue
      ;;
    esac
    if [[ $line =~ ^([a-z_]+)\ =\ \"([^\"\\]*)\"[[:space:]]*(#.*)?$ ]] ||
      [[ $line =~ ^([a-z_]+)\ =\ \'([^\']*)\'[[:space:]]*(#.*)?$ ]]; then
      key=${BASH_REMATCH[1]}
      value=${BASH_REMATCH[2]}
    else
      echo "mutants.toml:$n: not a [[mutant]] or [[mutant.edit]] header or a one-line key = \"string\"" >&2
      return 1
    fi
    if [ $i -lt 0 ]; then
      echo "mutants.toml:$n: '$key' before the first [[mutant]]" >&2
      return 1
    fi
    case "$key" in
    name) m_name[i]=$value ;;
    ptx) m_ptx[i]=$value ;;
    expect) m_expect[i]=$value ;;
    delete) e_delete[j]=$value ;;
    replace) e_replace[j]=$value ;;
    by) e_by[j]=$value ;;
    after) e_after[j]=$value ;;
    why) ;;
    *)
      echo "mutants.toml:$n: unknown key '$key'" >&2
      return 1
      ;;
    esac
  done < "$corpus/mutants.toml"
}

# occurrences FILE TEXT [FROM_LINE]: how often the fixed string TEXT occurs
# in FILE (from line FROM_LINE on), and on which line the first one is
occurrences() {
  FIND="$2" FROM="${3:-1}" awk 'NR >= ENVIRON["FROM"] { s = $0; while ((i = index(s, ENVIRON["FIND"])) > 0) { if (!c++) first = NR; s = substr(s, i + 1) } } END { print c + 0, first + 0 }' "$1"
}

# apply_edit FILE DELETE REPLACE BY AFTER: edits FILE in place. Without
# AFTER the text must occur exactly once in the file; with AFTER, AFTER must
# occur exactly once and the edit applies to the first line after it that
# contains the text. 1 with a message when the text does not fit.
apply_edit() {
  local file=$1 text=$2 from=1 count line
  [ -z "$text" ] && text=$3
  if [ -z "$text" ] || { [ -n "$2" ] && [ -n "$3" ]; }; then
    echo "an edit needs exactly one of delete and replace"
    return 1
  fi
  if [ -n "$3" ] && [ -z "$4" ]; then
    echo "replace needs by (the new text)"
    return 1
  fi
  if [ -n "$5" ]; then
    read -r count line < <(occurrences "$file" "$5")
    [ "$count" = 1 ] || { echo "after text occurs $count times (must be once): $5"; return 1; }
    from=$((line + 1))
    read -r count line < <(occurrences "$file" "$text" "$from")
    [ "$count" -ge 1 ] || { echo "no line after '$5' contains: $text"; return 1; }
  else
    read -r count line < <(occurrences "$file" "$text")
    [ "$count" = 1 ] || { echo "text occurs $count times (must be once): $text"; return 1; }
  fi
  if [ -n "$2" ]; then
    LINE=$line awk 'NR != ENVIRON["LINE"]' "$file" > "$file.next"
  else
    LINE=$line FIND="$3" BY="$4" awk 'NR == ENVIRON["LINE"] { i = index($0, ENVIRON["FIND"]); $0 = substr($0, 1, i - 1) ENVIRON["BY"] substr($0, i + length(ENVIRON["FIND"])) } { print }' "$file" > "$file.next"
  fi
  mv -f "$file.next" "$file"
}

check_mutant() { # NAME -> 0 when it fails as stated
  local want=$1 i=-1 j
  for j in "${!m_name[@]}"; do [ "${m_name[j]}" = "$want" ] && i=$j; done
  if [ $i -lt 0 ]; then
    echo "check.sh: no mutant '$want' in mutants.toml" >&2
    return 1
  fi
  local ptx=${m_ptx[i]} expect=${m_expect[i]}
  local kernel=${ptx%%.*} src=$corpus/ptx/${m_ptx[i]}.ptx out=$tmp/$want.ptx msg entry edits=0
  entry=$(entry_of "$kernel")
  if [ -z "$expect" ] || [ -z "$entry" ] || [ ! -f "$src" ]; then
    printf 'mutant %-40s BROKEN: needs ptx (a generated file of a listed kernel) and expect\n' "$want"
    return 1
  fi
  cp "$src" "$out"
  for j in "${!e_of[@]}"; do
    [ "${e_of[j]}" = "$i" ] || continue
    [ -z "${e_delete[j]}${e_replace[j]}${e_by[j]}${e_after[j]}" ] && continue
    edits=$((edits + 1))
    if ! msg=$(apply_edit "$out" "${e_delete[j]}" "${e_replace[j]}" "${e_by[j]}" "${e_after[j]}"); then
      printf 'mutant %-40s BROKEN: edit %s: %s\n' "$want" "$edits" "$msg"
      return 1
    fi
  done
  if [ $edits = 0 ] || cmp -s "$src" "$out"; then
    printf 'mutant %-40s BROKEN: no edit, or the edits changed nothing\n' "$want"
    return 1
  fi
  run_case "$out" "$entry" "$corpus/specs/$kernel.toml" "$(arch_of "$ptx")"
  local kind=${expect%%:*} what=${expect#*:} ok=0
  case "$kind" in
  mismatch) [ "$status" = mismatch ] && ok=1 ;;
  race) [ "$status" = fault ] && [ "$sim_fault" = race ] && [ "$race_kind" = "$what" ] && ok=1 ;;
  fault) [ "$status" = fault ] && [ "$sim_fault" = "$what" ] && ok=1 ;;
  status) [ "$status" = "$what" ] && ok=1 ;;
  diag) [[ $status == error || $status == invalid ]] && [[ $detail == *"[$what]"* ]] && ok=1 ;;
  *)
    printf 'mutant %-40s BROKEN: expect "%s" is not mismatch, race:KIND, fault:KIND, status:STATUS or diag:ID\n' "$want" "$expect"
    return 1
    ;;
  esac
  if [ $ok = 1 ] && [ "$rc" != 0 ]; then
    printf 'mutant %-40s fails as stated (%s)\n' "$want" "$expect"
    return 0
  fi
  printf 'mutant %-40s WRONG: expected %s, got exit %s, %s: %s\n' "$want" "$expect" "$rc" "$status" \
    "$(echo "$detail" | cut -c1-600)"
  return 1
}

case "$mode" in
kernel)
  check_kernel "${3:?kernel NAME}"
  ;;
mutant)
  load_mutants || exit 1
  check_mutant "${3:?mutant NAME}"
  ;;
all)
  load_mutants || exit 1
  bad=0
  while read -r name _; do
    case "$name" in '' | '#'*) continue ;; esac
    check_kernel "$name" || bad=$((bad + 1))
  done < "$corpus/kernels.list"
  for m in "${m_name[@]}"; do check_mutant "$m" || bad=$((bad + 1)); done
  echo "check.sh: $bad failing kernel(s) or mutant(s)"
  [ $bad = 0 ]
  ;;
*)
  echo "check.sh: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
