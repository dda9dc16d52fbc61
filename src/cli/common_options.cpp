// Helpers shared by several subcommands.
#include "common_options.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/hf_config.h"
#include "hcp/mlm_args.h"
#include "hcp/project_config.h"
#include "output.h"

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
  const std::string rank = launcher_rank();
  // Search on after each replacement: a rank that itself reads "{rank}" is not expanded again.
  for (auto at = path.find(token); at != std::string::npos; at = path.find(token, at + rank.size()))
    path.replace(at, token.size(), rank);
  return path;
}

namespace {

/// True when `arg` is a (possibly negative) decimal number: "4", "-1", "0.5", "1e-4".
bool is_number(const std::string& arg) {
  if (arg.empty()) return false;
  char* end = nullptr;
  std::strtod(arg.c_str(), &end);
  return end == arg.c_str() + arg.size() && !std::isalpha(static_cast<unsigned char>(arg[0]));
}

}  // namespace

bool looks_like_override(const std::string& arg) {
  if (arg.empty()) return true;
  // A path with '=' in it ("lr=0.1/recipe.yaml", Hydra's multirun folders) is the recipe when
  // it names a file: no override key holds a '/', and an override is never a file.
  std::error_code ignored;
  if (arg.find('/') != std::string::npos && std::filesystem::is_regular_file(arg, ignored))
    return false;
  if (arg.find('=') != std::string::npos) return true;
  if (arg.front() == '~' || arg.front() == '+') return true;
  return is_number(arg);
}

CLI::Option* add_recipe_argument(CLI::App& sub, std::string& recipe, const std::string& help) {
  sub.allow_extras();
  sub.validate_positionals();
  return sub.add_option("recipe", recipe, help)
      ->check(CLI::Validator(
          [](std::string& arg) -> std::string {
            return looks_like_override(arg) ? "an override, not a recipe" : "";
          },
          "", "RECIPE"))
      ->type_name("RECIPE");
}

namespace {

/// An integer option and its physical range.
struct CountOption {
  const char* name;
  CountRange range;
};

/// Bench iterations: at least one.
constexpr CountRange kIterations{"an iteration count", 1, kMaxDimension};
/// The fitter's coordinate-descent rounds.
constexpr CountRange kFitRounds{"fitter rounds", 1, 100};
/// How many rows or options to print (0: all).
constexpr CountRange kListCount{"a count (0 for all)", 0, kMaxDimension};
/// How many of the plan's options to benchmark: at least one (--confirm 0 would ask for a GPU
/// to measure nothing).
constexpr CountRange kConfirmCount{"an option count", 1, kMaxDimension};

/// Every integer option of every subcommand but the seeds (any 64-bit value is a seed: seed_value).
constexpr CountOption kCountOptions[] = {
    // GPUs and parallel sizes.
    {"--nodes", kParallelCount},
    {"--gpus-per-node", kParallelCount},
    {"--world-size", kParallelCount},
    {"--nvlink-domain", kParallelCount},
    {"--tp", kParallelCount},
    {"--cp", kParallelCount},
    {"--pp", kParallelCount},
    {"--ep", kParallelCount},
    {"--etp", kParallelCount},
    {"--vpp", kParallelCount},
    {"--dp", kParallelCount},
    {"--max-pp", kParallelCount},
    {"--min-cp", kParallelCount},
    {"--min-dynamic-cp", kParallelCount},
    {"--distopt-instances", kParallelCount},
    // Sizes: as a recipe's size fields (schema.h).
    {"--global-batch", kDimensionCount},
    {"--seq-length", kDimensionCount},
    {"--max-seqlen-per-dp-cp-rank", kDimensionCount},
    {"--vpp-group", kDimensionCount},
    {"--layers", kDimensionCount},
    {"--hidden", kDimensionCount},
    {"--ffn-hidden", kDimensionCount},
    {"--kv-hidden", kDimensionCount},
    {"--heads", kDimensionCount},
    {"--kv-heads", kDimensionCount},
    {"--head-dim", kDimensionCount},
    {"--tile", kDimensionCount},
    {"--bytes-per-element", kDimensionCount},
    // Counts.
    {"--iterations", kIterations},
    {"--warmup", kCountOrZero},
    {"--rounds", kFitRounds},
    {"--top", kListCount},
    {"--show", kListCount},
    {"--confirm", kConfirmCount},
};

}  // namespace

