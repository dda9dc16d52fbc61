// Helpers shared by several subcommands: reading topology captures given on the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hcp/project_config.h"
#include "hcp/recipe.h"
#include "hcp/topology.h"

namespace hcp::cli {

/// Replace every "{rank}" in `path` with this process's rank as the MPI launcher tells it (before
/// MPI_Init; "0" outside MPI), so each rank of a cluster run reads its own node's files.
std::string expand_rank(std::string path);

/// Where the recipe to check comes from on the command line.
struct RecipeSources {
  std::string recipe;     ///< RECIPE: Bridge YAML, shipped name, or MLM model_config.yaml.
  std::string mlm_args;   ///< --mlm-args "--flag v ..." or @FILE.
  std::string hf_config;  ///< --hf-config config.json.
  /// --launcher: "direct" (the config goes straight to ConfigContainer.validate, e.g. a script
  /// calling pretrain()/finetune()) or "run_recipe" (Bridge's scripts/training/run_recipe.py,
  /// whose syncs run first: sync_run_recipe); "" (not given): run_recipe when the command has
  /// run_recipe.py's or train.sh's arguments (has_run_recipe_arguments), else direct.
  std::string launcher;
};

/// One recipe to check: a Bridge recipe, or one argument section of a Megatron-LM config.
struct RecipeSubject {
  Recipe recipe;
  std::string section;                          ///< MLM section name ("" for Bridge recipes).
  std::optional<int64_t> world_size;            ///< The section's own GPU count, when it says.
  std::map<std::string, std::string> env_vars;  ///< ENV_VARS of a functional-test config.
};

/// Add the RECIPE positional to `sub` (and allow the overrides after it). The slot takes the first
/// argument that is neither an override (k=v, +k=v, ~k) nor a number (the value of a shorthand
/// flag such as "-cp 4"); those stay in the overrides in command-line order, so overrides and
/// options may come before or after RECIPE with the same result.
CLI::Option* add_recipe_argument(CLI::App& sub, std::string& recipe, const std::string& help);

/// True when `arg` is an override or a flag's number rather than a recipe; a path with a '/' that
/// names a file is a recipe even with '=' in it ("lr=0.1/recipe.yaml").
bool looks_like_override(const std::string& arg);

/// Make every option of `sub` take one value per occurrence: a repeatable option is repeated
/// ("--env A=1 --env B=2"); what follows its value is an override or the next option.
void one_value_per_option(CLI::App& sub);

/// Make an empty value of any option of `sub` ("--cluster ''", "--te-version ''") bad input, not
/// the option left out.
void reject_empty_values(CLI::App& sub);

/// Hold every integer option of `sub` that kCountOptions names (common_options.cpp: --nodes,
/// --tp, --seq-length, --top, ...) to its physical range (physical_count), whichever subcommand
/// takes it: a count is checked before CLI11 converts it, so that 2^63 is an error, not INT64_MAX,
/// and read as decimal ("010" is 10, not CLI11's octal 8). --seed is held to seed_value alike.
void check_count_options(CLI::App& sub);

/// For the arguments CLI11 left over (overrides): the message for the first one that looks like
/// an option but is neither an option of `sub` nor a run_recipe.py shorthand flag, with a
/// did-you-mean; nullopt when there is none.
std::optional<std::string> unknown_option_message(const CLI::App& sub,
                                                  const std::vector<std::string>& extras);

/// `error` about the value of `option` ("--hcp") in the one form of an option-value error, as
/// CLI11's checks give it (main.cpp): "<command line>: --hcp: MESSAGE".
Error option_value_error(const std::string& option, Error error);

/// Add RECIPE (optional here; a command that needs one says so when loading), --mlm-args and
/// --hf-config to `sub`: every command that reads a recipe accepts the same three inputs.
void add_recipe_sources(CLI::App& sub, RecipeSources& sources, const std::string& recipe_help);

/// Load RECIPE ("-" reads standard input, once per process: a Bridge recipe named "<stdin>"),
/// (Bridge YAML, or a Megatron-LM functional-test config detected by its MODEL_ARGS
/// key) or --mlm-args, fill model dims from --hf-config, then apply the overrides (shorthand
/// flags included) in command-line order. Error (bad input) when nothing or both are given.
Result<std::vector<RecipeSubject>> load_recipe_subjects(const RecipeSources& given,
                                                        const std::vector<std::string>& overrides);

/// As load_recipe_subjects, for commands that look at one launch: a functional-test config with
/// several argument sections is an error that names them (pass one with --mlm-args).
Result<RecipeSubject> load_one_recipe_subject(const RecipeSources& sources,
                                              const std::vector<std::string>& overrides);

/// --config FILE / --no-config, as validate, plan, compare, groups, preflight and check-log take
/// them.
struct ConfigOptions {
  std::string config;      ///< --config FILE instead of the .hcp-plan.yaml found.
  bool no_config = false;  ///< --no-config
};
void add_config_options(CLI::App& sub, ConfigOptions& options);

/// --strict, --fail-on, --ignore and --quiet, as validate and check-log take them.
void add_finding_filter_options(CLI::App& sub, bool& strict, std::string& fail_on,
                                std::vector<std::string>& ignore, bool& quiet);
/// The lowest severity that fails: --fail-on, else the config's fail_on, else --strict's.
std::string effective_fail_on(const std::string& fail_on, const std::optional<std::string>& config,
                              bool strict);

/// --config FILE, else the .hcp-plan.yaml found upward from the working directory (none with
/// --no-config). Error (bad input) when it does not parse.
Result<std::optional<ProjectConfig>> load_config_option(const ConfigOptions& options);

/// What the project config gives a command besides its options.
struct AppliedConfig {
  ProjectSettings settings;            ///< For the command's recipe (or the top level).
  std::optional<std::string> fail_on;  ///< fail_on: error|warning.
};

/// Load the project config (load_config_option) and give each option of `sub` that the command
/// line left out the config's value for `recipe` (settings_for; the top level when `recipe` is
/// empty or "-"): world_size, nodes, gpus_per_node, cluster, te_version, mcore_version,
/// framework, ... and `env` as --env. A key the command has no option for is left alone; a
/// shape (world size, nodes, GPUs per node) on the command line replaces the config's whole
/// shape. A value the option rejects is an error (bad input) naming the config file.
Result<AppliedConfig> apply_project_config(CLI::App& sub, const ConfigOptions& options,
                                           const std::string& recipe);

/// apply_project_config for a command that uses only the config's options: print the error and
/// return false when the config does not load or a value is rejected.
bool apply_config_or_report(CLI::App& sub, const ConfigOptions& options, const std::string& recipe);

/// Respell the rule IDs given to --ignore as the catalog spells them (case is folded: cp064 is
/// CP064); an ID the catalog lacks is an error (bad input) with a did-you-mean, "--ignore:
/// unknown rule ID 'CP999' (did you mean CP099?)".
Status canonicalize_ignored_ids(std::vector<std::string>& ids);

/// Load and merge topology captures (hwloc XML, NCCL topology XML, `nvidia-smi topo -m` text),
/// in that order. A path may hold "{rank}", replaced by the MPI launcher's rank of this process
/// so each rank reads its own node's capture. Error (bad input) on the first unreadable file.
Result<Topology> load_topology_captures(const std::vector<std::string>& hwloc_xml,
                                        const std::vector<std::string>& nccl_topo,
                                        const std::vector<std::string>& smi_topo);

}  // namespace hcp::cli
