#!/usr/bin/env bash
# issue 13: ptxgen's memory-efficiency figures (`run --profile` on the simulator,
# docs/profile.md) next to Nsight Compute's on the GPU, for a few specs, from the
# repository root on the GPU machine, with build-device/ptxgen from tools/build_device.sh
# (or PTXGEN=path). For each spec: `ptxgen run --backend sim --profile` gives the shared
# wavefronts and bank-conflict wavefronts of ld.shared, st.shared and cp.async's shared
# writes, and the global sectors; `ncu --target-processes all` over `ptxgen run --backend
# cuda` gives l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum, the shared
# wavefronts and the global sectors/requests (only the metrics this ncu knows are asked).
# Where ncu is absent or not permitted to read the counters (ERR_NVGPUCTRPERM), it says
# so and exits 0: nothing to compare. usage: tools/profile_ncu_device.sh [SPEC...].
# Logs under $OUT/profile_ncu (default /tmp/ptxgen-profile-ncu); a table last.
set -u
log=${OUT:-/tmp/ptxgen-profile-ncu}/profile_ncu
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$log"
bin=${PTXGEN:-build-device/ptxgen}
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  specs=(specs/seed/copy_async.toml specs/thread_scope/row_repeat_f32.toml
         specs/thread_scope/row_f16.toml specs/thread_scope/block32_u8.toml)
fi
ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
if [ -z "$ncu" ]; then
  echo "profile_ncu: no ncu (Nsight Compute) on this machine: nothing to compare"
  exit 0
fi
{
  device_machine
  "$ncu" --version | tail -1
} > "$log/machine.txt" 2>&1
cat "$log/machine.txt"

# The metrics this ncu knows, of those wanted.
wanted=(l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
        l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum
        l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
        l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
        l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
        l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
        l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum
        l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum)
timeout 300 "$ncu" --query-metrics > "$log/query.txt" 2>&1
metrics=()
for m in "${wanted[@]}"; do
  grep -q "^${m%.sum}\b" "$log/query.txt" && metrics+=("$m")
done
if [ ${#metrics[@]} -eq 0 ]; then
  echo "profile_ncu: ncu lists none of the metrics (see $log/query.txt): nothing to compare"
  exit 0
fi
list=$(IFS=,; echo "${metrics[*]}")

# ptxgen's figures from the JSON report: "NAME=VALUE" lines.
ptxgen_figures() { # ptxgen_figures REPORT
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = (r["cases"][0].get("profile") or {})
sums = {}
for row in p.get("rows", []):
    units = row.get("wavefronts", row.get("sectors", 0))
    sums.setdefault(row["access"], [0, 0, 0])
    s = sums[row["access"]]
    s[0] += row["requests"]; s[1] += units; s[2] += units - row["ideal"]
for access, (req, units, extra) in sorted(sums.items()):
    kind = "wavefronts" if "shared" in access or "dst" in access else "sectors"
    extra_name = "conflicts" if kind == "wavefronts" else "extra_sectors"
    print(f"ptxgen {access}: requests={req} {kind}={units} {extra_name}={extra}")
EOF
}

table=()
for spec in "${specs[@]}"; do
  stem=$(basename "$spec" .toml)
  timeout 300 "$bin" run --backend sim --profile --report "$log/$stem.sim.json" "$spec" \
    > "$log/$stem.sim.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    table+=("$(printf '%-28s ptxgen run --profile failed (exit status %s)' "$stem" "$rc")")
    continue
  fi
  # Only the spec's kernel (not the runner's probe kernels): its entry is the spec's name.
  kernel=$(sed -n 's/^name *= *"\(.*\)".*/\1/p' "$spec" | head -n 1)
  timeout 600 "$ncu" --target-processes all --kernel-name "regex:^${kernel}\$" \
    --metrics "$list" --csv "$bin" run --backend cuda -j 1 "$spec" \
    > "$log/$stem.ncu.csv" 2> "$log/$stem.ncu.err"
  rc=$?
  if grep -q 'ERR_NVGPUCTRPERM' "$log/$stem.ncu.csv" "$log/$stem.ncu.err"; then
    echo "profile_ncu: ncu is not permitted to read the GPU's counters (ERR_NVGPUCTRPERM):" \
      "nothing to compare"
    exit 0
  fi
  {
    echo "== $spec"
    ptxgen_figures "$log/$stem.sim.json"
    # ncu's CSV: the last two columns are "Metric Value" after "Metric Unit"; sum per metric.
    grep '^"' "$log/$stem.ncu.csv" | awk -F'","' 'NR > 1 {
        name = $(NF - 2); value = $NF; gsub(/[",]/, "", value); sum[name] += value }
      END { for (m in sum) printf "ncu %s = %s\n", m, sum[m] }' | sort
  } > "$log/$stem.compare.txt"
  cat "$log/$stem.compare.txt"
  table+=("$(printf '%-28s see %s (ncu exit status %s)' "$stem" "$log/$stem.compare.txt" "$rc")")
done
echo
echo "ptxgen's conflicts = wavefronts beyond one per phase (docs/profile.md); ncu's"
echo "l1tex__data_bank_conflicts_*: compare ld.shared with op_ld, st.shared with op_st,"
echo "cp.async dst with the ldgsts figures where this ncu has them."
printf '%s\n' "${table[@]}"
