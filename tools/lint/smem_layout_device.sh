#!/usr/bin/env bash
# On the GPU machine: where the GPU places dynamic shared memory after static shared
# variables (tools/lint/smem_layout_probe.cu; the wild corpus's fast.cu matmul_4 / matmul_7
# entries, tests/wild/MANIFEST.toml `watch`). Needs no ptxgen build. Output in $OUT/smem_layout.
#
#   tools/lint/smem_layout_device.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/ptxgen-device}/smem_layout
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  timeout 120 nvcc -arch=sm_90a -O2 -o "$tmp/probe" "$here/smem_layout_probe.cu" &&
    timeout 60 "$tmp/probe"
  echo "rc=$?"
} 2>&1 | tee "$out/smem_layout.txt"
