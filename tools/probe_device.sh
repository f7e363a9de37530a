#!/usr/bin/env bash
# The TMA/bulk-copy probe suite (tools/probes/, docs/ptx-bulk.md "Measured by
# the probe suite"): builds tools/probes/probe.cu with nvcc for sm_90a into a
# temporary directory, checks its host-side analysis (--self-test), runs every
# probe on the GPU and prints the table last. Needs no ptxgen build.
#
#   tools/probe_device.sh               build, self-test, run (the GPU machine)
#   tools/probe_device.sh --build-only  build and self-test only (no GPU needed)
#
# Environment (optional): OUT (default /tmp/ptxgen-device): the table goes to
# $OUT/probes/probes.{json,md} with machine.txt and the full log; JOBS
# (default 4): children run at a time; PROBE_ONLY (a probe number, e.g. 8): only those
# cases; LIMIT (default 230): seconds for the
# whole run, after which `timeout` ends it (the probe itself starts no child
# after 180 s and gives each case 20 s, so the table normally comes out).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/ptxgen-device}/probes
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -Wno-deprecated-gpu-targets: nvcc 13 warns about nothing we use, kept quiet.
if ! timeout 300 nvcc -arch=sm_90a -O2 -std=c++17 -Wno-deprecated-gpu-targets \
    -o "$tmp/probe" "$here/probes/probe.cu"; then
  echo "probe_device: the probe suite does not build" >&2
  exit 1
fi
"$tmp/probe" --self-test || exit 1
[ "${1:-}" = --build-only ] && exit 0

device_dir "$out" fresh
{
  device_machine
  nvcc --version | tail -1
  device_commit "$here/.."
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

timeout "${LIMIT:-230}" "$tmp/probe" --jobs "${JOBS:-4}" --out "$out" > "$out/probe.log" 2>&1
rc=$?
cat "$out/probe.log"
[ $rc -eq 124 ] && echo "probe_device: stopped after ${LIMIT:-230} s (partial: no table files)"
exit $rc
