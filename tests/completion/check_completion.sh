#!/bin/bash
# check_completion.sh PTXGEN COMPLETION_SCRIPT
# Drives the completion function as bash would (COMP_WORDS/COMP_CWORD) and
# compares what it offers with the commands and options ptxgen's help lists,
# read here with grep rather than the script's sed, so a completion that
# misses an option, or a help layout it cannot read, fails.
set -u
ptxgen=$1
# shellcheck source=/dev/null
source "$2" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

complete_words() { # complete_words WORD...: the last word is the one being completed
  COMP_WORDS=("$ptxgen" "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _ptxgen
  printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

mapfile -t commands < <("$ptxgen" --help | awk '/^commands:/{on=1; next} on && /^$/{exit} on {print $1}')
((${#commands[@]} >= 8)) || fail "expected the subcommands in ptxgen --help, got: ${commands[*]}"
offered=$(complete_words "")
for c in "${commands[@]}"; do
  grep -qx -- "$c" <<<"$offered" || fail "subcommand '$c' is not completed"
done
[[ $(complete_words "as") == asm ]] || fail "'as' does not complete to asm"

for c in "${commands[@]}"; do
  # Long options: the first column of the option table, `  --name` or `  -x [ --name ]`.
  mapfile -t options < <("$ptxgen" "$c" --help | grep -E '^  (-[a-zA-Z] \[ )?--[a-z]' |
    grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
  ((${#options[@]} >= 1)) || fail "$c: no option found in its --help"
  offered=$(complete_words "$c" "--")
  for o in "${options[@]}"; do
    grep -qx -- "$o" <<<"$offered" || fail "$c: option $o is not completed"
  done
  # Nothing offered that the help does not list.
  while read -r o; do
    [[ -z $o ]] && continue
    printf '%s\n' "${options[@]}" | grep -qx -- "$o" || fail "$c: completes $o, not in its --help"
  done <<<"$offered"
done

# A few that must be there whatever the help says.
grep -qx -- --no-cache <<<"$(complete_words asm --no)" || fail "asm --no-cache"
grep -qx -- --embed-ptx <<<"$(complete_words asm --em)" || fail "asm --embed-ptx"
grep -qx -- --diagnostics-format <<<"$(complete_words check --diag)" || fail "check --diagnostics-format"
[[ $(complete_words cache st) == stats ]] || fail "cache st does not complete to stats"
# Files after an option that takes a value and for inputs.
cd "$(dirname "$2")" || exit 1
[[ $(complete_words asm ptxgen.ba) == ptxgen.bash ]] || fail "files are not completed"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "completion covers ${#commands[@]} commands and their options"
