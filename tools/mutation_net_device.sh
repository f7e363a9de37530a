#!/usr/bin/env bash
# The mutation net's whole list (tools/mutation_net.toml) on the GPU machine, from the
# repository root: 16 cores, no ccache, no toml++ package (carry build-device-deps/, whose
# toml++ headers and config the configure takes). PARTS instances of tools/mutation_net.py
# run side by side, each in its own scratch copy with JOBS build and test jobs, part p
# taking mutations p, p + PARTS, ...; each runs the unchanged tree first (its baseline).
# Nets: CTest's unit, invalid and golden labels, then 120 s of fuzzing for a change CTest
# missed. Results are kept in build-mutnet/ (ignored, kept between calls on a warm
# machine): a second call skips the mutations a part already has a verdict for, so a
# run cut short by the call's time limit resumes. The tables and JSON go to $OUT.
#
#   OUT=$OUT timeout 560 bash tools/mutation_net_device.sh
set -u
out=${OUT:-/tmp/mutnet}
parts=${PARTS:-3}
jobs=${JOBS:-5}
keep=build-mutnet
mkdir -p "$out" "$keep"
export PATH=/usr/local/cuda/bin:$PATH
root=$(pwd)
mapfile -t names < <(python3 -c '
import tomllib
for m in tomllib.load(open("tools/mutation_net.toml", "rb"))["mutation"]:
    print(m["name"])')
done_in() { # the names part $1 already has a verdict for (in any of its calls' JSON)
  python3 -c '
import glob, json, sys
for f in glob.glob(sys.argv[1]):
    for m in json.load(open(f))["mutations"]:
        print(m["name"])' "$keep/part$1.*json"
}
for ((p = 0; p < parts; p++)); do
  mapfile -t finished < <(done_in "$p")
  args=()
  for ((i = p; i < ${#names[@]}; i += parts)); do
    [[ " ${finished[*]} " == *" ${names[i]} "* ]] || args+=(--only "${names[i]}")
  done
  [ ${#args[@]} -gt 0 ] || continue
  json="$keep/part$p.json"
  [ -f "$json" ] && json="$keep/part$p.$(date +%s).json"
  python3 tools/mutation_net.py --scratch "$root/$keep/scratch$p" --ctest-label 'unit|invalid|golden' \
    --fuzz-seconds 120 --fuzz-if-survived --jobs "$jobs" --targets ptxgen ptxgen_unit \
    "--cmake-arg=-Dtomlplusplus_DIR=$root/build-device-deps/cmake" --json "$json" "${args[@]}" \
    > "$out/part$p.txt" 2> "$out/part$p.log" &
done
wait
cp "$keep"/part*json "$out/" 2>/dev/null
python3 - "$keep" <<'EOF'
import glob, json, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/part*json")):
    for m in json.load(open(f))["mutations"]:
        rows[m["name"]] = m
print(f"{'mutation':40} {'verdict':9} {'s':>6}  nets")
for name, m in sorted(rows.items()):
    print(f"{name:40} {m['verdict']:9} {m['seconds']:6.0f}  {m['nets']}")
print(f"{len(rows)} run: {sum(m['verdict'] == 'caught' for m in rows.values())} caught")
EOF
