#!/usr/bin/env bash
# The dry path of tools/fuzz_rules_device.sh on the simulator (--backend sim): one rule
# disabled, a short campaign that reports false accepts, the accepted mutants saved and run
# again, where the simulator (the oracle here; the GPU on the device machine) faults on
# them, and the table printed last with the report's figures.
# usage: rules_device_dry.sh PTXGEN WORKDIR (run from the repository root)
set -u
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
rule=check_proxy_fence_load
PTXGEN=$bin JOBS=2 bash tools/fuzz_rules_device.sh --backend sim --seed 1 --count 24 --keep 3 \
  --out "$work" "$rule" > "$work/stdout" 2>&1
rc=$?
cat "$work/stdout"
[ $rc = 0 ] || fail "exit status $rc"
report=$work/$rule/report.json
fa=$(sed -n 's/^  "false_accepts": \([0-9]*\),$/\1/p' "$report")
[ -n "$fa" ] && [ "$fa" -ge 1 ] || fail "false accepts '$fa' in the report"
# The row: rule, specs, the rule's mutants, refused (none), false accepts, accepted, sim.
row=$(grep "^$rule " "$work/stdout") || fail "no row for $rule"
read -r _ specs m r f n sim _ <<<"$row"
[ "$specs" = 24 ] && [ "$m" -ge 1 ] && [ "$r" = 0 ] && [ "$f" = "$fa" ] || fail "row '$row'"
[ "$n" = 3 ] && [ "$(ls "$work/$rule/accepted" | wc -l)" = 3 ] || fail "accepted specs: '$n'"
# pass/mismatch/fault/error: the simulator sees the missing fence in every accepted mutant.
[ "$sim" = "0/0/3/0" ] || fail "the simulator's verdicts '$sim', expected 3 faults"
grep -q '"race"\|race' "$work/$rule/run-sim.log" || fail "no race in the simulator's log"
echo ok
