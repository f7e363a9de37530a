#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the repository's own files:
#   fuzz/make_corpus.sh REPO_ROOT OUT_DIR
# writes OUT_DIR/<target>/seed_NNN (a few dozen small files per target; nothing
# is committed). Re-running replaces each OUT_DIR/<target> folder as a whole.
set -euo pipefail
repo=${1:?usage: make_corpus.sh REPO_ROOT OUT_DIR}
out=${2:?usage: make_corpus.sh REPO_ROOT OUT_DIR}
max=${PTXGEN_FUZZ_MAX_SEEDS:-48}

# put TARGET: one seed per line of stdin (unique, at most $max).
put() {
  local dir="$out/$1" n=0 line
  rm -rf "$dir"
  mkdir -p "$dir"
  while IFS= read -r line && [ "$n" -lt "$max" ]; do
    printf '%s' "$line" >"$dir/seed_$(printf '%03d' "$n")"
    n=$((n + 1))
  done < <(awk '!seen[$0]++')
}

# put_files TARGET FILE...: at most $max of the files, spread evenly over the list.
put_files() {
  local dir="$out/$1" n=0 i
  shift
  local files=("$@")
  local step=$(((${#files[@]} + max - 1) / max))
  rm -rf "$dir"
  mkdir -p "$dir"
  for ((i = 0; i < ${#files[@]}; i += step)); do
    cp "${files[$i]}" "$dir/seed_$(printf '%03d' "$n")"
    n=$((n + 1))
  done
}

mapfile -t specs < <(find "$repo/specs" -name '*.toml' | LC_ALL=C sort)
mapfile -t goldens < <(find "$repo/golden" -name '*.ptx' | LC_ALL=C sort)

# Opcodes as written in specs and as printed in goldens, plus spellings in other orders.
{
  printf '%s\n' cp.async.shared.global.ca cp.async.cg.shared::cta.global.L2::cache_hint.L2::256B
  grep -ohE 'cp\.async[A-Za-z0-9_.:]*' "${specs[@]}" "${goldens[@]}" | LC_ALL=C sort -u
} | put opcode_parser

# Rearrange patterns: the quoted first argument of .rearrange(...).
grep -ohE 'rearrange\("[^"]*"' "${specs[@]}" | sed -E 's/^rearrange\("//; s/"$//' |
  LC_ALL=C sort -u | put rearrange_pattern

# Expressions: predicate and size strings, and the indices inside .sub[...].
{
  printf '%s\n' 'if_then_else(tid < valid_rows, T.uint32(16), T.uint32(0))' \
    'tid < valid_rows ? 16 : 0' '(tid >> 3) * 2 + lane % 4' '-9223372036854775807 - 1'
  grep -ohE '^\s*(pred|src_size|ignore_src) *= *"[^"]*"' "${specs[@]}" | sed -E 's/^[^"]*"//; s/"$//'
  grep -ohE 'sub\[[^]]*\]' "${specs[@]}" | sed -E 's/^sub\[//; s/\]$//' | tr ',' '\n' |
    sed -E 's/^ +//; s/ +$//' | grep -v ':'
} | LC_ALL=C sort -u | put expr_parser

# Views: the dst/src strings of ops.
grep -ohE "^\s*(dst|src) *= *(\"[^\"]*\"|'[^']*')" "${specs[@]}" |
  sed -E "s/^[^\"']*[\"']//; s/[\"']\$//" | LC_ALL=C sort -u | put view_parser

put_files spec_to_ptx "${specs[@]}"
put_files sim_parser "${goldens[@]}"
