#!/usr/bin/env bash
# The Python module on the GPU machine (docs/python.md), from the repository
# root. That machine has no Debian pybind11 and no toml++, and its python3 is
# not this machine's, so the module cannot be carried from here: this script
# builds it there, against the python3 first on PATH (which must have numpy
# and pybind11; pybind11's CMake package is found through the interpreter) and
# toml++ from the ignored build-device-deps/ (carry it), into build-python/, without
# the command (PTXGEN_BUILD_CLI=OFF: no Boost there).
# Then: the seed example (examples/python/seed.py) on the simulator and on the
# GPU, the stage-count example, and the pytest suite when pytest is there.
#
#   tools/python_device.sh
#
# Logs go to $OUT/python/ (default /tmp/ptxgen-device); a table last.
set -u
out=${OUT:-/tmp/ptxgen-device}/python
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_dir "$out" fresh
py=$(command -v python3)
pybind11_dir=$("$py" -c 'import pybind11; print(pybind11.get_cmake_dir())' 2>/dev/null)
if [ -z "$pybind11_dir" ]; then
  echo "python_device.sh: $py has no pybind11" >&2
  exit 2
fi
# The machine's first g++ (/opt/gcc) links libstdc++ statically by default: such a module holds
# a second libstdc++, and after `import numpy` has loaded the system's its ostreams crash
# (seen on the H200 machine). The distribution's compiler links the shared one.
cxx=/usr/bin/g++
[ -x "$cxx" ] || cxx=$(command -v g++)
timeout 400 cmake -S . -B build-python -DCMAKE_CXX_COMPILER="$cxx" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPTXGEN_BUILD_TESTS=OFF -DPTXGEN_BUILD_CLI=OFF -DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$pybind11_dir" \
  -Dtomlplusplus_DIR="$PWD/build-device-deps/cmake" >"$out/configure.log" 2>&1 &&
  timeout 400 cmake --build build-python -j"$(nproc)" --target ptxgen_python -- -k 0 >"$out/build.log" 2>&1
built=$?
rows=("step|status")
table() {
  local r
  for r in "${rows[@]}"; do printf '%-60s %s\n' "${r%%|*}" "${r#*|}"; done
}
rows+=("build ($("$cxx" -dumpfullversion), $("$py" --version 2>&1), pybind11 $("$py" -c 'import pybind11; print(pybind11.__version__)'))|$built")
if [ "$built" -ne 0 ]; then
  tail -n 20 "$out/configure.log" "$out/build.log"
  table
  exit 1
fi
ldd build-python/python/ptxgen*.so | grep -q 'libstdc++' || rows+=("warning: the module links libstdc++ statically|-")
export PYTHONPATH=$PWD/build-python/python
step() {
  local name=$1
  shift
  timeout 300 "$@" >"$out/$name.log" 2>&1
  rows+=("$name|$?")
}
step version "$py" -c 'import ptxgen; print(ptxgen.__version__)'
step seed_sim "$py" examples/python/seed.py
step seed_gpu "$py" examples/python/seed.py --gpu
step stages "$py" examples/python/stages.py
if "$py" -c 'import pytest' 2>/dev/null; then
  PTXGEN_SOURCE_DIR=$PWD step pytest "$py" -m pytest -q -p no:cacheprovider tests/python
fi
for f in version seed_sim seed_gpu; do
  echo "== $f"
  head -c 600 "$out/$f.log"
done
tail -3 "$out/pytest.log" 2>/dev/null
table
