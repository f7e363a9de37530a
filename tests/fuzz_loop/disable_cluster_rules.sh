#!/usr/bin/env bash
# Each rule of the cluster family (driver/fuzz/mutate_cluster.cpp) is one the fuzzer finds:
# a short seeded simulator run of the cluster family with every rule on refuses each of its
# mutants with its rule's DiagId and reports no finding; the same run with that rule
# disabled (PTXGEN_TEST_DISABLE_RULE) refuses none of them with it and reports each as a
# finding: a false accept, or a refusal by another rule (wrong_refusal-...), where another
# check still catches the mutant (the mbarrier walk's byte and arrival counts behind the
# init-fence and expect_tx rules, for one).
# usage: disable_cluster_rules.sh PTXGEN WORKDIR
set -u
ptxgen=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# DiagId|mutation rule (driver/fuzz/mutate.cpp), one line per rule; a DiagId may have several.
cases="contract_multicast_mask|multicast mask naming the rank past the cluster
contract_multicast_init|multicast without the barriers' mbarrier_init_fence
contract_multicast_expect_tx|multicast: expect_tx on one CTA's barrier only
contract_multicast_exit|multicast without the closing cluster_sync
contract_peer_rank|peer view's rank one more (the last rank names rank C)
check_cluster_shared_race|DSMEM write and a peer's read without the cluster_sync between
contract_peer_exit|peer access without the closing cluster_sync
check_cluster_shared_race|DSMEM: the cluster_sync between a write and a peer's read relaxed
contract_peer_exit|peer access followed by a relaxed closing cluster_sync only
contract_peer_copy_init|bulk_copy_peer without the barriers' mbarrier_init_fence
contract_peer_copy_expect_tx|bulk_copy_peer: expect_tx on rank 0's barrier only
contract_peer_copy_exit|bulk_copy_peer: no receiver waits for the copy
check_peer_copy_refill|bulk_copy_peer: source rewritten after the sender's own wait
contract_remote_arrive_init|remote arrivals without the barriers' mbarrier_init_fence
contract_multicast_refill|multicast ring: the empty count covering the local consumers only
contract_multicast_refill|multicast ring: the consumers arriving on their own CTA's empty only
contract_multicast_refill|multicast ring: one receiving CTA's arrivals dropped, the empty count one less
contract_mbarrier_count|multicast ring: one receiving CTA's arrivals dropped, the empty count kept
contract_multicast_refill|multicast ring: the refill issued before the empty wait
contract_multicast_refill|multicast ring: the consumers' arrival before their cta_sync
contract_mbarrier_count|multicast ring: the empty count one, the remote arrivals kept"
# Seeds 40..53 (generator version 7) hold every shape of the family, two multicast rings among
# them: 14 specs a run keep the test's time as it was with 24 and two fewer disabled rules.
run() { # REPORT
  "$ptxgen" fuzz --family cluster --target sm_90 --seed 40 --count 14 --backend sim -j 2 \
    --mutants 100 --no-shrink --report "$1" > "$1.log" 2>&1
}
count() { grep -o "\"$2\": [0-9]*" <<<"$1" | head -1 | grep -o '[0-9]*$'; }
entry() { grep -o "{\"rule\": \"$(sed 's/[][\.*^$/]/\\&/g' <<<"$2")\", [^}]*}" "$1"; }

run "$work/enabled.json" || fail "every rule on: exit $?, expected 0"
all=$(cat "$work/enabled.json")
[ "$(count "$all" false_accepts)" = 0 ] || fail "every rule on: false accepts"
[ "$(count "$all" findings_total)" = 0 ] || fail "every rule on: findings"
while IFS='|' read -r id what; do
  e=$(entry "$work/enabled.json" "$what") || fail "no entry for rule '$what'"
  m=$(count "$e" mutants) n=$(count "$e" refused)
  [ "$m" -ge 1 ] && [ "$n" = "$m" ] || fail "every rule on: '$what' $n of $m refused"
  echo "on:  '$what': $m of $m refused with $id"
done <<<"$cases"

for id in $(cut -d'|' -f1 <<<"$cases" | sort -u); do
  PTXGEN_TEST_DISABLE_RULE=$id run "$work/$id.json"
  rc=$?
  [ "$rc" = 1 ] || fail "$id disabled: exit $rc, expected 1 (findings)"
  total=0
  while IFS='|' read -r rid what; do
    [ "$rid" = "$id" ] || continue
    e=$(entry "$work/$id.json" "$what") || fail "no entry for rule '$what'"
    m=$(count "$e" mutants) n=$(count "$e" refused)
    [ "$m" -ge 1 ] && [ "$n" = 0 ] || fail "$id disabled: '$what' $n of $m refused with it"
    total=$((total + m))
  done <<<"$cases"
  f=$(count "$(cat "$work/$id.json")" findings_total)
  [ "${f:-0}" -ge "$total" ] || fail "$id disabled: $f findings for its $total mutants"
  echo "off: $id: $total mutants, $f findings ($(count "$(cat "$work/$id.json")" false_accepts) false accepts)"
done
echo PASS
