#!/usr/bin/env bash
# issue 12, fuzz-wire: the dry path of tools/fuzz_device.sh on the simulator: a short
# run (BACKEND=sim) whose table is read from the JSON report, and the trap scan's
# sample (a stand-in scan script counts what it is given): SCAN_MAX of the kept specs;
# then a run with findings (the hidden --inject-fault): exit 1, the class in the table.
# usage: device_script_dry.sh PTXGEN WORKDIR (run from the repository root)
set -u
bin=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
OUT=$work BACKEND=sim TIME=1 SEED=5 JOBS=2 MUTANTS=1 SCAN_MAX=10 PTXGEN=$bin \
  SASS_TRAPS=tests/fuzz_loop/fake_sass_traps.sh bash tools/fuzz_device.sh > "$work/stdout" 2>&1
rc=$?
cat "$work/stdout"
fail() { echo "FAIL: $*"; exit 1; }
[ $rc = 0 ] || fail "exit status $rc"
report=$work/fuzz/report.json
specs=$(sed -n 's/^  "specs": \([0-9]*\),$/\1/p' "$report")
[ -n "$specs" ] && [ "$specs" -gt 10 ] || fail "specs '$specs' in the report"
grep -q '"seed": 5,' "$report" || fail "seed not in the report"
# The table's figures are the report's.
grep -qx "specs:         $specs in .*" "$work/fuzz/table.txt" || fail "specs not in the table"
grep -qx 'seed, shard:   5, 0/1   sanitize: null' "$work/fuzz/table.txt" || fail "seed, shard"
grep -qx 'findings:      0' "$work/fuzz/table.txt" || fail "findings"
grep -q '^specs/hour:    [1-9][0-9]*$' "$work/fuzz/table.txt" || fail "specs/hour"
# The sample: SCAN_MAX of the kept specs, spread over them, tarred.
grep -q "^trap scan:     10 of $specs specs (evenly spread): ok   extra.sample: 10 inputs" \
  "$work/fuzz/table.txt" || fail "the scan's sample"
[ "$(tar -tzf "$work/fuzz/scan_sample.tar.gz" | grep -c '\.toml$')" = 10 ] || fail "sample tar"
[ -s "$work/fuzz/command.txt" ] && [ -s "$work/fuzz/fuzz.log" ] || fail "command, log"
# Findings: every spec with a cp.async.cg has one byte of the simulator's output flipped.
OUT=$work/faulty BACKEND=sim TIME=1 SEED=5 JOBS=2 MUTANTS=0 SCAN=0 PTXGEN=$bin \
  FUZZ_ARGS="--inject-fault cp.async.cg --no-shrink" bash tools/fuzz_device.sh \
  > "$work/faulty.stdout" 2>&1
rc=$?
cat "$work/faulty.stdout"
[ $rc = 1 ] || fail "exit status $rc with findings"
n=$(sed -n 's/^  "findings_by_class": {"sim_mismatch": \([0-9]*\)},$/\1/p' "$work/faulty/fuzz/report.json")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "findings_by_class in the report"
grep -qx "findings:      $n" "$work/faulty/fuzz/table.txt" || fail "findings in the table"
grep -qx "  sim_mismatch: $n" "$work/faulty/fuzz/table.txt" || fail "the class in the table"
[ "$(grep -c '^  [a-z_]*: [0-9]*$' "$work/faulty/fuzz/table.txt")" = 1 ] ||
  fail "a class that is no finding in the table"
grep -qx 'trap scan:     skipped (SCAN=0)' "$work/faulty/fuzz/table.txt" || fail "SCAN=0"
tar -tzf "$work/faulty/fuzz/findings.tar.gz" | grep -q '^findings/sim_mismatch-[0-9]*/spec.toml$' ||
  fail "findings.tar.gz"
echo ok
