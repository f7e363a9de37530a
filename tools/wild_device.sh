#!/usr/bin/env bash
# The wild corpus on the GPU (tests/wild/MANIFEST.toml, docs/lint.md "The wild corpus"): each
# kernel the manifest marks runnable (`gpu` not "skip: ...") runs once on the simulator
# (`ptxgen lint ... --save-run DIR`: the launch, random inputs from seed 0, the simulator's
# memory after the run) and once on the GPU with the same launch and inputs
# (tools/wild_device/run.cu), and every region is compared under the kernel's `gpu` mode
# ("bytes", or "f32 ulp N": tools/wild_device/plan.hpp). Then each [[mutant]] and its kernel run
# under compute-sanitizer --tool racecheck and --tool synccheck with the same launch. Run from
# the repository root on the GPU machine, after, where the manifest is read:
#
#   python3 tools/wild_device_prepare.py      # tests/wild/ptx/gpu/runs.tsv and mutants/*.ptx
#   bash tools/build_device.sh                # build-device/ptxgen (or PTXGEN=...)
#   tools/wild_device.sh
#
# Needs nvcc and the CUDA driver (run.cu is built here), compute-sanitizer for the mutants.
# Everything under `timeout` (LIMIT, default 390 s in all); logs under $OUT/wild (NAME.*.txt,
# plans/NAME.txt), and the memory of each run that does not agree (runs/NAME/: plan.txt,
# in.K.bin, sim.K.bin, gpu.K.bin); the tables last. Exit status 0 when every runnable kernel ran on both and the GPU agrees with the
# simulator wherever lint found no hazard in the kernel; 1 otherwise.
set -u
set -f # launch arguments hold brackets (f16[128,256]): no globbing
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-/tmp/ptxgen-device}/wild
ptxgen=${PTXGEN:-$root/build-device/ptxgen}
runs=${RUNS:-$root/tests/wild/ptx/gpu/runs.tsv}
sanitizer=${COMPUTE_SANITIZER:-compute-sanitizer}
runner=${RUNNER:-} # a prebuilt run.cu binary; else built here
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out" fresh
mkdir -p "$out/runs" "$out/plans"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/runs # every run's plan and memory; those that do not agree are kept under $out/runs
device_clock "${LIMIT:-390}"

{
  device_machine
  nvcc --version | tail -1
  "$sanitizer" --version | tail -1
  device_commit "$root"
} > "$out/machine.txt" 2>&1
if [ ! -s "$runs" ]; then
  echo "wild_device: no $runs; make it with python3 tools/wild_device_prepare.py" >&2
  exit 2
fi
if [ ! -x "$ptxgen" ]; then
  echo "wild_device: no $ptxgen (bash tools/build_device.sh, or PTXGEN=...)" >&2
  exit 2
fi
if [ -z "$runner" ]; then
  runner=$tmp/run
  device_build_runner wild_device "$here/wild_device/run.cu" "$runner" "$out/build.log" \
    "$(device_capped 150)" || exit 1
fi

# The simulator's run of NAME into runs/NAME; whether it wrote a plan.
simulate() { # name ptx args...
  local name=$1 ptx=$2
  shift 2
  timeout -k 5 "$(device_capped 60)" "$ptxgen" lint "$root/$ptx" "$@" --save-run "$work/$name" \
    > "$out/$name.lint.txt" 2>&1
  [ -s "$work/$name/plan.txt" ]
}

# The GPU's run of the plan in DIR: its verdict line (run.cu's last line, less `wild-run `).
on_gpu() { # ptx dir mode log [tool]
  local ptx=$1 dir=$2 mode=$3 log=$4 rc
  if [ -n "${5:-}" ]; then
    timeout -k 5 "$(device_capped 40)" "$sanitizer" --tool "$5" --print-limit 20 "$runner" "$root/$ptx" \
      "$dir" "$mode" > "$log" 2>&1
  else
    timeout -k 5 "$(device_capped 30)" "$runner" "$root/$ptx" "$dir" "$mode" > "$log" 2>&1
  fi
  rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "timeout (hung or slow: see $(basename "$log"))"
  else
    grep '^wild-run ' "$log" | tail -1 | cut -d' ' -f2- | grep . || echo "no verdict (exit $rc)"
  fi
}

# compute-sanitizer's summary of the run in LOG.
sanitizer_summary() { # log verdict
  local s
  s=$(grep -o 'RACECHECK SUMMARY: [0-9]* hazards* displayed ([0-9]* errors*, [0-9]* warnings*)' "$1" |
    tail -1 | sed 's/RACECHECK SUMMARY: //; s/ displayed//')
  [ -z "$s" ] && s=$(grep -o 'ERROR SUMMARY: [0-9]* errors*' "$1" | tail -1 | sed 's/ERROR SUMMARY: //')
  case "$2" in timeout*) s="${s:+$s, }timeout" ;; esac
  echo "${s:-no summary}"
}