void check_count_options(CLI::App& sub) {
  for (const CountOption& option : kCountOptions) {
    // A transform, not a check (CLI11 runs a check on a copy): the text CLI11 converts is the
    // decimal the validator read.
    if (CLI::Option* opt = sub.get_option_no_throw(option.name)) {
      opt->transform(physical_count(option.range));
    }
  }
  if (CLI::Option* seed = sub.get_option_no_throw("--seed")) seed->transform(seed_value());
}

void one_value_per_option(CLI::App& sub) {
  for (CLI::Option* opt : sub.get_options()) {
    if (opt->nonpositional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  }
}

void reject_empty_values(CLI::App& sub) {
  static const CLI::Validator kNonEmpty(
      [](const std::string& value) { return value.empty() ? std::string("an empty value") : ""; },
      "");
  for (CLI::Option* opt : sub.get_options()) {
    if (opt->nonpositional() && opt->get_items_expected_max() >= 1) opt->check(kNonEmpty);
  }
}

std::optional<std::string> unknown_option_message(const CLI::App& sub,
                                                  const std::vector<std::string>& extras) {
  const std::vector<std::string> flags = override_flag_names();
  std::vector<std::string> candidates = flags;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const std::string& n : opt->get_lnames())
      candidates.push_back("--" + n);
    for (const std::string& n : opt->get_snames())
      candidates.push_back("-" + n);
  }
  for (const std::string& arg : extras) {
    if (arg.size() < 2 || arg.front() != '-' || is_number(arg)) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(flags.begin(), flags.end(), name) != flags.end()) continue;
    if (auto removed = removed_launcher_option(name)) return *removed;
    std::string message = "unknown option '" + name + "'";
    std::string near = closest_match(name, candidates);
    return message + did_you_mean(name, near);
  }
  return std::nullopt;
}

Error option_value_error(const std::string& option, Error error) {
  error.message = option + ": " + error.message;
  error.location = Location{"<command line>", 0, 0};
  return error;
}

void add_recipe_sources(CLI::App& sub, RecipeSources& sources, const std::string& recipe_help) {
  add_recipe_argument(sub, sources.recipe, recipe_help);
  sub.add_option("--mlm-args", sources.mlm_args,
                 "Megatron-LM arguments instead of RECIPE: \"--flag v ...\" or @FILE");
  sub.add_option("--hf-config", sources.hf_config,
                 "Hugging Face config.json whose model dims fill the recipe (alone: the model)");
  sub.add_option("--launcher", sources.launcher,
                 "How a Bridge recipe is launched: direct (pretrain()/finetune() on the config) "
                 "or run_recipe (scripts/training/run_recipe.py, which sets the SFT CP loss "
                 "settings and packing alignment before validation). Default: run_recipe when "
                 "the command has run_recipe.py's arguments (--mode, --recipe, --dataset, -tp, "
                 "...) or train.sh's, else direct")
      ->check(one_of({"direct", "run_recipe"}))
      ->type_name("LAUNCHER");
}

namespace {

/// Standard input, read once: a second "-" (or a second command in the same process) gets the
/// same text instead of an empty pipe.
/// Read with the recipe size limit of file_input.h (a pipe is read up to the limit only).
Result<std::string> stdin_text() {
  static std::optional<Result<std::string>> text;
  if (!text) {
    Result<std::string> read = read_standard_input(InputKind::kRecipe);
    text = std::move(read);
  }
  if (!*text) return text->error();
  if ((*text)->empty()) return Error{"'-': standard input is empty", Location{"<stdin>", 0, 0}, ""};
  return **text;
}

}  // namespace

