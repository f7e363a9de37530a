#!/usr/bin/env bash
# On the GPU machine, from the repository root: runs the integer forms of int8 / int16
# kernels of tools/sim_arith_device/int_forms.def (dp4a, dp2a, the .u16x2 / .s16x2 pairs of
# add / min / max, min / max .relu) on the GPU over the inputs of
# tools/sim_arith_device/format.hpp, and writes the results file the unit test
# unit.sim_arith_device compares the simulator against, bit for bit. Under 2 minutes (one nvcc
# build, 16 launches).
#   bash tools/sim_int_device.sh            # writes $OUT/h200_int_forms.bin (or ./)
# Then, here (the CPU machine): copy the file to tests/data/sim_arith/h200_int_forms.bin
# (the golden: until it is there, the comparison is skipped), or compare without keeping it:
#   PTXGEN_SIM_INT_RESULTS=FILE build/tests/ptxgen_unit --source-file='*sim_arith_device.cpp' \
#     --test-case='the int8*' --success=false
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out_dir=${OUT:-.}
mkdir -p "$out_dir"
log="$out_dir/sim_int_device.log"
arch=${SIM_ARITH_ARCH:-sm_90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  timeout 90 nvcc -std=c++17 -O2 -arch="$arch" -DSIM_ARITH_FORMS='"int_forms.def"' \
    -o "$tmp/check" "$here/sim_arith_device/check.cu"
  timeout 60 "$tmp/check" "$out_dir/h200_int_forms.bin"
} >"$log" 2>&1 || { cat "$log"; echo "sim_int_device: FAILED (log: $log)"; exit 1; }
cat "$log"
# The table: each form and its first results, so that the run can be read without the test.
python3 - "$out_dir/h200_int_forms.bin" <<'PY'
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
  PTXGEN_SIM_INT_RESULTS="$out_dir/h200_int_forms.bin" timeout 60 "$unit" \
    --source-file='*sim_arith_device.cpp' --test-case='the int8*' 2>&1 |
    tee "$out_dir/sim_int_compare.log" | tail -n 60
fi
