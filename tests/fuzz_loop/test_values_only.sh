#!/usr/bin/env bash
# The fuzzer detects kernels racy only away from their test value: over a fixed seed range
# whose specs give each range-dependent mutation rule at least one mutant, every such mutant
# is a false accept when the checker looks at the test values only (the test switch
# --check-test-values-only), and none is without it (every mutant refused with its rule's
# DiagId). If the generator changes and a rule no longer applies in the range, the test
# says which rule made no mutant: pick a new range.
# usage: test_values_only.sh PTXGEN WORKDIR
set -u
ptxgen=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
rules=(
  "ring prologue without the empty commits (racy for fewer tiles than S - 1)"
  "ring wait count right only in the steady state (racy for fewer tiles than S - 1)"
  "grid-stride loop without its trailing cta_sync (racy once a CTA runs 2 iterations)"
  "mbarrier parity (k / 4) % 2, right for the first uses only (racy from 3 tiles)"
)
run() { # REPORT [ARGS...]
  local report=$1
  shift
  "$ptxgen" fuzz --seed 42 --count 24 --backend sim -j 2 --mutants 100 --no-shrink \
    --report "$report" "$@"
}
# The rule's entry of mutants_by_rule: {"rule": ..., "mutants": M, "refused": R}.
entry() { grep -o "{\"rule\": \"$(sed 's/[][\.*^$/]/\\&/g' <<<"$2")\", [^}]*}" "$1"; }
count() { grep -o "\"$2\": [0-9]*" <<<"$1" | grep -o '[0-9]*$'; }

run "$work/limited.json" --check-test-values-only
rc=$?
[ "$rc" = 1 ] || fail "with --check-test-values-only: exit $rc, expected 1 (false accepts)"
accepted=0
for r in "${rules[@]}"; do
  e=$(entry "$work/limited.json" "$r") || fail "no entry for rule '$r'"
  m=$(count "$e" mutants) n=$(count "$e" refused)
  [ "$m" -ge 1 ] || fail "rule '$r' made no mutant in the seed range"
  [ "$n" = 0 ] || fail "rule '$r': $n of $m refused at the test values only (racy there?)"
  accepted=$((accepted + m))
  echo "test values only: '$r': $m mutants, all accepted"
done
# The false accepts are exactly the range-dependent rules' mutants: no other rule needs
# the values away from the test value.
fa=$(grep -o '"false_accept": [0-9]*' "$work/limited.json" | head -1 | grep -o '[0-9]*$')
[ "$fa" = "$accepted" ] || fail "$fa false accepts, expected $accepted (the rules' mutants)"

run "$work/full.json" || fail "without the switch: exit $?, expected 0"
grep -q '"findings": \[\]' "$work/full.json" || fail "findings without the switch"
for r in "${rules[@]}"; do
  e=$(entry "$work/full.json" "$r") || fail "no entry for rule '$r'"
  m=$(count "$e" mutants) n=$(count "$e" refused)
  [ "$m" -ge 1 ] && [ "$n" = "$m" ] || fail "rule '$r': $n of $m refused over the ranges"
  echo "every value: '$r': $m mutants, all refused with its DiagId"
done
echo PASS
