# Bash completion for ptxgen: subcommands, their options, and files.
#
#   source tools/completion/ptxgen.bash        # or copy it to
#   ~/.local/share/bash-completion/completions/ptxgen
#
# The subcommands and options are read from ptxgen itself (`ptxgen --help`,
# `ptxgen COMMAND --help`) once per shell, so this file never goes stale when a
# command or an option is added (tests/completion.cmake checks it).

# _ptxgen_commands PTXGEN: the subcommand names `ptxgen --help` lists.
_ptxgen_commands() {
  "$1" --help 2>/dev/null | sed -n -E '/^commands:/,/^$/s/^  ([a-z][a-z0-9-]*) .*/\1/p'
}

# _ptxgen_options PTXGEN COMMAND: the options `ptxgen COMMAND --help` lists
# (first column of the option table: `  -o [ --output ] arg`, `  --arch arg`).
_ptxgen_options() {
  "$1" "$2" --help 2>/dev/null |
    sed -n -E 's/^  (-[a-zA-Z]) \[ (--[a-z0-9][a-z0-9-]*) \].*/\1 \2/p; s/^  (--[a-z0-9][a-z0-9-]*).*/\1/p'
}

# _ptxgen_actions PTXGEN COMMAND: fixed first words from the usage line
# (`usage: ptxgen cache dir|stats|clear`).
_ptxgen_actions() {
  "$1" "$2" --help 2>/dev/null |
    sed -n -E "1s/^usage: ptxgen $2 ([a-z]+(\|[a-z]+)+)\$/\1/p" | tr '|' ' '
}

_ptxgen() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi
  local program=${words[0]}
  [[ $program == */* ]] || program=$(type -P "$program") || return

  declare -gA _ptxgen_cache
  if ((cword == 1)); then
    [[ -v _ptxgen_cache[commands] ]] || _ptxgen_cache[commands]="$(_ptxgen_commands "$program") --help --version"
    mapfile -t COMPREPLY < <(compgen -W "${_ptxgen_cache[commands]}" -- "$cur")
    return
  fi

  local command=${words[1]}
  if [[ $cur == -* ]]; then
    [[ -v _ptxgen_cache[opts:$command] ]] ||
      _ptxgen_cache[opts:$command]=$(_ptxgen_options "$program" "$command" | tr '\n' ' ')
    mapfile -t COMPREPLY < <(compgen -W "${_ptxgen_cache[opts:$command]}" -- "$cur")
    return
  fi
  if ((cword == 2)); then
    [[ -v _ptxgen_cache[actions:$command] ]] ||
      _ptxgen_cache[actions:$command]=$(_ptxgen_actions "$program" "$command")
    if [[ -n ${_ptxgen_cache[actions:$command]} ]]; then
      mapfile -t COMPREPLY < <(compgen -W "${_ptxgen_cache[actions:$command]}" -- "$cur")
      return
    fi
  fi
  # Option values and inputs: files and directories (specs, PTX, outputs).
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

complete -F _ptxgen ptxgen
