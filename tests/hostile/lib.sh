# Shared by the hostile-input scripts (sourced). Usage in a script:
#   source "$(dirname "$0")/lib.sh"   # then: PTXGEN, WORK (fresh), REPO are set
# Arguments of every script: PTXGEN_BINARY REPO_ROOT WORK_DIR.
set -uo pipefail
PTXGEN=${1:?usage: SCRIPT PTXGEN REPO WORK}
REPO=${2:?usage: SCRIPT PTXGEN REPO WORK}
WORK=${3:?usage: SCRIPT PTXGEN REPO WORK}
rm -rf "$WORK"
mkdir -p "$WORK"
FAILS=0
# Memory cap for one ptxgen run (KiB). AddressSanitizer reserves terabytes of
# address space, so the sanitizer build (HOSTILE_NO_VLIMIT=1) runs without it.
VLIMIT_KB=${HOSTILE_VLIMIT_KB:-2097152}

fail() {
  echo "FAIL: $*" >&2
  FAILS=$((FAILS + 1))
}

# run_ptxgen SECONDS ARGS...: runs ptxgen under a time and memory limit.
# Sets RC, OUT, ERR (the texts of stdout and stderr).
run_ptxgen() {
  local secs=$1
  shift
  if [ "${HOSTILE_NO_VLIMIT:-0}" = 1 ]; then
    timeout -k 5 "$secs" "$PTXGEN" "$@" >"$WORK/.out" 2>"$WORK/.err"
  else
    (ulimit -v "$VLIMIT_KB" && exec timeout -k 5 "$secs" "$PTXGEN" "$@") >"$WORK/.out" 2>"$WORK/.err"
  fi
  RC=$?
  OUT=$(tr -d '\0' <"$WORK/.out")
  ERR=$(tr -d '\0' <"$WORK/.err")
}

# expect STATUS WHAT: checks the last run_ptxgen: exit status, no crash, no hang,
# and a non-empty message on stderr.
expect() {
  local want=$1 what=$2
  if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
    fail "$what: hung (killed by timeout)"
  elif [ "$RC" -ge 128 ]; then
    fail "$what: crashed (status $RC)"$'\n'"$ERR"
  elif [ "$RC" != "$want" ]; then
    fail "$what: exit status $RC, expected $want"$'\n'"$OUT$ERR"
  fi
  case "$ERR" in
  *AddressSanitizer* | *"runtime error:"* | *terminate* | *"std::bad_alloc"* | *Aborted*)
    fail "$what: crash report on stderr"$'\n'"$ERR" ;;
  esac
  if [ "$want" != 0 ] && [ -z "$ERR$OUT" ]; then
    fail "$what: no message"
  fi
}

# expect_position FILE_NAME WHAT: stderr names `FILE_NAME:LINE:COL:`.
expect_position() {
  local name=$1 what=$2
  if ! grep -qF -- "$name:" <<<"$ERR" || ! grep -qE -- ":[0-9]+:[0-9]+: error" <<<"$ERR"; then
    fail "$what: no file:line:col position in"$'\n'"$ERR"
  fi
}

# expect_match REGEX WHAT: stderr+stdout match an extended regex.
expect_match() {
  if ! grep -qE -- "$1" <<<"$OUT$ERR"; then
    fail "$2: expected output matching /$1/, got"$'\n'"$OUT$ERR"
  fi
}

# same_file A B WHAT: A and B have identical bytes.
same_file() {
  if ! cmp -s -- "$1" "$2"; then
    fail "$3: '$1' was changed"
  fi
}

# no_stray DIR WHAT NAME...: no file below DIR but the NAMEs (top-level names;
# empty folders a failed command created are tolerated: they hold no output).
no_stray() {
  local dir=$1 what=$2
  shift 2
  local f base ok
  while IFS= read -r -d '' f; do
    base=${f#"$dir"/}
    base=${base%%/*}
    ok=0
    for allowed in "$@"; do
      [ "$base" = "$allowed" ] && ok=1
    done
    [ $ok = 1 ] || fail "$what: stray file '${f#"$dir"/}' left in $dir"
  done < <(find "$dir" -mindepth 1 \( -type f -o -type l \) -print0)
}

finish() {
  if [ "$FAILS" -gt 0 ]; then
    echo "$FAILS check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
  exit 0
}

# The seed spec, a known-good input to start hostile variants from.
GOOD_SPEC="$REPO/specs/seed/copy_async.toml"
