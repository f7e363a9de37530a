#!/usr/bin/env bash
# On the GPU machine, from the repository root: runs the integer forms of int8 / int16
# kernels of tools/sim_arith_device/int_forms.def (dp4a, dp2a, the .u16x2 / .s16x2 pairs of
# add / min / max, min / max .relu) on the GPU over the inputs of
# tools/sim_arith_device/format.hpp, and writes the results file the unit test
# unit.sim_arith_device compares the simulator against, bit for bit. Under 2 minutes (one nvcc
# build, 16 launches).
#   bash tools/sim_int_device.sh            # writes $OUT/h200_int_forms.bin (or ./)
# Then, here (the CPU machine): copy the file to tests/data/sim_arith/h200_int_forms.bin
# (checked in: the records of 2026-12-05 10:44 UTC), or compare without keeping it:
#   PTXGEN_SIM_INT_RESULTS=FILE build/tests/ptxgen_unit --source-file='*sim_arith_device.cpp' \
#     --test-case='the int8*' --success=false
# The steps are tools/sim_math_device.sh's, run on the int_forms set.
exec env SIM_ARITH_SET=int_forms bash "$(dirname "$0")/sim_math_device.sh" "$@"
