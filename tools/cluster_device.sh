#!/usr/bin/env bash
# The cluster specs on the GPU, from the repository root, with the binary built by
# tools/build_device.sh carried in build-device/: every spec of specs/cluster/ run with
# `ptxgen run --backend cuda` (clusters of 2, 2 x 2 and a non-portable 16 launched with
# cuLaunchKernelEx and the cluster dimension; cluster_sync ordering a cluster's CTAs; DSMEM
# exchanges through peer views, S@rank: mapa + ld/st.shared::cluster, clusters of 2, 4, 8), each
# compared byte for byte with the reference; then the simulator on the same directory, which
# skips the specs marked `# sim-skip:` and says so. Logs under $OUT (default
# /tmp/ptxgen-device)/cluster; a table last.
#
#   tools/cluster_device.sh [PTXGEN]      (default build-device/ptxgen)
#
# Everything under `timeout` (LIMIT, default 240 s in all).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/ptxgen-device}/cluster
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
bin=${1:-$root/build-device/ptxgen}
device_dir "$out" fresh
device_clock "${LIMIT:-240}"
{
  device_machine
  device_commit "$root"
} > "$out/machine.txt" 2>&1
[ -x "$bin" ] || { echo "cluster_device: no ptxgen at $bin (tools/build_device.sh)" >&2; exit 2; }
rows=()
gpu_failed=0
for spec in "$root"/specs/cluster/*.toml; do
  name=$(basename "$spec" .toml)
  timeout "$(device_left)" "$bin" run --backend cuda --dump "$out/dump-$name" "$spec" \
    > "$out/$name.log" 2>&1
  rc=$?
  verdict=$(grep -m1 '^summary:' "$out/$name.log" | sed 's/^summary: //')
  [ "$rc" = 0 ] || gpu_failed=1
  rows+=("$(printf '%-28s %3s  %s' "$name" "$rc" "${verdict:-(no summary; see $name.log)}")")
done
timeout "$(device_left)" "$bin" run --backend sim "$root/specs/cluster" > "$out/sim.log" 2>&1
sim_rc=$?
cat "$out/machine.txt"
echo
printf '%-28s %3s  %s\n' spec rc "ptxgen run --backend cuda (exit 0: identical bytes to the reference)"
printf '%s\n' "${rows[@]}"
echo
echo "simulator on specs/cluster (cluster specs skipped until it simulates clusters): exit $sim_rc"
grep -E 'skipped on the simulator|^summary' "$out/sim.log"
[ "$gpu_failed" = 0 ] && [ "$sim_rc" = 0 ]
