# bash completion for hcp-plan
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
  case "$prev" in
    --format) COMPREPLY=($(compgen -W "text json sarif junit github gcc" -- "$cur")); return ;;
    --framework) COMPREPLY=($(compgen -W "bridge mlm" -- "$cur")); return ;;
    --fail-on) COMPREPLY=($(compgen -W "error warning" -- "$cur")); return ;;
    --ignore) COMPREPLY=($(compgen -W "$(hcp-plan rules --format json 2>/dev/null | grep -o 'CP[0-9]*' | sort -u)" -- "$cur")); return ;;
    --recompute) COMPREPLY=($(compgen -W "none selective full" -- "$cur")); return ;;
    --cluster) COMPREPLY=($(compgen -W "dgx-a100 dgx-h100 dgx-h200 dgx-b200 dgx-b300 gb200-nvl72 gb300-nvl72 pcie-8gpu" -- "$cur")); return ;;
    -o|--output|--hwloc-xml|--nccl-topo|--nvidia-smi-topo|--topology|--calibration|--lengths|--idx|--hf-config|--save|--html|--corpus|--constants|--write|--save-calibration|--config)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [ "${words[1]}" = "explain" ]; then
    COMPREPLY=($(compgen -W "$(hcp-plan rules --format json 2>/dev/null | grep -o '"id": *"CP[0-9]*"' | grep -o 'CP[0-9]*')" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    local opts
    opts=$(hcp-plan "${words[1]}" --help 2>/dev/null | grep -o -- '--[a-z0-9-]*' | sort -u)
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    local names
    names=$(hcp-plan recipes --format json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/')
    COMPREPLY=($(compgen -f -X '!*.@(yaml|yml|json|txt|log|gz)' -- "$cur") $(compgen -d -- "$cur")
               $(compgen -W "$names" -- "$cur"))
  fi
}
complete -F _hcp_plan hcp-plan
