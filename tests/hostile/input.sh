#!/usr/bin/env bash
# Hostile input: every bad spec gives exit status 1 and a diagnostic with a
# position, within seconds, within 2 GiB of address space, and never a crash.
#   input.sh PTXGEN REPO WORK
source "$(dirname "$0")/lib.sh"

# variant NAME SED_SCRIPT: a copy of the seed spec edited by sed.
variant() {
  sed -e "$2" "$GOOD_SPEC" >"$WORK/$1.toml"
}

# bad NAME [COMMAND]: `ptxgen check` (or emit) of WORK/NAME.toml fails with a position.
bad() {
  local name=$1 cmd=${2:-check}
  if [ "$cmd" = emit ]; then
    run_ptxgen 20 emit "$WORK/$name.toml" -o "$WORK/$name.ptx"
    [ ! -e "$WORK/$name.ptx" ] || fail "$name: emit wrote output for a bad spec"
  else
    run_ptxgen 20 check "$WORK/$name.toml"
  fi
  expect 1 "$name ($cmd)"
  expect_position "$name.toml" "$name ($cmd)"
}

# Enormous shapes: beyond int64, beyond the 2^40-byte limit, a product that overflows.
variant shape_beyond_i64 's/shape = \[128, 32\]/shape = [99999999999999999999, 32]/'
variant shape_too_big 's/shape = \[128, 32\]/shape = [4611686018427387904, 4]/'
variant shape_overflow 's/shape = \[128, 32\]/shape = [4294967296, 4294967296, 4294967296]/'
variant shape_negative 's/shape = \[128, 32\]/shape = [-128, 32]/'
variant shape_rank_1000 "s/shape = \[128, 32\]/shape = [$(printf '1, %.0s' {1..999})1]/"
# Enormous repeat counts: a view that asks for 2^40 chunks, a huge grid and block.
variant repeat_huge 's/w=4, t=32, v=8/w=4, t=32, v=1099511627776/g'
variant grid_huge 's/^grid = 1/grid = 9223372036854775807/'
variant block_huge 's/^block = 128/block = 4294967297/'
variant wait_huge 's/^n = 0/n = 9223372036854775807/'
# Huge integers and overflow in index arithmetic (expressions are int64).
variant index_overflow 's/B.sub\[tid, :\]/B.sub[tid * 9223372036854775807 + 9223372036854775807, :]/'
variant literal_overflow 's/B.sub\[tid, :\]/B.sub[99999999999999999999999999, :]/'
variant shift_overflow 's/B.sub\[tid, :\]/B.sub[1 << 64, :]/'
variant min_div 's/B.sub\[tid, :\]/B.sub[(-9223372036854775807 - 1) \/ -1, :]/'
variant size_overflow 's/w=4, t=32, v=8/w=4611686018427387904, t=4611686018427387904, v=8/'
for n in shape_beyond_i64 shape_too_big shape_overflow shape_negative shape_rank_1000 repeat_huge \
  grid_huge block_huge wait_huge index_overflow literal_overflow shift_overflow min_div \
  size_overflow; do
  bad "$n"
done
bad repeat_huge emit
bad index_overflow emit

# Deep nesting: 10,000 parentheses in an expression and in a view index; deep
# TOML arrays, inline tables, dotted keys and table headers.
deep=$(printf '(%.0s' {1..10000})tid$(printf ')%.0s' {1..10000})
variant deep_expr "s/^scope = \"cta\"/scope = \"cta\"\npred = \"$deep\"/"
variant deep_view "s/B.sub\[tid, :\]/B.sub[$deep, :]/"
bad deep_expr
bad deep_view
bad deep_view emit
{
  cat "$GOOD_SPEC"
  printf '\n[param.x]\ndtype = "u32"\nvalue = %s1%s\n' "$(printf '[%.0s' {1..10000})" \
    "$(printf ']%.0s' {1..10000})"
} >"$WORK/deep_array.toml"
bad deep_array
{
  cat "$GOOD_SPEC"
  printf '\nx = %s1%s\n' "$(printf '{a=%.0s' {1..10000})" "$(printf '}%.0s' {1..10000})"
} >"$WORK/deep_table.toml"
bad deep_table
{
  cat "$GOOD_SPEC"
  printf '\n%sb = 1\n' "$(printf 'a.%.0s' {1..100000})"
} >"$WORK/deep_key.toml"
bad deep_key
{
  cat "$GOOD_SPEC"
  printf '\n[%sb]\n' "$(printf 'a.%.0s' {1..100000})"
} >"$WORK/deep_header.toml"
bad deep_header

# Non-UTF-8 bytes in a string, in a key and in a comment; NUL bytes.
printf '[kernel]\nname = "k\xff\xfe"\nblock = 32\n' >"$WORK/non_utf8_string.toml"
printf '[kernel]\nn\xc3\x28me = "k"\nblock = 32\n' >"$WORK/non_utf8_key.toml"
{ cat "$GOOD_SPEC"; printf '# \xed\xa0\x80 surrogate\n'; } >"$WORK/non_utf8_comment.toml"
printf '[kernel]\x00\nname = "k"\nblock = 32\n' >"$WORK/nul_header.toml"
printf '[kernel]\nname = "k\x00k"\nblock = 32\n' >"$WORK/nul_string.toml"
head -c 4096 /dev/urandom >"$WORK/random_bytes.toml"
printf '\xef\xbb\xbf\xef\xbb\xbf[kernel]\n' >"$WORK/double_bom.toml"
for n in non_utf8_string non_utf8_key non_utf8_comment nul_header nul_string double_bom; do
  bad "$n"
done
# Random bytes: a clean rejection; where toml++ gives a position we require it.
run_ptxgen 20 check "$WORK/random_bytes.toml"
expect 1 random_bytes

# An empty file, a file of blanks, a directory where a file is expected, an empty
# directory, a missing file, a FIFO (never opened for reading: it would block).
: >"$WORK/empty.toml"
printf '\n\n   \n' >"$WORK/blank.toml"
for n in empty blank; do
  run_ptxgen 20 check "$WORK/$n.toml"
  expect 1 "$n"
  expect_position "$n.toml" "$n"
done
mkdir -p "$WORK/dir.toml" "$WORK/emptydir"
run_ptxgen 20 emit "$WORK/dir.toml" -o "$WORK/dir.ptx"
expect 1 "an empty directory given to emit"
expect_match "no spec files" "an empty directory given to emit"
run_ptxgen 20 check "$WORK/emptydir"
expect 1 "an empty directory given to check"
run_ptxgen 20 check "$WORK/missing.toml"
expect 1 "a missing spec"
expect_match "missing.toml" "a missing spec"

# A large but well-formed spec: 1,000 long comment lines and a 4 MiB string.
{
  cat "$GOOD_SPEC"
  for _ in $(seq 1 1000); do printf '# %s\n' "$(printf 'x%.0s' {1..100})"; done
  printf '\n[tensor.C]\nspace = "global"\nshape = [1]\ndtype = "uint8"\ninit = "%s"\n' \
    "$(head -c 4194304 /dev/zero | tr '\0' 'z')"
} >"$WORK/large.toml"
bad large

finish
