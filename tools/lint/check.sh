#!/usr/bin/env bash
# `ptxgen lint` over the foreign corpus (docs/lint.md, tests/lint.cmake).
#
#   tools/lint/check.sh PTXGEN kernel NAME   every PTX of kernel NAME lints clean (exit 0)
#   tools/lint/check.sh PTXGEN mutant NAME   mutant NAME is reported with the kind that
#                                            tests/lint/mutants.expect gives it
#
# A kernel gets only an --arg per scalar, with the value its spec gives it
# (tests/foreign/specs/NAME.toml), at the index its ABI order gives (tools/lint/spec_args.awk).
# A mutant is built
# by the edits tools/foreign/check.sh applies (its functions are read from there, so both
# build the same file), then linted with its kernel's --arg; mutants.expect says what lint
# must report: a rule id (race.read-in-flight, fault.deadlock, ...) that must be among the
# findings, with exit 1; or `clean` (exit 0) for a mutant whose only effect is a wrong value,
# which no hazard shows and lint, with no spec, cannot see; or `usage` (exit 2); or
# `unsupported` (exit 4) for a kernel tests/lint/unsupported.list names.
set -u
if [ $# -lt 3 ]; then
  echo "usage: check.sh PTXGEN kernel NAME | mutant NAME" >&2
  exit 2
fi
ptxgen=$1
mode=$2
name=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
corpus=$root/tests/foreign
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-lint-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# load_mutants, occurrences and apply_edit, as tools/foreign/check.sh defines them
eval "$(sed -n -e '/^load_mutants() {/,/^}/p' -e '/^occurrences() {/,/^}/p' \
  -e '/^apply_edit() {/,/^}/p' "$root/tools/foreign/check.sh")"
type apply_edit load_mutants occurrences > /dev/null || exit 1

args_of() { # NAME -> its --arg options: its spec's scalars (tools/lint/spec_args.awk)
  local a
  for a in $(awk -f "$root/tools/lint/spec_args.awk" "$corpus/specs/$1.toml"); do
    printf -- '--arg %s ' "$a"
  done
}

targets_of() { # NAME -> the variants of its TARGETS column (kernels.list), default all four
  local targets t
  targets=$(awk -v n="$1" '$1 == n { print $3 }' "$corpus/kernels.list")
  [ -n "$targets" ] || targets=sm80,sm90
  for t in ${targets//,/ }; do echo "$t.O3 $t.G"; done
}

case "$mode" in
kernel)
  bad=0
  # a kernel lint cannot run yet (tests/lint/unsupported.list, with why) must say so: exit 4
  want_unsupported=$(awk -v n="$name" '$1 == n { print "yes" }' "$root/tests/lint/unsupported.list")
  for v in $(targets_of "$name"); do
    ptx=$corpus/ptx/$name.$v.ptx
    # shellcheck disable=SC2046
    "$ptxgen" lint "$ptx" $(args_of "$name") > "$tmp/out" 2>&1
    rc=$?
    if [ -n "$want_unsupported" ]; then
      if [ $rc = 4 ]; then echo "lint $name.$v unsupported, as listed"; continue; fi
      echo "lint $name.$v: exit $rc, but tests/lint/unsupported.list says unsupported (4):"
      cat "$tmp/out"
      bad=1
    elif [ $rc = 0 ]; then
      echo "lint $name.$v clean"
    else
      echo "lint $name.$v NOT CLEAN (exit $rc):"
      cat "$tmp/out"
      [ $rc = 2 ] && echo "(its spec's [param.*] values and [kernel] abi give lint its --arg)"
      bad=1
    fi
  done
  exit $bad
  ;;
mutant)
  load_mutants || exit 1
  expect=$(awk -v n="$name" '$1 == n { print $2 }' "$root/tests/lint/mutants.expect")
  i=-1
  for j in "${!m_name[@]}"; do [ "${m_name[j]}" = "$name" ] && i=$j; done
  if [ $i -lt 0 ] || [ -z "$expect" ]; then
    echo "check.sh: mutant '$name' is not in both mutants.toml and tests/lint/mutants.expect" >&2
    exit 1
  fi
  out=$tmp/$name.ptx
  cp "$corpus/ptx/${m_ptx[i]}.ptx" "$out"
  for j in "${!e_of[@]}"; do
    [ "${e_of[j]}" = "$i" ] || continue
    [ -z "${e_delete[j]}${e_replace[j]}${e_by[j]}${e_after[j]}" ] && continue
    msg=$(apply_edit "$out" "${e_delete[j]}" "${e_replace[j]}" "${e_by[j]}" "${e_after[j]}") ||
      { echo "mutant $name BROKEN: $msg"; exit 1; }
  done
  kernel=${m_ptx[i]%%.*}
  # shellcheck disable=SC2046
  "$ptxgen" lint "$out" $(args_of "$kernel") --json "$tmp/report.json" > "$tmp/out" 2>&1
  rc=$?
  rules=$(sed -n 's/.*"rule": "\([^"]*\)".*/\1/p' "$tmp/report.json" 2>/dev/null | sort -u | tr '\n' ' ')
  if [ "$expect" = clean ] || [ "$expect" = usage ] || [ "$expect" = unsupported ]; then
    want=0
    [ "$expect" = usage ] && want=2
    [ "$expect" = unsupported ] && want=4
    [ $rc = $want ] && { echo "mutant $name: exit $rc ($expect), as expected"; exit 0; }
  elif [ $rc = 1 ] && [[ " $rules" == *" $expect "* ]]; then
    echo "mutant $name reported as $expect (rules: $rules)"
    exit 0
  fi
  echo "mutant $name WRONG: expected $expect, got exit $rc, rules: $rules"
  cat "$tmp/out"
  exit 1
  ;;
*)
  echo "check.sh: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
