#!/usr/bin/env bash
# Times `ptxgen lint` of every PTX file of the foreign corpus, with its spec's scalars as
# --arg (tools/lint/spec_args.awk; docs/benchmarks.md): wall and CPU (user + sys) seconds per
# file, slowest last. Extra arguments go to every lint (e.g. --seeds 4).
#
#   tools/lint/bench.sh build/ptxgen [LINT OPTIONS...]
set -u
ptxgen=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TIMEFORMAT='%R %U %S'
for f in "$root"/tests/foreign/ptx/*.ptx; do
  n=$(basename "$f")
  args=$(for a in $(awk -f "$root/tools/lint/spec_args.awk" \
    "$root/tests/foreign/specs/${n%%.*}.toml" 2>/dev/null); do printf -- '--arg %s ' "$a"; done)
  # shellcheck disable=SC2086
  t=$({ time "$ptxgen" lint "$f" $args "$@" > /dev/null 2>&1; } 2>&1)
  read -r wall user sys <<< "$t"
  printf '%-36s wall %6.3f s  cpu %6.3f s\n' "$n" "$wall" "$(echo "$user + $sys" | bc)"
done | sort -k6 -n
