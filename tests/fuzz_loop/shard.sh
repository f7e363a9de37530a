#!/usr/bin/env bash
# `ptxgen fuzz --shard I/C`: the shards of one seed range together run every spec once
# (the counts of 3 shards of 31 seeds add up to 31, 11+10+10), and the test runner's
# TEST_SHARD_INDEX / TEST_TOTAL_SHARDS / XML_OUTPUT_FILE give the shard and a JUnit
# report named with it.
# usage: shard.sh PTXGEN WORKDIR
set -u
ptxgen=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
total=0
for i in 0 1 2; do
  "$ptxgen" fuzz --seed 5 --count 31 --backend sim -j 2 --shard "$i/3" \
    --report "$work/shard$i.json" || fail "shard $i/3 exited $?"
  grep -q "\"shard\": \"$i/3\"" "$work/shard$i.json" || fail "shard $i/3 not in its report"
  n=$(grep -o '"specs": [0-9]*' "$work/shard$i.json" | grep -o '[0-9]*$')
  want=$((i == 0 ? 11 : 10))
  [ "$n" = "$want" ] || fail "shard $i/3 ran $n specs, expected $want"
  total=$((total + n))
done
[ "$total" = 31 ] || fail "the shards ran $total specs together, expected 31"
TEST_TOTAL_SHARDS=3 TEST_SHARD_INDEX=1 XML_OUTPUT_FILE="$work/junit.xml" \
  TEST_SHARD_STATUS_FILE="$work/status" "$ptxgen" fuzz --seed 5 --count 31 --backend sim -j 2 ||
  fail "the environment's shard exited $?"
grep -q '<testsuite name="ptxgen fuzz shard 1/3"' "$work/junit.xml" || fail "no JUnit for shard 1/3"
grep -q 'name="10 specs' "$work/junit.xml" || fail "shard 1/3 of 31 did not run 10 specs"
[ -e "$work/status" ] || fail "TEST_SHARD_STATUS_FILE not touched"
echo PASS
