#!/usr/bin/env bash
# Captures real compute-sanitizer logs on the GPU machine (the test data of
# tests/unit/sanitizer_log.cpp), from the repository root, with the binary of
# tools/build_device.sh in build-device/. Output: $OUT/sanitizer-capture/.
#
# The ptxgen binary of this capture (main at a6845de) still forks its device
# worker, so each run goes under --target-processes all and each process
# writes its own log (--log-file NAME.%p.log); the one with a kernel in it is
# the one kept as test data.
set -u
out=${OUT:-/tmp/ptxgen-device}/sanitizer-capture
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bin=build-device/ptxgen
cs=compute-sanitizer
date -u '+date: %Y-%m-%d %H:%M UTC' > "$out/machine.txt"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >> "$out/machine.txt"
command -v "$cs" >> "$out/machine.txt"
"$cs" --version > "$out/version.txt" 2>&1
"$cs" --help > "$out/help.txt" 2>&1
readback=specs/thread_scope/cross_thread_readback.toml
# racecheck positive control: the readback's PTX without its bar.sync.
"$bin" emit "$readback" --target sm_80 | grep -v 'bar.sync' > "$out/nobar.ptx"
# synccheck candidates: bar.sync executed by part of warp 0 only; bar.warp.sync
# with a mask that leaves out the executing lanes.
"$bin" emit "$readback" --target sm_80 |
  sed -e 's/^\t\.reg \.b32 %r<11>;/\t.reg .b32 %r<11>;\n\t.reg .pred %p<2>;/' \
      -e 's/^\tbar\.sync 0;/\tsetp.lt.u32 %p1, %r2, 16;\n\t@%p1 bar.sync 0;/' > "$out/divergent_bar.ptx"
"$bin" emit "$readback" --target sm_80 |
  sed -e 's/^\tret;/\tbar.warp.sync 1;\n\tret;/' > "$out/warp_sync_mask.ptx"
one() { # NAME TIMEOUT CS-ARGS... -- PTXGEN-ARGS...
  local name=$1 limit=$2
  shift 2
  local csargs=()
  while [ "$1" != -- ]; do csargs+=("$1"); shift; done
  shift
  timeout -k 5 "$limit" "$cs" "${csargs[@]}" --target-processes all --log-file "$out/$name.%p.log" \
    "$bin" run --backend cuda "$@" > "$out/$name.stdout" 2>&1
  echo "$name rc=$?" >> "$out/rc.txt"
}
one racecheck_hazard 60 --tool racecheck --print-limit 100 -- --ptx "$out/nobar.ptx" "$readback"
one racecheck_hazard_report_all 60 --tool racecheck --racecheck-report all --print-limit 20 -- --ptx "$out/nobar.ptx" "$readback"
one racecheck_hazard_limit1 60 --tool racecheck --racecheck-report hazard --print-limit 1 -- --ptx "$out/nobar.ptx" "$readback"
one racecheck_clean 60 --tool racecheck --print-limit 100 -- "$readback"
one memcheck_out_of_bounds 60 --tool memcheck --print-limit 100 -- --unchecked specs/faults/out_of_bounds.toml
one memcheck_misaligned 60 --tool memcheck --print-limit 100 -- --unchecked specs/faults/misaligned_chunk.toml
one memcheck_clean 60 --tool memcheck --print-limit 100 -- "$readback"
one synccheck_clean 60 --tool synccheck --print-limit 100 -- specs/mbarrier/$(ls specs/mbarrier | head -1)
one synccheck_divergent_bar 60 --tool synccheck --print-limit 100 -- --ptx "$out/divergent_bar.ptx" "$readback"
one synccheck_warp_sync_mask 60 --tool synccheck --print-limit 100 -- --ptx "$out/warp_sync_mask.ptx" "$readback"
one initcheck_clean 60 --tool initcheck --print-limit 100 -- "$readback"
# What the sanitizer says when the target program is missing or exits non-zero.
timeout -k 5 30 "$cs" --tool memcheck --log-file "$out/missing_program.log" /nonexistent/program \
  > "$out/missing_program.stdout" 2>&1
echo "missing_program rc=$?" >> "$out/rc.txt"
cat "$out/rc.txt"
