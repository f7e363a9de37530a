#!/usr/bin/env bash
# issue 12, fuzz-wire: a stand-in for tools/sass_traps_device.sh (which needs the GPU
# machine's cuobjdump) in the dry run of tools/fuzz_device.sh: it counts the *.toml
# under each directory given and writes the scan's table line for it, as the real
# script's (c) part does, into $OUT/sass_traps/table.txt.
set -u
mkdir -p "$OUT/sass_traps"
for dir in "$@"; do
  n=$(find "$dir" -name '*.toml' | wc -l)
  printf 'ok   extra.%s: %s inputs, %s kernels, 0 LDGSTS scanned, 0 signatures\n' \
    "$(basename "$dir")" "$n" "$n"
done > "$OUT/sass_traps/table.txt"
