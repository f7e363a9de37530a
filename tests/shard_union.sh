#!/usr/bin/env bash
# `ptxgen run --shard` on the simulator: the shards of a directory together run
# every spec of the unsharded run exactly once; the test runners' protocol
# (TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, TEST_SHARD_STATUS_FILE, XML_OUTPUT_FILE)
# picks the same shard as the flag; a flag that contradicts it is a usage error;
# a shard with no spec passes. Usage: shard_union.sh PTXGEN DIR OUTDIR
set -u
bin=$1 dir=$2 out=$3
count=3
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
# The specs a JSON report names, one a line.
json_specs() { grep -o '"spec": "[^"]*"' "$1" | sed 's/^"spec": "//; s/"$//'; }

"$bin" run --backend sim --report "$out/all.json" "$dir" > "$out/all.log" 2>&1 ||
  { cat "$out/all.log"; fail "the unsharded run"; }
json_specs "$out/all.json" | sort > "$out/all.txt"
total=$(wc -l < "$out/all.txt")
[ "$total" -ge "$count" ] || fail "need at least $count specs in $dir, found $total"

: > "$out/shards.txt"
for ((i = 0; i < count; i++)); do
  "$bin" run --backend sim --shard "$i/$count" --report "$out/shard$i.json" "$dir" \
    > "$out/shard$i.log" 2>&1 || { cat "$out/shard$i.log"; fail "shard $i/$count"; }
  grep -q "\"shard\": {\"index\": $i, \"count\": $count}" "$out/shard$i.json" ||
    fail "the report of shard $i/$count does not name it"
  grep -q "specs (shard $i/$count of $total)" "$out/shard$i.log" ||
    fail "the summary of shard $i/$count does not name it"
  n=$(json_specs "$out/shard$i.json" | tee -a "$out/shards.txt" | wc -l)
  [ "$n" -gt 0 ] || fail "shard $i/$count ran no spec"
done
dups=$(sort "$out/shards.txt" | uniq -d)
[ -z "$dups" ] || fail "specs run by two shards: $dups"
sort "$out/shards.txt" | diff "$out/all.txt" - || fail "the shards together are not the whole set"

# The test runner's environment asks for shard 1; JUnit goes to XML_OUTPUT_FILE.
TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=$count TEST_SHARD_STATUS_FILE="$out/status" \
  XML_OUTPUT_FILE="$out/junit.out" "$bin" run --backend sim "$dir" > "$out/env.log" 2>&1 ||
  { cat "$out/env.log"; fail "the run sharded by the environment"; }
[ -f "$out/status" ] || fail "TEST_SHARD_STATUS_FILE was not touched"
grep -q "<testsuite name=\"ptxgen conformance (shard 1/$count)\"" "$out/junit.out" ||
  fail "the JUnit at XML_OUTPUT_FILE does not name the shard"
grep -o '<testcase classname="conformance" name="[^"]*"' "$out/junit.out" |
  sed 's/.* name="//; s/"$//' | sort > "$out/env.txt"
json_specs "$out/shard1.json" | sort | diff - "$out/env.txt" ||
  fail "the environment's shard 1 differs from --shard 1/$count"

# A flag that contradicts the environment is a usage error (2).
TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=$count "$bin" run --backend sim --shard "0/$count" "$dir" \
  > "$out/conflict.log" 2>&1
rc=$?
[ "$rc" = 2 ] || { cat "$out/conflict.log"; fail "--shard against the environment: exit $rc, not 2"; }

# More shards than specs: the last shard holds none, and passes.
"$bin" run --backend sim --shard "$total/$((total + 1))" --report "$out/empty.json" "$dir" \
  > "$out/empty.log" 2>&1 || { cat "$out/empty.log"; fail "an empty shard did not pass"; }
grep -q '"cases": \[' "$out/empty.json" || fail "the empty shard wrote no report"
echo "ok: $count shards cover the $total specs of $dir once"
