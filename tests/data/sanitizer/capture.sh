#!/usr/bin/env bash
# The capture of the real compute-sanitizer logs in this folder, exactly as run
# on the GPU machine (see README.md).
set -u
o=$OUT/c;mkdir -p $o;export PATH=/usr/local/cuda/bin:$PATH
b=build-device/ptxgen;cs=compute-sanitizer;r=specs/thread_scope/cross_thread_readback.toml
{ date -u;nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader;command -v $cs; } >$o/machine.txt
$cs --version >$o/version.txt 2>&1;$cs --help >$o/help.txt 2>&1
$b emit $r --target sm_80 >$o/r.ptx
grep -v bar.sync $o/r.ptx >$o/nobar.ptx
sed -e 's/^\t\.reg \.b32 %r<11>;/&\n\t.reg .pred %p<2>;/' -e 's/^\tbar\.sync 0;/\tsetp.lt.u32 %p1, %r2, 16;\n\t@%p1 bar.sync 0;/' $o/r.ptx >$o/divergent_bar.ptx
sed -e 's/^\tret;/\tbar.warp.sync 1;\n\tret;/' $o/r.ptx >$o/warp_sync_mask.ptx
one(){ n=$1;shift;a=();while [ $1 != -- ];do a+=($1);shift;done;shift
timeout -k 5 60 $cs "${a[@]}" --target-processes all --log-file $o/$n.%p.log $b run --backend cuda "$@" >$o/$n.stdout 2>&1;echo "$n rc=$?">>$o/rc.txt; }
one racecheck_hazard --tool racecheck --print-limit 100 -- --ptx $o/nobar.ptx $r
one racecheck_hazard_report_all --tool racecheck --racecheck-report all --print-limit 20 -- --ptx $o/nobar.ptx $r
one racecheck_hazard_limit1 --tool racecheck --racecheck-report hazard --print-limit 1 -- --ptx $o/nobar.ptx $r
one racecheck_clean --tool racecheck --print-limit 100 -- $r
one memcheck_out_of_bounds --tool memcheck --print-limit 100 -- --unchecked specs/faults/out_of_bounds.toml
one memcheck_misaligned --tool memcheck --print-limit 100 -- --unchecked specs/faults/misaligned_chunk.toml
one memcheck_clean --tool memcheck --print-limit 100 -- $r
one synccheck_clean --tool synccheck --print-limit 100 -- specs/mbarrier/block_2d.toml
one synccheck_divergent_bar --tool synccheck --print-limit 100 -- --ptx $o/divergent_bar.ptx $r
one synccheck_warp_sync_mask --tool synccheck --print-limit 100 -- --ptx $o/warp_sync_mask.ptx $r
one initcheck_clean --tool initcheck --print-limit 100 -- $r
timeout 30 $cs --tool memcheck --log-file $o/missing_program.log /nonexistent/program >$o/missing_program.stdout 2>&1;echo "missing rc=$?">>$o/rc.txt
timeout 30 $cs --tool racecheck --log-file $o/exit3.log $b run --backend cuda /nonexistent.toml >$o/exit3.stdout 2>&1;echo "exit3 rc=$?">>$o/rc.txt
cat $o/rc.txt
