#!/usr/bin/env bash
# The device checks of a session in four batches, each one call of the GPU machine (a call
# may run 600 s): the scripts below run side by side where their GPU use does not time
# anything, their logs under $OUT/<script>, their tables printed last. From the repository
# root on the GPU machine, with build-device/ from tools/build_device.sh (and, for `wild`,
# the public PTX files in tests/wild/ptx, python3 tools/wild_device_prepare.py run here
# first: the GPU machine has no TOML reader):
#
#   bash tools/device_batch.sh corpus       # the conformance corpus and the wild corpus
#   bash tools/device_batch.sh families     # clusters, reductions, tensor cores (records)
#   bash tools/device_batch.sh speed        # the rings' SASS and times, one tile, ws ring
#   bash tools/device_batch.sh broadcast    # multicast against unicast (ten specs, baseline)
#
# `families` leaves the tensor-core, cluster and int-form records in $OUT (h200.bin files to
# check in under tests/data/sim_tensor_core/, tests/data/sim_cluster_nvcc/ and
# tests/data/sim_arith/h200_int_forms.bin). Exit status: 0 when
# every script it ran exited 0; 2 for an unknown batch.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/ptxgen-device}
source "$root/tools/device_common.sh"
cd "$root"
status=0

# run NAME SECONDS SCRIPT ARGS...: SCRIPT under timeout, its output in $out/NAME.txt, with
# OUT=$out/NAME (each script keeps its logs below its own OUT).
run() {
  local name=$1 secs=$2
  shift 2
  mkdir -p "$out/$name"
  OUT="$out/$name" LIMIT=$((secs - 10)) timeout "$secs" bash "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc" >> "$out/exits.txt"
  [ "$rc" -eq 0 ] || status=1
}

show() {
  for name in "$@"; do
    echo "== $name ($(grep "^$name:" "$out/exits.txt"))"
    tail -n "${TAIL:-30}" "$out/$name.txt"
  done
}

case "${1:-}" in
corpus | families | speed | broadcast) ;;
*)
  echo "usage: tools/device_batch.sh corpus|families|speed|broadcast" >&2
  exit 2
  ;;
esac
mkdir -p "$out"
: > "$out/exits.txt"
device_machine > "$out/machine.txt"
device_commit "$root" >> "$out/machine.txt"
case "${1:-}" in
corpus)
  run conformance 560 tools/device_conformance.sh &
  run wild 560 tools/wild_device.sh &
  wait
  cat "$out/machine.txt"
  show conformance wild
  ;;
families)
  run cluster 240 tools/cluster_device.sh build-device/ptxgen &
  run reduce 300 tools/reduce_device.sh &
  wait
  run tensor_core 170 tools/tensor_core_device.sh 8 &
  run sim_cluster 170 tools/sim_cluster_device.sh 4 &
  run tensormap 170 tools/tensormap_device.sh &
  run sim_int 170 tools/sim_int_device.sh &
  wait
  cp "$out/tensor_core/tensor_core/h200.bin" "$out/tensor_core_h200.bin" 2>/dev/null
  cp "$out/sim_cluster/sim_cluster/h200.bin" "$out/sim_cluster_h200.bin" 2>/dev/null
  cp "$out/sim_int/h200_int_forms.bin" "$out/sim_int_h200_int_forms.bin" 2>/dev/null
  cat "$out/machine.txt"
  show cluster reduce tensor_core sim_cluster tensormap sim_int
  ;;
speed)
  # one at a time: these time the GPU
  run ring_sass 200 tools/ring_sass_device.sh
  run one_tile 100 tools/one_tile_device.sh
  run ws_ring 120 tools/ws_ring_device.sh
  cat "$out/machine.txt"
  show ring_sass one_tile ws_ring
  ;;
broadcast)
  run broadcast 570 tools/broadcast_device.sh
  cat "$out/machine.txt"
  TAIL=40 show broadcast
  ;;
esac
exit $status
