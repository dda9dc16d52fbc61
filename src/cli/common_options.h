// Helpers shared by several subcommands: reading topology captures given on the command line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
};

/// One recipe to check: a Bridge recipe, or one argument section of a Megatron-LM config.
struct RecipeSubject {
  Recipe recipe;
  std::string section;                          ///< MLM section name ("" for Bridge recipes).
  std::optional<int64_t> world_size;            ///< The section's own GPU count, when it says.
  std::map<std::string, std::string> env_vars;  ///< ENV_VARS of a functional-test config.
};

/// With --mlm-args or --hf-config and no RECIPE, the first override lands in the RECIPE slot
/// (CLI11 fills the positional with the first bare token): move it back to the overrides, in
/// command-line order ("-cp 4" gives "-cp" to the overrides and "4" to the slot).
void reclaim_override_from_recipe_slot(std::string& recipe, std::vector<std::string>& overrides);

/// Load RECIPE (Bridge YAML, or a Megatron-LM functional-test config detected by its MODEL_ARGS
/// key) or --mlm-args, fill model dims from --hf-config, then apply the overrides (shorthand
/// flags included) in command-line order. Error (bad input) when nothing or both are given.
Result<std::vector<RecipeSubject>> load_recipe_subjects(const RecipeSources& sources,
                                                        const std::vector<std::string>& overrides);

/// Load and merge topology captures (hwloc XML, NCCL topology XML, `nvidia-smi topo -m` text),
/// in that order. A path may hold "{rank}", replaced by the MPI launcher's rank of this process
/// so each rank reads its own node's capture. Error (bad input) on the first unreadable file.
Result<Topology> load_topology_captures(const std::vector<std::string>& hwloc_xml,
                                        const std::vector<std::string>& nccl_topo,
                                        const std::vector<std::string>& smi_topo);

}  // namespace hcp::cli
