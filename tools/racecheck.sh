#!/usr/bin/env bash
# compute-sanitizer racecheck over valid specs, on the GPU machine, from the
# repository root, with the binaries of tools/build_device.sh in build-device/.
# Each spec runs on its own (`ptxgen run --backend cuda SPEC` under
# `compute-sanitizer --tool racecheck --target-processes all`, so the forked
# worker that launches the kernel is checked) with a time limit per spec, so a
# sanitizer that hangs or crashes costs one spec, not the sweep.
#
#   tools/racecheck.sh specs/loops specs/pipeline ...   (directories or files)
#
# Logs go to $OUT/racecheck/ (default /tmp/ptxgen-device); a table last:
# spec, the run's exit status, the sanitizer's hazard count ("-" when it
# printed no summary: then the sanitizer did not check the kernel, and the
# spec counts as FAILED, never as clean) and the verdict (clean / HAZARDS /
# FAILED / TIMEOUT). RACECHECK_CONTROL=SPEC adds a positive control run with
# `--unchecked` (a race spec): it must come out HAZARDS.
set -u
out=${OUT:-/tmp/ptxgen-device}/racecheck
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bin=build-device/ptxgen
limit=${RACECHECK_TIMEOUT:-90}
specs=()
for a in "$@"; do
  if [ -d "$a" ]; then
    while IFS= read -r f; do specs+=("$f"); done < <(find "$a" -name '*.toml' -not -path '*/invalid/*' \
      -not -path '*/faults/*' -not -path '*/races/*' | sort)
  else
    specs+=("$a")
  fi
done
clean=0
bad=0
table=""
control=${RACECHECK_CONTROL:-}
for s in ${control:+"$control"} "${specs[@]}"; do
  extra=()
  [ "$s" = "$control" ] && extra=(--unchecked)
  log="$out/$(echo "$s" | tr '/' '_').log"
  timeout -k 10 "$limit" compute-sanitizer --tool racecheck --racecheck-report hazard \
    --target-processes all --error-exitcode 9 "$bin" run --backend cuda "${extra[@]}" "$s" > "$log" 2>&1
  rc=$?
  hazards=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null)
  [ -z "$hazards" ] && hazards="-"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    verdict=TIMEOUT
  elif [ "$rc" = 0 ] && [ "$hazards" = 0 ] && ! grep -q 'ERROR SUMMARY: [1-9]' "$log"; then
    verdict=clean
  elif [ "$rc" = 9 ] || { [ "$hazards" != "-" ] && [ "$hazards" != 0 ]; }; then
    verdict=HAZARDS
  else
    verdict=FAILED
  fi
  if [ "$s" = "$control" ]; then
    verdict="control:$verdict"
  elif [ "$verdict" = clean ]; then
    clean=$((clean + 1))
  else
    bad=$((bad + 1))
  fi
  table+="$(printf '%-60s %3s %7s %s' "$s" "$rc" "$hazards" "$verdict")"$'\n'
done
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  compute-sanitizer --version | tail -1
  printf '%-60s %3s %7s %s\n' spec rc hazards verdict
  printf '%s' "$table"
  echo "racecheck: ${#specs[@]} specs, $clean clean, $bad not clean"
} | tee "$out/summary.txt"