Result<RecipeSubject> load_one_recipe_subject(const RecipeSources& sources,
                                              const std::vector<std::string>& overrides) {
  auto subjects = load_recipe_subjects(sources, overrides);
  if (!subjects) return subjects.error();
  if (subjects->size() > 1) {
    std::string names;
    for (const RecipeSubject& s : *subjects)
      names += (names.empty() ? "" : ", ") + s.section;
    return Error{"the config has " + std::to_string(subjects->size()) + " argument sections (" +
                     names +
                     "); this command checks one launch: pass its arguments with --mlm-args",
                 Location{sources.recipe, 0, 0}, ""};
  }
  return std::move(subjects->front());
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

namespace {

/// The sources as the command means them: run_recipe.py's `--recipe NAME` names the recipe when
/// RECIPE, --mlm-args and --hf-config do not, and a command with run_recipe.py's arguments is
/// launched by it unless --launcher says otherwise.
RecipeSources as_launched(const RecipeSources& given, const std::vector<std::string>& overrides) {
  RecipeSources sources = given;
  if (sources.recipe.empty() && sources.mlm_args.empty() && sources.hf_config.empty()) {
    if (auto named = run_recipe_named_recipe(overrides)) sources.recipe = *named;
  }
  if (sources.launcher.empty()) {
    sources.launcher = has_run_recipe_arguments(overrides) ? "run_recipe" : "direct";
  }
  return sources;
}

}  // namespace

Result<std::vector<RecipeSubject>> load_recipe_subjects(const RecipeSources& given,
                                                        const std::vector<std::string>& overrides) {
  const RecipeSources sources = as_launched(given, overrides);
  std::vector<RecipeSubject> subjects;
  std::optional<std::string> mlm_source;
  if (!sources.mlm_args.empty()) mlm_source = sources.mlm_args;
  if (!sources.recipe.empty()) {
    if (mlm_source)
      return Error{"give either RECIPE or --mlm-args, not both", Location{"<command line>", 0, 0},
                   ""};
    if (sources.recipe == "-") {
      auto text = stdin_text();
      if (!text) return text.error();
      if (is_mlm_test_config_text(*text)) {
        // A Megatron-LM functional-test config on standard input.
        auto config = load_mlm_test_config_text(*text, "<stdin>");
        if (!config) return config.error();
        bool several = config->sections.size() > 1;
        for (MlmSection& section : config->sections) {
          subjects.push_back({std::move(section.recipe), several ? section.name : "",
                              section.gpus_per_node, config->env_vars});
        }
      } else {
        auto recipe = load_recipe_text(*text, "<stdin>");
        if (!recipe) return recipe.error();
        subjects.push_back({std::move(*recipe), "", std::nullopt, {}});
      }
    }
    auto path = sources.recipe == "-" ? Result<std::string>(std::string())
                                      : resolve_recipe_path(sources.recipe);
    if (!path) {
      // "llama3_8b" for "llama3_8b_128k": a shipped name it starts is the likely meaning.
      Error e = path.error();
      if (e.message.find("did you mean") == std::string::npos) {
        for (const std::string& name : shipped_recipe_names()) {
          if (name.rfind(sources.recipe, 0) != 0) continue;
          e.message += did_you_mean(sources.recipe, name);
          break;
        }
      }
      return e;
    }
    if (sources.recipe == "-") {
      // Loaded above.
    } else if (is_mlm_test_config(*path)) {
      mlm_source = "@" + *path;
    } else {
      auto recipe = load_recipe_file(*path);
      if (!recipe) return recipe.error();
      subjects.push_back({std::move(*recipe), "", std::nullopt, {}});
    }
  }
  if (mlm_source) {
    bool file = mlm_source->front() == '@' && sources.mlm_args.empty();
    Result<MlmConfig> config = Error{};
    if (*mlm_source == "@-") {  // --mlm-args @-: the argument list on standard input.
      auto text = stdin_text();
      if (!text) return text.error();
      config = load_mlm_args_text(*text, "@<stdin>", 1);
    } else {
      config = file ? load_mlm_test_config(mlm_source->substr(1)) : load_mlm_args(*mlm_source);
    }
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
    if (sources.launcher == "run_recipe") sync_run_recipe(subject.recipe);
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

bool apply_config_or_report(CLI::App& sub, const ConfigOptions& options,
                            const std::string& recipe) {
  auto applied = apply_project_config(sub, options, recipe);
  if (!applied) print_error(applied.error().str());
  return static_cast<bool>(applied);
}

Status canonicalize_ignored_ids(std::vector<std::string>& ids) {
  for (std::string& id : ids) {
    auto canonical = catalog_rule_id(id, Location{}, "--ignore");
    if (!canonical) return canonical.error();
    id = *canonical;
  }
  return Ok{};
}

void add_config_options(CLI::App& sub, ConfigOptions& options) {
  auto* config = sub.add_option("--config", options.config,
                                "Project config to use instead of the .hcp-plan.yaml found "
                                "upward from the working directory")
                     ->type_name("FILE");
  sub.add_flag("--no-config", options.no_config, "Use no project config")->excludes(config);
}

void add_finding_filter_options(CLI::App& sub, bool& strict, std::string& fail_on,
                                std::vector<std::string>& ignore, bool& quiet) {
  sub.add_flag("--strict", strict,
               "Fail (exit 1) on warnings as well as errors (same as --fail-on warning)");
  sub.add_option("--fail-on", fail_on,
                 "Lowest severity that fails (exit 1): error (default) or warning")
      ->check(one_of({"error", "warning"}));
  sub.add_option("--ignore", ignore, "Drop the findings of rule ID (repeatable)")->type_name("ID");
  sub.add_flag("--quiet,-q", quiet, "Leave info findings out of the report");
}

std::string effective_fail_on(const std::string& fail_on, const std::optional<std::string>& config,
                              bool strict) {
  if (!fail_on.empty()) return fail_on;
  if (config) return *config;
  return strict ? "warning" : "error";
}

Result<std::optional<ProjectConfig>> load_config_option(const ConfigOptions& options) {
  if (options.no_config) return std::optional<ProjectConfig>{};
  std::optional<std::string> path = options.config.empty()
                                        ? find_project_config(".")
                                        : std::optional<std::string>(options.config);
  if (!path) return std::optional<ProjectConfig>{};
  auto config = load_project_config(*path);
  if (!config) return config.error();
  return std::optional<ProjectConfig>(std::move(*config));
}

namespace {

/// Give `option` the config's `values` as if the command line had (validators run).
Status give_config_value(CLI::Option& option, const std::vector<std::string>& values,
                         const std::string& key, const std::string& config_path) {
  try {
    for (const std::string& value : values)
      option.add_result(value);
    option.run_callback();
  } catch (const CLI::Error& e) {
    return Error{key + ": " + e.what(), Location{config_path, 0, 0}, key};
  }
  return Ok{};
}

}  // namespace

Result<AppliedConfig> apply_project_config(CLI::App& sub, const ConfigOptions& options,
                                           const std::string& recipe) {
  auto config = load_config_option(options);
  if (!config) return config.error();
  AppliedConfig applied;
  if (!*config) return applied;
  applied.fail_on = (*config)->fail_on;
  auto path = recipe.empty() || recipe == "-" ? Result<std::string>(std::string())
                                              : resolve_recipe_path(recipe);
  applied.settings = path && !path->empty() ? settings_for(**config, *path) : (*config)->defaults;
  bool shape_given = false;
  for (const CLI::Option* option : sub.get_options()) {
    const std::string name = option->get_name();
    shape_given = shape_given || (option->count() > 0 && name.rfind("--", 0) == 0 &&
                                  is_shape_option(name.substr(2)));
  }
  for (const auto& [name, value] : applied.settings.options) {
    CLI::Option* option = sub.get_option_no_throw("--" + name);
    if (option == nullptr || option->count() > 0 || (shape_given && is_shape_option(name)))
      continue;
    if (Status s = give_config_value(*option, {value}, name, (*config)->path); !s) return s.error();
  }
  CLI::Option* env = sub.get_option_no_throw("--env");
  if (env != nullptr && env->count() == 0 && !applied.settings.env.empty()) {
    if (Status s = give_config_value(*env, applied.settings.env, "env", (*config)->path); !s)
      return s.error();
  }
  return applied;
}

}  // namespace hcp::cli
