#!/usr/bin/env bash
# On the GPU machine, from the repository root: runs the kernel-math forms of
# tools/sim_arith_device/kernel_math.def (cvt packing to and from e4m3x2/e5m2x2 and
# f16x2/bf16x2, the rounded rcp and sqrt, the .approx functions) on the GPU over the
# inputs of tools/sim_arith_device/format.hpp, and writes the results file the unit test
# unit.sim_arith_device compares the simulator against (exact forms bit for bit, .approx
# forms counted within their ulp bound). Under 2 minutes (one nvcc build, 33 launches).
#   bash tools/sim_math_device.sh            # writes $OUT/h200_kernel_math.bin (or ./)
# Then, here (the CPU machine): copy the file to tests/data/sim_arith/h200_kernel_math.bin
# (the golden), or compare without keeping it:
#   PTXGEN_SIM_MATH_RESULTS=FILE build/tests/ptxgen_unit --source-file='*sim_arith_device.cpp' \
#     --test-case='the kernel math*' --success=false
# SIM_ARITH_SET=int_forms runs the int8 / int16 set instead (tools/sim_int_device.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out_dir=${OUT:-.}
mkdir -p "$out_dir"
case "${SIM_ARITH_SET:-kernel_math}" in
kernel_math) set_name=math forms=kernel_math env=PTXGEN_SIM_MATH_RESULTS case='the kernel math*' ;;
int_forms) set_name=int forms=int_forms env=PTXGEN_SIM_INT_RESULTS case='the int8*' ;;
*) echo "SIM_ARITH_SET: kernel_math or int_forms" >&2; exit 2 ;;
esac
results="$out_dir/h200_$forms.bin"
log="$out_dir/sim_${set_name}_device.log"
arch=${SIM_ARITH_ARCH:-sm_90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  timeout 90 nvcc -std=c++17 -O2 -arch="$arch" -DSIM_ARITH_FORMS="\"$forms.def\"" \
    -o "$tmp/check" "$here/sim_arith_device/check.cu"
  timeout 60 "$tmp/check" "$results"
} >"$log" 2>&1 || { cat "$log"; echo "sim_${set_name}_device: FAILED (log: $log)"; exit 1; }
cat "$log"
# The table: each form and its first results, so that the run can be read without the test.
python3 - "$results" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:10] == b"PTXGARITH2", "not a results file"
pos = 10
count, = struct.unpack_from("<I", data, pos); pos += 4
widths = {0: 4, 1: 4, 2: 4, 3: 4, 4: 4, 5: 4, 6: 2, 7: 2, 8: 2, 9: 2, 10: 8, 11: 8, 12: 8,
          13: 8, 14: 1, 15: 1, 16: 1, 17: 8, 18: 2}
print(f"{'form':28} {'n':>5}  first results")
for _ in range(count):
    n_id, = struct.unpack_from("<I", data, pos); pos += 4
    ident = data[pos:pos + n_id].decode(); pos += n_id
    n_text, = struct.unpack_from("<I", data, pos); pos += 4
    pos += n_text
    kind, n = struct.unpack_from("<II", data, pos); pos += 8
    pos += 8  # input hash
    w = widths[kind]
    first = [int.from_bytes(data[pos + k * w:pos + (k + 1) * w], "little") for k in range(3)]
    pos += n * w
    print(f"{ident:28} {n:5}  " + " ".join(f"0x{v:0{2 * w}x}" for v in first))
PY
# With a built unit test beside the checkout (carried to the GPU machine), compare at once.
unit=${PTXGEN_UNIT:-build/tests/ptxgen_unit}
if [ -x "$unit" ]; then
  env "$env=$results" timeout 60 "$unit" \
    --source-file='*sim_arith_device.cpp' --test-case="$case" 2>&1 |
    tee "$out_dir/sim_${set_name}_compare.log" | tail -n 60
fi
