#!/usr/bin/env bash
# issue 12, sass-trap: the toolchain traps on the GPU machine (docs/conformance.md,
# "Toolchain traps"), from the repository root, with build-device/ptxgen from
# tools/build_device.sh:
#  (a) the regression entry tests/traps/ldgsts_unwritten_uniform.ptx faults on
#      the GPU and `ptxgen run` names the ptxas miscompile; its control without
#      the hint passes; `asm --sass` flags the entry and nvcc's cutlass_hint -O3
#      code, not the -G code;
#  (b) no cubin of any ptxgen spec carries a known signature: specs/ (but
#      invalid/, races/, wrong_kernel/ and faults/) as `run` emits them (sm_80 PTX) and lowered for
#      sm_90, each assembled for sm_90; the faults/ specs, which fault on the
#      GPU by design, are scanned by `run` and carry none either;
#  (c) the same as (b) over every directory given as an argument (e.g. the
#      fuzzer's findings or a dump of generated specs: every *.toml under it).
# usage: tools/sass_traps_device.sh [SPEC_DIR...]. Logs under $OUT/sass_traps
# (default /tmp/ptxgen-sass-traps); a table last; exit 1 when a check failed.
set -u
log=${OUT:-/tmp/ptxgen-sass-traps}/sass_traps
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$log"
bin=${PTXGEN:-build-device/ptxgen}
jobs=$(nproc)
failures=0
table=()
result() { # result OK|FAIL TEXT
  table+=("$(printf '%-4s %s' "$1" "$2")")
  [ "$1" = ok ] || failures=$((failures + 1))
}
expect_rc() { # expect_rc WANT GOT TEXT
  if [ "$2" -eq "$1" ]; then result ok "$3"; else result FAIL "$3 (exit status $2, expected $1)"; fi
}

{
  device_machine
  ptxas --version | tail -1
  cuobjdump --version | tail -1
} > "$log/machine.txt" 2>&1

# (a) the regression entry, its control, nvcc's cutlass_hint.
entry=tests/traps/ldgsts_unwritten_uniform
timeout 120 "$bin" run --backend cuda --ptx "$entry.ptx" --report "$log/trap.json" "$entry.toml" \
  > "$log/trap.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q '"status": "fault"' "$log/trap.json" &&
  grep -q '"traps": \[{"id": "ldgsts_unwritten_uniform"' "$log/trap.json" &&
  grep -q 'the device rejected PTX that ptxas accepted: ptxas miscompile ldgsts_unwritten_uniform' \
    "$log/trap.json"; then
  result ok "run --backend cuda $entry.ptx: fault, trap ldgsts_unwritten_uniform reported"
else
  result FAIL "run --backend cuda $entry.ptx: no fault with the trap report (exit status $rc)"
fi
timeout 120 "$bin" run --backend cuda --ptx tests/foreign/ptx/cutlass_hint.sm90.O3.ptx \
  --entry _Z12cutlass_hintPKjPj --report "$log/cutlass_hint.json" tests/foreign/specs/cutlass_hint.toml \
  > "$log/cutlass_hint.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q '"traps": \[{"id": "ldgsts_unwritten_uniform"' "$log/cutlass_hint.json"; then
  result ok "run --backend cuda cutlass_hint.sm90.O3.ptx (nvcc): fault, trap reported"
else
  result FAIL "run --backend cuda cutlass_hint.sm90.O3.ptx (nvcc): no trap report (exit status $rc)"
fi
timeout 120 "$bin" run --backend cuda --ptx "$entry.nohint.ptx" --report "$log/control.json" \
  "$entry.toml" > "$log/control.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '"status": "pass"' "$log/control.json"; then
  result ok "run --backend cuda $entry.nohint.ptx: pass (the control without the hint)"
else
  result FAIL "run --backend cuda $entry.nohint.ptx: did not pass (exit status $rc)"