# A sanitizer tool on the plan of runs/NAME (a copy of it: the GPU run's memory stays), run
# even where the simulator's run stopped at a fault (a deadlock), comparing nothing.
sanitize() { # tool name ptx
  local tool=$1 name=$2 ptx=$3 dir=$work/$2.$1 verdict
  [ -s "$work/$name/plan.txt" ] || { echo "no plan"; return; }
  rm -rf "$dir"
  cp -r "$work/$name" "$dir"
  verdict=$(on_gpu "$ptx" "$dir" none "$out/$name.$tool.txt" "$tool")
  rm -rf "$dir"
  sanitizer_summary "$out/$name.$tool.txt" "$verdict"
}

table() { if command -v column > /dev/null; then column -t -s $'\t'; else cat; fi; }

instructions() { sed -n 's/^instructions //p' "$work/$1/plan.txt" 2>/dev/null | grep . || echo -; }

# The plan into the logs, and the whole run's memory when the GPU did not agree.
keep() { # name verdict
  [ -s "$work/$1/plan.txt" ] && cp "$work/$1/plan.txt" "$out/plans/$1.txt"
  case "$2" in agree* | sim-fault*) ;; *) [ -d "$work/$1" ] && cp -r "$work/$1" "$out/runs/" ;; esac
}

kernel_rows=() mutant_rows=()
declare -A ptx_of race_of sync_of
total=0 skipped=0 agree=0 differ=0 faulted=0 other=0 unexplained=0
while IFS=$'\t' read -r section name ptx mode args base finding; do
  ptx_of[$name]=$ptx
  read -ra argv <<< "$args"
  if [ "$section" = kernel ]; then
    total=$((total + 1))
    case "$mode" in
    skip:*)
      skipped=$((skipped + 1))
      kernel_rows+=("$name	-	skipped (${mode#skip: })	-	$finding")
      continue
      ;;
    esac
    if simulate "$name" "$ptx" "${argv[@]}"; then
      verdict=$(on_gpu "$ptx" "$work/$name" "$mode" "$out/$name.gpu.txt")
    else
      verdict="no plan from the simulator (see $name.lint.txt)"
    fi
    case "$verdict" in
    agree*) agree=$((agree + 1)) ;;
    differ*) differ=$((differ + 1)) ;;
    gpu-fault*) faulted=$((faulted + 1)) ;;
    *) other=$((other + 1)) ;;
    esac
    # A difference is explained by a hazard lint reports in the kernel (its `finding`).
    case "$verdict" in agree*) ;; *) [ "$finding" = - ] && unexplained=$((unexplained + 1)) ;; esac
    keep "$name" "$verdict"
    kernel_rows+=("$name	$(instructions "$name")	$verdict	$mode	$finding")
  else
    if simulate "$name" "$ptx" "${argv[@]}"; then
      verdict=$(on_gpu "$ptx" "$work/$name" "$mode" "$out/$name.gpu.txt")
    else
      verdict="no plan from the simulator (see $name.lint.txt)"
    fi
    # Its kernel under each tool once, however many mutants edit it.
    [ -n "${race_of[$base]+x}" ] || race_of[$base]=$(sanitize racecheck "$base" "${ptx_of[$base]}")
    [ -n "${sync_of[$base]+x}" ] || sync_of[$base]=$(sanitize synccheck "$base" "${ptx_of[$base]}")
    race=$(sanitize racecheck "$name" "$ptx")
    sync=$(sanitize synccheck "$name" "$ptx")
    keep "$name" "$verdict"
    mutant_rows+=("$name	$base	$finding	$race / ${race_of[$base]}	$sync / ${sync_of[$base]}	${verdict%% *}")
  fi
done < "$runs"

cat "$out/machine.txt"
echo
{
  printf 'kernel\tinstructions\tGPU vs simulator\tmode\tlint finding\n'
  printf '%s\n' "${kernel_rows[@]}"
} | table
echo
echo "kernels: $total in the manifest, $skipped not runnable standalone, $((total - skipped)) run:" \
  "$agree agree, $differ differ, $faulted GPU faults, $other other (timeouts, errors);" \
  "$unexplained not agreeing where lint finds nothing"
echo
{
  printf 'mutant\tits kernel\tptxgen finding (lint)\tracecheck: mutant / kernel\tsynccheck: mutant / kernel\tGPU vs simulator\n'
  printf '%s\n' "${mutant_rows[@]}"
} | table
echo "logs and memory: $out ($(($(date +%s) - device_start)) s)"
[ "$unexplained" = 0 ] && [ "$other" = 0 ]
