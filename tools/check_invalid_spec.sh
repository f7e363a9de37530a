#!/usr/bin/env bash
# Checks one invalid spec: tools/check_invalid_spec.sh PTXGEN SPEC [--check-only]
#
# --check-only: only `PTXGEN check` is run (emit and golden refuse what check
# refuses, through the same reference run; the corpus tests run both).
#
# SPEC must carry a comment line `# expect-error: LINE:COL: [DIAG_ID] MESSAGE-SUBSTRING`
# (the `[DIAG_ID]` is required: the spec pins the diagnostic's ID).
# Passes only when
#   - `PTXGEN check SPEC` and `PTXGEN emit SPEC -o TMP` both exit with status 1,
#   - the stderr of each has a line `SPEC:LINE:COL: error: ...` whose message
#     contains MESSAGE-SUBSTRING (a plain substring, not a pattern) and
#     ends with ` [DIAG_ID]` (the diagnostic's ID), and
#   - emit did not create TMP (a rejected spec writes nothing).
# On failure it prints what it expected and what it got, and exits 1.
# Usage errors exit 2.
set -u

if [ "$#" -lt 2 ] || [ "$#" -gt 3 ] || { [ "$#" -eq 3 ] && [ "$3" != --check-only ]; }; then
  echo "usage: $0 PTXGEN SPEC [--check-only]" >&2
  exit 2
fi
ptxgen=$1
spec=$2
check_only=${3:-}

if [ ! -f "$spec" ]; then
  echo "FAIL: no such spec file: $spec" >&2
  exit 2
fi

# The first expect-error line: "# expect-error: LINE:COL: [DIAG_ID] MESSAGE".
expect_line=$(grep -m1 -E '^#[[:space:]]*expect-error:' -- "$spec" || true)
if [ -z "$expect_line" ]; then
  echo "FAIL: $spec has no '# expect-error: LINE:COL: [DIAG_ID] MESSAGE' comment" >&2
  exit 1
fi
rest=${expect_line#*expect-error:}
rest=${rest#"${rest%%[![:space:]]*}"} # trim leading blanks
if [[ ! "$rest" =~ ^([0-9]+):([0-9]+):[[:space:]]?(.*)$ ]]; then
  echo "FAIL: malformed expect-error line in $spec: $expect_line" >&2
  echo "      expected '# expect-error: LINE:COL: [DIAG_ID] MESSAGE-SUBSTRING'" >&2
  exit 1
fi
want_line=${BASH_REMATCH[1]}
want_col=${BASH_REMATCH[2]}
want_msg=${BASH_REMATCH[3]}
want_msg=${want_msg%$'\r'}
# The diagnostic's ID is required: it is what the spec pins; the message substring
# only guards that the wording still names the cause.
if [[ ! "$want_msg" =~ ^\[([A-Za-z0-9_]+)\][[:space:]]?(.*)$ ]]; then
  echo "FAIL: $spec's expect-error line names no [DIAG_ID]: $expect_line" >&2
  echo "      expected '# expect-error: LINE:COL: [DIAG_ID] MESSAGE-SUBSTRING'" >&2
  exit 1
fi
want_id=${BASH_REMATCH[1]}
want_msg=${BASH_REMATCH[2]}
want_prefix="$spec:$want_line:$want_col: error: "

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_invalid_spec.XXXXXX") || {
  echo "FAIL: cannot create a temporary directory" >&2
  exit 2
}
trap 'rm -rf -- "$tmp"' EXIT

failed=0

# True when a line of FILE starts with want_prefix, its message contains want_msg
# and, when want_id is set, the line ends with " [want_id]".
has_expected_diagnostic() {
  local file=$1 line msg
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
    "$want_prefix"*)
      msg=${line#"$want_prefix"}
      if [ -n "$want_id" ]; then
        case "$msg" in
        *" [$want_id]") msg=${msg%" [$want_id]"} ;;
        *) continue ;;
        esac
      fi
      case "$msg" in
      *"$want_msg"*) return 0 ;;
      esac
      ;;
    esac
  done <"$file"
  return 1
}

# run_case NAME ARGS...: runs PTXGEN ARGS..., checks status and stderr.
run_case() {
  local name=$1
  shift
  local out="$tmp/$name.stdout" err="$tmp/$name.stderr" status bad=0
  "$ptxgen" "$@" >"$out" 2>"$err"
  status=$?
  if [ "$status" -ne 1 ]; then
    echo "FAIL: '$name' exited with status $status; expected 1" >&2
    bad=1
  fi
  if ! has_expected_diagnostic "$err"; then
    echo "FAIL: '$name' did not report the expected diagnostic" >&2
    echo "  expected a line starting: $want_prefix" >&2
    echo "  with a message containing: $want_msg" >&2
    [ -z "$want_id" ] || echo "  and ending with the ID: [$want_id]" >&2
    bad=1
  fi
  if [ "$bad" -ne 0 ]; then
    failed=1
    printf '  command:' >&2
    printf " '%s'" "$ptxgen" "$@" >&2
    printf '\n  got (stderr):\n' >&2
    sed 's/^/    | /' -- "$err" >&2
  fi
}

run_case check check "$spec"
if [ -n "$check_only" ]; then
  [ "$failed" -eq 0 ] || { echo "FAIL: $spec" >&2; exit 1; }
  echo "ok: $spec rejected by check with $want_line:$want_col: $want_msg"
  exit 0
fi
out_file="$tmp/out dir/emitted.ptx"
mkdir -p -- "$tmp/out dir"
run_case emit emit "$spec" -o "$out_file"
if [ -e "$out_file" ]; then
  echo "FAIL: emit wrote '$out_file' for a rejected spec; nothing may be written" >&2
  failed=1
fi
leftovers=$(find "$tmp/out dir" -mindepth 1 -print)
if [ -n "$leftovers" ]; then
  echo "FAIL: emit left files behind in the output directory:" >&2
  # shellcheck disable=SC2001 # indent every line, not only the first
  sed 's/^/    /' <<<"$leftovers" >&2
  failed=1
fi

if [ "$failed" -ne 0 ]; then
  echo "FAIL: $spec" >&2
  exit 1
fi
echo "ok: $spec rejected with $want_line:$want_col: $want_msg"
exit 0
