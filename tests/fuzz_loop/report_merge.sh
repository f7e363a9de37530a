#!/usr/bin/env bash
# `ptxgen report merge` of a simulated 16-task Slurm job array equals the single-process
# campaign's report (the same counts, tallies and kept findings; only times differ), a
# Kubernetes Indexed Job's 4 conformance shards (of specs/faults, kernels that must
# fault) merge to the unsharded run's cases, and the
# merge refuses a missing shard, a shard given twice, and reports of two kinds.
# usage: report_merge.sh PTXGEN SPECS_DIR WORKDIR
set -u
ptxgen=$1 specs=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# Findings to merge: with a rule disabled (a test-only switch) the fuzzer finds false accepts.
fuzz=(fuzz --family bulk --target sm_90 --seed 1 --count 64 --backend sim -j 2 --mutants 100
  --per-class 2 --no-shrink)
PTXGEN_TEST_DISABLE_RULE=check_bulk_refill "$ptxgen" "${fuzz[@]}" --report "$work/single.json" \
  >"$work/single.log" 2>&1
[ $? = 1 ] || fail "the single campaign should have findings (exit 1)"
for task in $(seq 1 16); do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=16 \
    PTXGEN_TEST_DISABLE_RULE=check_bulk_refill "$ptxgen" "${fuzz[@]}" \
    --report "$work/task$task.json" >"$work/task$task.log" 2>&1
  grep -q "\"shard\": \"$((task - 1))/16\"" "$work/task$task.json" ||
    fail "Slurm task $task did not run shard $((task - 1))/16"
done
"$ptxgen" report merge -o "$work/merged.json" "$work"/task*.json || fail "merge exited $?"
python3 - "$work/single.json" "$work/merged.json" <<'PY' || fail "merged != single"
import json, sys
single, merged = (json.load(open(p)) for p in sys.argv[1:3])
timing = {"wall_seconds", "shrink_seconds", "specs_per_hour", "devices", "backends"}
bad = [k for k in single if k not in timing and single[k] != merged.get(k)]
for k in bad:
    print(f"{k}: single {json.dumps(single[k])[:200]}\n   merged {json.dumps(merged.get(k))[:200]}")
cases = lambda r: {b["backend"]: b["cases"] for b in r["backends"]}
if cases(single) != cases(merged):
    bad.append("backends' cases")
if single["findings_total"] < 2 or not single["findings"]:
    bad.append("no findings to compare")
print(f"{single['specs']} specs, {single['mutants']} mutants, {single['findings_total']} findings "
      f"({len(single['findings'])} kept): merged == single" if not bad else "differs")
sys.exit(1 if bad else 0)
PY
# Conformance: 4 pods of an Indexed Job (JOB_COMPLETION_INDEX, --shard-count 4).
"$ptxgen" run --backend sim "$specs" --report "$work/run.json" >/dev/null 2>&1 ||
  fail "the unsharded run failed"
for i in 0 1 2 3; do
  JOB_COMPLETION_INDEX=$i "$ptxgen" run --backend sim --shard-count 4 "$specs" \
    --report "$work/run$i.json" >/dev/null 2>&1 || fail "pod $i failed"
done
"$ptxgen" report merge -o "$work/run_merged.json" "$work"/run[0-3].json || fail "run merge exited $?"
python3 - "$work/run.json" "$work/run_merged.json" <<'PY' || fail "merged run != unsharded run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(c["spec"], c["status"], c["diag_ids"]) for c in r["cases"]]
ok = a["summary"] == b["summary"] and key(a) == key(b) and len(a["cases"]) >= 4
print(f"{len(a['cases'])} cases: {'merged == unsharded' if ok else 'differs'}")
sys.exit(0 if ok else 1)
PY
# Refusals, each naming what is wrong.
expect_refusal() { # WHAT MESSAGE ARGS...
  local what=$1 says=$2
  shift 2
  out=$("$ptxgen" report merge "$@" 2>&1)
  rc=$?
  [ $rc = 1 ] || fail "$what: exit $rc, expected 1"
  grep -q -- "$says" <<<"$out" || fail "$what: '$out' does not say '$says'"
}
expect_refusal "a missing shard" "shards missing: 3/16" $(ls "$work"/task*.json | grep -v 'task4.json')
expect_refusal "a shard twice" "is also" "$work/task1.json" "$work/task1.json"
expect_refusal "two kinds" "other kind" "$work/task1.json" "$work/run0.json"
printf '{"specs": 1,\n  "mutants": x}\n' >"$work/bad.json"
expect_refusal "bad JSON" "bad.json:2:" "$work/bad.json"
"$ptxgen" report merge --allow-missing "$work/task1.json" >"$work/partial.json" ||
  fail "--allow-missing exited $?"
grep -q '"missing_shards"' "$work/partial.json" || fail "--allow-missing: no missing_shards"
echo PASS
