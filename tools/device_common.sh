# The preamble the scripts that run on the GPU machine (tools/*_device.sh) share. Each
# sources it first:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
#
# Sourcing puts CUDA's tools (nvcc, ptxas, cuobjdump, compute-sanitizer) first on PATH, where
# that machine keeps them. It defines, and runs, nothing else:
#
#   device_dir DIR [fresh]  creates a log folder (emptied first with `fresh`)
#   device_machine          prints the date (UTC) and the GPU's name, driver and compute
#                           capability: the first lines of a script's machine.txt
#   device_commit ROOT      prints `commit: ABC1234`: the commit ROOT/build-device/ptxgen was
#                           built from (its --version), else the checkout's HEAD (the GPU
#                           machine's copy of the tree may carry an older .git than its files)
#   device_clock LIMIT      starts a budget of LIMIT seconds for the whole script (its start,
#                           in seconds since the epoch, in $device_start);
#   device_left             then prints the seconds left of it (for `timeout "$(device_left)"`)

export PATH=/usr/local/cuda/bin:$PATH

device_dir() {
  if [ "${2:-}" = fresh ]; then
    rm -rf "$1"
  fi
  mkdir -p "$1"
}

device_machine() {
  date -u '+date: %Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
}

device_commit() {
  local built
  built=$("$1/build-device/ptxgen" --version 2>/dev/null | sed -n 's/.*(commit \([^)]*\)).*/\1/p')
  if [ -n "$built" ]; then
    echo "commit: $built"
  else
    git -C "$1" rev-parse --short HEAD 2>/dev/null | sed 's/^/commit: /'
  fi
}

device_clock() {
  device_limit=$1
  device_start=$(date +%s)
}

device_left() {
  echo $((device_limit - ($(date +%s) - device_start)))
}

# device_capped SECONDS: SECONDS for the next step, or what is left of the clock when that is
# less (at least 1).
device_capped() {
  local left
  left=$(device_left)
  if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}

# device_build_runner NAME SRC BIN LOG [SECONDS]: builds a driver-API runner (a tools/*/run.cu)
# for sm_90a into BIN, its output in LOG; on failure prints LOG and "NAME: run.cu does not
# build", and returns 1.
device_build_runner() {
  if ! timeout "${5:-120}" nvcc -std=c++17 -O2 -arch=sm_90a -Wno-deprecated-gpu-targets \
      -o "$3" "$2" -lcuda > "$4" 2>&1; then
    cat "$4"
    echo "$1: run.cu does not build" >&2
    return 1
  fi
}