fi
for ptx in "$entry.ptx" tests/foreign/ptx/cutlass_hint.sm90.O3.ptx \
  tests/foreign/ptx/cutlass_hint.sm80.O3.ptx tests/foreign/ptx/cutlass_hint.sm90.G.ptx \
  tests/foreign/ptx/cutlass_hint.sm80.G.ptx "$entry.nohint.ptx"; do
  name=$(basename "$ptx" .ptx)
  timeout 120 "$bin" asm --arch sm_90 --sass "$ptx" > "$log/$name.sass" 2> "$log/$name.err"
  rc=$?
  case $name in
  *.G | *.nohint) want=0 ;;
  *) want=1 ;;
  esac
  matches=$(grep -c 'warning: ptxas miscompile ldgsts_unwritten_uniform' "$log/$name.err")
  if [ $rc -eq $want ] && { [ $want -eq 0 ] && [ "$matches" -eq 0 ] || [ "$matches" -ge 1 ]; }; then
    result ok "asm --sass --arch sm_90 $ptx: exit $rc, $matches signature(s)"
  else
    result FAIL "asm --sass --arch sm_90 $ptx: exit $rc (expected $want), $matches signature(s)"
  fi
done

# scan TAG FILE...: asm --sass --arch sm_90 over the files; no signature may match.
scan() {
  local tag=$1
  shift
  timeout 300 "$bin" asm --arch sm_90 --sass -j "$jobs" "$@" > "$log/$tag.sass" 2> "$log/$tag.err"
  local rc=$?
  local matches functions ldgsts
  matches=$(grep -c 'miscompile' "$log/$tag.err")
  functions=$(grep -c 'Function : ' "$log/$tag.sass")
  ldgsts=$(grep -c ' LDGSTS' "$log/$tag.sass")
  if [ $rc -eq 0 ] && [ "$matches" -eq 0 ] && [ "$functions" -ge $# ]; then
    result ok "$tag: $# inputs, $functions kernels, $ldgsts LDGSTS scanned, 0 signatures"
  else
    result FAIL "$tag: exit status $rc, $# inputs, $functions kernels, $matches signature(s) (see $tag.err)"
  fi
}

# (b) every ptxgen spec, as `run` emits it (sm_80 PTX) and lowered for sm_90.
# (Not races/ and wrong_kernel/: emit refuses them, as check does, so they have no PTX.)
mapfile -t specs < <(find specs -name '*.toml' -not -path 'specs/invalid/*' \
  -not -path 'specs/faults/*' -not -path 'specs/races/*' -not -path 'specs/wrong_kernel/*' |
  sort)
scan specs.sm80ptx "${specs[@]}"
sm90=$(mktemp -d)
for dir in $(printf '%s\n' "${specs[@]}" | xargs -n1 dirname | sort -u); do
  "$bin" emit --target sm_90 --out-dir "$sm90/$dir" "$dir"/*.toml > /dev/null 2>> "$log/emit-sm90.err"
done
mapfile -t ptx90 < <(find "$sm90" -name '*.ptx' | sort)
if [ ${#ptx90[@]} -eq ${#specs[@]} ]; then
  scan specs.sm90ptx "${ptx90[@]}"
else
  result FAIL "emit --target sm_90: ${#ptx90[@]} PTX files for ${#specs[@]} specs (emit-sm90.err)"
fi
rm -rf "$sm90"
grep -c "^// specs/cache_hint/" "$log/specs.sm80ptx.sass" > "$log/cache_hint_count.txt"
timeout 300 "$bin" run --backend cuda --report "$log/faults.json" specs/faults > "$log/faults.log" 2>&1
cases=$(grep -c '"spec": ' "$log/faults.json")
passed=$(grep -c '"status": "pass"' "$log/faults.json") # a faults/ spec passes when it faults
clean=$(grep -c '"traps": \[\]' "$log/faults.json")
if grep -q '"setup": "ready"' "$log/faults.json" && [ "$cases" -gt 0 ] &&
  [ "$passed" -eq "$cases" ] && [ "$clean" -eq "$cases" ]; then
  result ok "run --backend cuda specs/faults: $cases cases fault as designed, none with a signature"
else
  result FAIL "run --backend cuda specs/faults: $cases cases, $passed faulted, $clean without a signature"
fi

# (c) more spec directories (the fuzzer's).
for dir in "$@"; do
  mapfile -t more < <(find "$dir" -name '*.toml' | sort)
  if [ ${#more[@]} -gt 0 ]; then
    scan "extra.$(basename "$dir")" "${more[@]}"
  else
    result FAIL "$dir: no *.toml"
  fi
done

cat "$log/machine.txt"
printf '%s\n' "${table[@]}" | tee "$log/table.txt"
echo "cache-hint specs among them: $(cat "$log/cache_hint_count.txt")"
[ $failures -eq 0 ]
