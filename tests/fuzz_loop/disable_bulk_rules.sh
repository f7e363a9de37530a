#!/usr/bin/env bash
# Each ordering rule of the bulk family that the generator's new shapes exercise
# (gen_bulk_proxy.cpp: a generic write before an async-proxy access, a read-back after
# another thread's bulk wait, a write over a pending bulk store) is one the fuzzer can find:
# a short seeded simulator run of the bulk family with that rule disabled
# (PTXGEN_TEST_DISABLE_RULE) reports false accepts and accepts every mutant of the rule,
# and the same run with every rule on reports none and refuses each of them with its rule.
# usage: disable_bulk_rules.sh PTXGEN WORKDIR
set -u
ptxgen=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# DiagId|mutation rule (driver/fuzz/mutate.cpp), one line per rule and mutant.
cases="check_proxy_fence_load|fill before a load of the same bytes without the proxy fence
check_proxy_fence_load|fill before a load, its proxy fence of the global space only
check_proxy_fence_global|global writes before a bulk load of them without the proxy fence
check_proxy_fence_global|global writes before a bulk load, their proxy fence of shared::cta only
check_bulk_wait_scope|read-back of a bulk store's bytes after the storer's wait, without cta_sync
check_bulk_global_write_race|copy into a pending bulk store's global bytes"
run() { # REPORT
  "$ptxgen" fuzz --family bulk --seed 1 --count 40 --backend sim -j 2 --mutants 100 \
    --no-shrink --report "$1" > "$1.log" 2>&1
}
count() { grep -o "\"$2\": [0-9]*" <<<"$1" | head -1 | grep -o '[0-9]*$'; }
entry() { grep -o "{\"rule\": \"$(sed 's/[][\.*^$/]/\\&/g' <<<"$2")\", [^}]*}" "$1"; }

run "$work/enabled.json" || fail "every rule on: exit $?, expected 0"
fa=$(count "$(cat "$work/enabled.json")" false_accepts)
[ "$fa" = 0 ] || fail "every rule on: $fa false accepts"
while IFS='|' read -r id what; do
  e=$(entry "$work/enabled.json" "$what") || fail "no entry for rule '$what'"
  m=$(count "$e" mutants) n=$(count "$e" refused)
  [ "$m" -ge 1 ] && [ "$n" = "$m" ] || fail "every rule on: '$what' $n of $m refused"
  echo "on:  '$what': $m of $m refused with $id"
done <<<"$cases"

for id in $(cut -d'|' -f1 <<<"$cases" | uniq); do
  PTXGEN_TEST_DISABLE_RULE=$id run "$work/$id.json"
  rc=$?
  [ "$rc" = 1 ] || fail "$id disabled: exit $rc, expected 1 (false accepts)"
  fa=$(count "$(cat "$work/$id.json")" false_accepts)
  [ "${fa:-0}" -ge 1 ] || fail "$id disabled: $fa false accepts, expected at least 1"
  while IFS='|' read -r rid what; do
    [ "$rid" = "$id" ] || continue
    e=$(entry "$work/$id.json" "$what") || fail "no entry for rule '$what'"
    m=$(count "$e" mutants) n=$(count "$e" refused)
    [ "$m" -ge 1 ] && [ "$n" = 0 ] || fail "$id disabled: '$what' $n of $m refused"
  done <<<"$cases"
  echo "off: $id: $fa false accepts"
done
echo PASS
