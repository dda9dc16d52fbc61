# bash completion for hcp-plan
# Candidates come from the binary itself, so they follow what each subcommand accepts: its options
# and the value sets its --help shows (--format TEXT:{text,json}), the rule IDs of every family
# (`hcp-plan rules --format ids`), the shipped recipes and cluster profiles (`recipes --format json`).

# The value set of option $2 in `hcp-plan $1 --help` ("--format TEXT:{a,b}=a" -> "a b").
_hcp_plan_choices() {
  hcp-plan "$1" --help 2>/dev/null |
    sed -n "s/^ *\\(-[a-z],\\)\\{0,1\\}$2 [A-Z]*:{\\([^}]*\\)}.*/\\2/p" | tr ',' ' '
}

# Shipped recipe names ($1 = recipes) or cluster profile names ($1 = clusters).
_hcp_plan_names() {
  hcp-plan recipes --format json 2>/dev/null |
    awk -v want="\"$1\"" '/^  "[a-z]+": \[/ { on = index($0, want) > 0 }
      on && /"name":/ { sub(/.*"name": *"/, ""); sub(/".*/, ""); print }'
}

_hcp_plan() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion || return
  else
    cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"; cword=$COMP_CWORD
    words=("${COMP_WORDS[@]}")
  fi
  local commands="validate groups plan compare accuracy probe bench dcp simulate preflight check-log rules explain recipes"
  if [ "$cword" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  local sub="${words[1]}"
  case "$prev" in
    --ignore) COMPREPLY=($(compgen -W "$(hcp-plan rules --format ids 2>/dev/null)" -- "$cur")); return ;;
    --cluster) COMPREPLY=($(compgen -W "$(_hcp_plan_names clusters)" -- "$cur") $(compgen -f -X '!*.@(yaml|yml)' -- "$cur")); return ;;
    --framework) COMPREPLY=($(compgen -W "megatron bridge mlm" -- "$cur")); return ;;
    --recompute) COMPREPLY=($(compgen -W "none selective full" -- "$cur")); return ;;
    -o|--output|--hwloc-xml|--nccl-topo|--nvidia-smi-topo|--topology|--calibration|--lengths|--idx|--hf-config|--save|--html|--corpus|--constants|--write|--save-calibration|--config|--env-file)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --*)
      local choices
      choices=$(_hcp_plan_choices "$sub" "$prev")
      if [ -n "$choices" ]; then
        COMPREPLY=($(compgen -W "$choices" -- "$cur"))
        return
      fi ;;
  esac
  if [ "$sub" = "explain" ]; then
    COMPREPLY=($(compgen -W "$(hcp-plan rules --format ids 2>/dev/null)" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    local opts
    opts=$(hcp-plan "$sub" --help 2>/dev/null | grep -o -- '--[a-z0-9-]*' | sort -u)
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -X '!*.@(yaml|yml|json|txt|log|gz)' -- "$cur") $(compgen -d -- "$cur")
               $(compgen -W "$(_hcp_plan_names recipes)" -- "$cur"))
  fi
}
complete -F _hcp_plan hcp-plan
