// Helpers shared by several subcommands.
#include "common_options.h"

#include <cstdlib>

#include "hcp/hf_config.h"
#include "hcp/mlm_args.h"

namespace hcp::cli {
namespace {

/// Rank of this process as the MPI launcher tells it (before MPI_Init); "0" outside MPI.
std::string launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(var)) return v;
  return "0";
}

}  // namespace

std::string expand_rank(std::string path) {
  const std::string token = "{rank}";
  for (auto at = path.find(token); at != std::string::npos; at = path.find(token))
    path.replace(at, token.size(), launcher_rank());
  return path;
}

void reclaim_override_from_recipe_slot(std::string& recipe, std::vector<std::string>& overrides) {
  bool value_of_a_flag =
      !overrides.empty() && !overrides.front().empty() && overrides.front().front() == '-';
  if (recipe.empty() || (recipe.find('=') == std::string::npos && !value_of_a_flag)) return;
  // The slot holds the first bare token: the value of a leading shorthand flag, or an override.
  overrides.insert(overrides.begin() + (value_of_a_flag ? 1 : 0), recipe);
  recipe.clear();
}

/// A Bridge recipe's env_vars: Bridge applies them as environment defaults before launch
/// (os.environ.setdefault(name, str(value)), Megatron-Bridge 067f987d
/// src/megatron/bridge/training/config.py:1984-1989), so they are the launch environment the
/// environment rules (CP071, CP111, ...) check, unless --env gives a value (it wins, as the real
/// environment does over setdefault). Values are written as Python's str() writes them.
std::map<std::string, std::string> recipe_env_defaults(const Recipe& recipe) {
  std::map<std::string, std::string> env;
  const Value* vars = recipe.find("env_vars");
  if (vars == nullptr || !vars->is_map()) return env;
  for (const auto& [name, value] : vars->entries()) {
    if (value.is_bool()) {
      env[name] = value.as_bool() ? "True" : "False";
    } else if (!value.is_null() && !value.is_map() && !value.is_list()) {
      env[name] = value.str();
    }
  }
  return env;
}

Result<std::vector<RecipeSubject>> load_recipe_subjects(const RecipeSources& sources,
                                                        const std::vector<std::string>& overrides) {
  std::vector<RecipeSubject> subjects;
  std::optional<std::string> mlm_source;
  if (!sources.mlm_args.empty()) mlm_source = sources.mlm_args;
  if (!sources.recipe.empty()) {
    if (mlm_source)
      return Error{"give either RECIPE or --mlm-args, not both", Location{"<command line>", 0, 0},
                   ""};
    auto path = resolve_recipe_path(sources.recipe);
    if (!path) return path.error();
    if (is_mlm_test_config(*path)) {
      mlm_source = "@" + *path;
    } else {
      auto recipe = load_recipe_file(*path);
      if (!recipe) return recipe.error();
      subjects.push_back({std::move(*recipe), "", std::nullopt, {}});
    }
  }
  if (mlm_source) {
    bool file = mlm_source->front() == '@' && sources.mlm_args.empty();
    auto config = file ? load_mlm_test_config(mlm_source->substr(1)) : load_mlm_args(*mlm_source);
    if (!config) return config.error();
    bool several = config->sections.size() > 1;
    for (MlmSection& section : config->sections) {
      subjects.push_back({std::move(section.recipe), several ? section.name : "",
                          section.gpus_per_node, config->env_vars});
    }
  }
  if (subjects.empty() && !sources.hf_config.empty()) {
    Recipe recipe;
    recipe.name = sources.hf_config;
    recipe.path = sources.hf_config;
    subjects.push_back({std::move(recipe), "", std::nullopt, {}});
  }
  if (subjects.empty())
    return Error{"nothing to check: give RECIPE, --mlm-args or --hf-config",
                 Location{"<command line>", 0, 0}, ""};
  for (RecipeSubject& subject : subjects) {
    if (!sources.hf_config.empty()) {
      if (Status s = apply_hf_config(subject.recipe, sources.hf_config); !s) return s.error();
    }
    if (Status s = apply_overrides(subject.recipe, overrides); !s) return s.error();
    if (subject.recipe.framework == Framework::kBridge) {
      for (auto& [name, value] : recipe_env_defaults(subject.recipe))
        subject.env_vars.emplace(name, value);
    }
  }
  return subjects;
}

Result<Topology> load_topology_captures(const std::vector<std::string>& hwloc_xml,
                                        const std::vector<std::string>& nccl_topo,
                                        const std::vector<std::string>& smi_topo) {
  Topology merged;
  bool first = true;
  auto add = [&](Result<Topology> t) -> Status {
    if (!t) return t.error();
    if (first) {
      merged = *t;
      first = false;
    } else {
      merge_topology(merged, *t);
    }
    return Ok{};
  };
  for (const auto& f : hwloc_xml)
    if (auto s = add(load_hwloc_xml(expand_rank(f))); !s) return s.error();
  for (const auto& f : nccl_topo)
    if (auto s = add(load_nccl_topo(expand_rank(f))); !s) return s.error();
  for (const auto& f : smi_topo)
    if (auto s = add(load_nvidia_smi_topo(expand_rank(f))); !s) return s.error();
  return merged;
}

}  // namespace hcp::cli
