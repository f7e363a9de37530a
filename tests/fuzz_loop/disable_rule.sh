#!/usr/bin/env bash
# The test-only rule switch (PTXGEN_TEST_DISABLE_RULE, docs/fuzzing.md) shows the fuzzer finds
# a class: a short seeded simulator run of the bulk family with check_bulk_refill disabled
# reports false accepts (the refill mutants, which check now accepts), and the same run with
# the rule on reports none and refuses every refill mutant with check_bulk_refill.
# usage: disable_rule.sh PTXGEN WORKDIR
set -u
ptxgen=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
rule="refill of the stored tile without the storer's bulk_wait read"
run() { # REPORT
  "$ptxgen" fuzz --family bulk --seed 1 --count 12 --backend sim -j 2 --mutants 100 \
    --no-shrink --report "$1"
}
count() { grep -o "\"$2\": [0-9]*" <<<"$1" | head -1 | grep -o '[0-9]*$'; }
entry() { grep -o "{\"rule\": \"$(sed 's/[][\.*^$/]/\\&/g' <<<"$2")\", [^}]*}" "$1"; }

PTXGEN_TEST_DISABLE_RULE=check_bulk_refill run "$work/disabled.json"
rc=$?
[ "$rc" = 1 ] || fail "rule disabled: exit $rc, expected 1 (false accepts)"
fa=$(count "$(cat "$work/disabled.json")" false_accepts)
[ "${fa:-0}" -ge 1 ] || fail "rule disabled: $fa false accepts, expected at least 1"
e=$(entry "$work/disabled.json" "$rule") || fail "no entry for rule '$rule'"
m=$(count "$e" mutants) n=$(count "$e" refused)
[ "$m" -ge 1 ] && [ "$n" = 0 ] || fail "rule disabled: '$rule' $n of $m refused"
echo "check_bulk_refill disabled: $fa false accepts ('$rule': $m mutants, none refused)"

run "$work/enabled.json" || fail "rule enabled: exit $?, expected 0"
fa=$(count "$(cat "$work/enabled.json")" false_accepts)
[ "$fa" = 0 ] || fail "rule enabled: $fa false accepts"
e=$(entry "$work/enabled.json" "$rule") || fail "no entry for rule '$rule'"
m=$(count "$e" mutants) n=$(count "$e" refused)
[ "$m" -ge 1 ] && [ "$n" = "$m" ] || fail "rule enabled: '$rule' $n of $m refused"
echo "check_bulk_refill enabled: 0 false accepts ('$rule': $m of $m refused)"
echo PASS
