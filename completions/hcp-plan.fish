# fish completion for hcp-plan. Candidates come from the binary: each subcommand's options and the
# value sets its --help shows (--format TEXT:{text,json}), the rule IDs (`rules --format ids`), the
# shipped recipes and cluster profiles (`recipes --format json`).

set -l hcp_plan_commands validate groups plan compare accuracy probe bench dcp simulate preflight check-log rules explain recipes

# The value set of option $argv[2] in `hcp-plan $argv[1] --help`.
function __hcp_plan_choices
    hcp-plan $argv[1] --help 2>/dev/null | string match -r -- "$argv[2] [A-Z]+:\{([^}]*)\}" | sed -n 2p | string split ,
end

# Shipped recipe names (recipes) or cluster profile names (clusters).
function __hcp_plan_names
    hcp-plan recipes --format json 2>/dev/null | awk -v want="\"$argv[1]\"" '/^  "[a-z]+": \[/ { on = index($0, want) > 0 }
      on && /"name":/ { sub(/.*"name": *"/, ""); sub(/".*/, ""); print }'
end

# The subcommand on the command line being completed.
function __hcp_plan_sub
    set -l words (commandline -opc)
    echo $words[2]
end

# Options of the subcommand being completed, from its --help.
function __hcp_plan_options
    hcp-plan (__hcp_plan_sub) --help 2>/dev/null | string match -ar -- '--[a-z0-9-]+' | sort -u
end

complete -c hcp-plan -f
complete -c hcp-plan -n "not __fish_seen_subcommand_from $hcp_plan_commands" -a "$hcp_plan_commands"
complete -c hcp-plan -n "__fish_seen_subcommand_from $hcp_plan_commands; and string match -q -- '-*' (commandline -ct)" -a "(__hcp_plan_options)"
complete -c hcp-plan -n "__fish_seen_subcommand_from $hcp_plan_commands" -l format -x -a "(__hcp_plan_choices (__hcp_plan_sub) --format)"
complete -c hcp-plan -n "__fish_seen_subcommand_from $hcp_plan_commands" -l fail-on -x -a "(__hcp_plan_choices (__hcp_plan_sub) --fail-on)"
complete -c hcp-plan -n "__fish_seen_subcommand_from $hcp_plan_commands" -l ignore -x -a "(hcp-plan rules --format ids 2>/dev/null)"
complete -c hcp-plan -n "__fish_seen_subcommand_from $hcp_plan_commands" -l cluster -x -a "(__hcp_plan_names clusters)"
complete -c hcp-plan -n "__fish_seen_subcommand_from plan compare validate preflight" -l framework -x -a "megatron bridge mlm"
complete -c hcp-plan -n "__fish_seen_subcommand_from plan compare" -l recompute -x -a "none selective full"
complete -c hcp-plan -n "__fish_seen_subcommand_from explain" -a "(hcp-plan rules --format ids 2>/dev/null)"
complete -c hcp-plan -n "__fish_seen_subcommand_from validate plan compare groups preflight check-log dcp simulate" -a "(__hcp_plan_names recipes)"
complete -c hcp-plan -n "__fish_seen_subcommand_from validate plan compare groups preflight check-log" -F
