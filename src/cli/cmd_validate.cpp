// hcp-plan validate RECIPE [OVERRIDE...]: load, apply overrides, run every rule, report.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/file_input.h"
#include "hcp/mlm_args.h"
#include "hcp/planner.h"
#include "hcp/project_config.h"
#include "hcp/python_env.h"
#include "hcp/recipe.h"
#include "hcp/report.h"
#include "hcp/rules.h"
#include "output.h"

#ifndef HCP_VERSION
#define HCP_VERSION "0.0.0"
#endif

namespace hcp::cli {
namespace {

struct ValidateOptions {
  RecipeSources sources;                           ///< RECIPE, --mlm-args, --hf-config.
  std::map<std::string, std::string> env_options;  ///< Long name -> value, as given.
  std::vector<std::string> launch_env;             ///< --env NAME=VALUE, in order.
  std::string python;   ///< --python PATH (or python3 with --detect-env).
  std::string cluster;  ///< --cluster NAME|PATH for the memory check ("": plan's default).
  std::optional<ClusterProfile> cluster_profile;  ///< --cluster's profile, read once.
  bool strict = false;
  std::string fail_on;              ///< --fail-on error|warning ("" = config, else --strict's).
  std::vector<std::string> ignore;  ///< --ignore ID (repeatable).
  bool quiet = false;               ///< --quiet: no info lines.
  ConfigOptions config;             ///< --config FILE, --no-config.
  OutputOptions output;
};

/// The project config (if any) and the settings it gives the recipe being checked.
struct ProjectContext {
  std::optional<ProjectConfig> config;
  ProjectSettings settings;  ///< For the current recipe.
};

/// The config's options for this recipe under the command line's: the command line wins, and a
/// command-line shape (world size, nodes, GPUs per node) replaces the config's whole shape.
void merge_project_options(ValidateOptions& opts, const ProjectSettings& settings) {
  bool shape_given = std::any_of(opts.env_options.begin(), opts.env_options.end(),
                                 [](const auto& kv) { return is_shape_option(kv.first); });
  for (const auto& [name, value] : settings.options) {
    if (shape_given && is_shape_option(name)) continue;
    if (name == "cluster") {
      if (opts.cluster.empty()) opts.cluster = value;
      continue;
    }
    opts.env_options.emplace(name, value);
  }
  if (opts.launch_env.empty()) opts.launch_env = settings.env;
}

/// The file's inline `# hcp-plan: disable=` comments ("" and "-" have none to read here).
InlineSuppressions inline_suppressions_of(const std::string& path) {
  if (path.empty() || path == "-") return {};
  Result<std::string> text = read_input_file(path, InputKind::kRecipe);  // the loader says why not
  return text ? scan_suppressions(*text) : InlineSuppressions{};
}

/// Add the environment options (--world-size, --te-version, ...) as plain strings; their values
/// are checked by set_environment_option so every command reports them the same way.
void add_environment_options(CLI::App& sub, ValidateOptions& opts) {
  struct Spec {
    const char* name;
    const char* help;
    const char* alias = nullptr;  ///< Another spelling a pasted launcher command uses.
  };
  static const Spec specs[] = {
      {"world-size", "Total number of GPUs (N)"},
      {"nodes", "Number of nodes (with --gpus-per-node)"},
      // train.sh's setup_experiment.py takes both spellings (Megatron-Bridge 067f987d
      // scripts/training/setup_experiment.py:67-73), the performance scripts the underscore one
      // (scripts/performance/argument_parser.py:463-469).
      {"gpus-per-node", "GPUs per node (G)", "--gpus_per_node"},
      {"nvlink-domain", "GPUs per NVLink domain (e.g. 72 on GB200 NVL72)"},
      {"te-version", "Transformer Engine version X.Y.Z the job runs with"},
      {"mcore-version", "Megatron-Core version X.Y.Z the job runs with"},
      {"framework",
       "Whose semantics apply: megatron (the recipe's own, the default), bridge or mlm"},
      {"gpu-sm", "GPU compute capability, e.g. 90 for H100 (some backend rules need it)"},
  };
  for (const Spec& spec : specs) {
    std::string names = std::string("--") + spec.name;
    if (spec.alias != nullptr) names += std::string(",") + spec.alias;
    sub.add_option_function<std::string>(
        names,
        [&opts, name = std::string(spec.name)](const std::string& v) {
          opts.env_options[name] = v;
        },
        spec.help);
  }
}

/// The framework --framework (or the project config) names: bridge or mlm; nullopt for none and
/// for megatron, the recipe's own semantics.
std::optional<std::string> chosen_framework(const ValidateOptions& opts) {
  auto it = opts.env_options.find("framework");
  if (it == opts.env_options.end() || it->second == "megatron") return std::nullopt;
  return it->second;
}

/// Build the Environment from the options; a bad value is a usage error.
Result<Environment> environment_from(const ValidateOptions& opts, const Recipe& recipe) {
  Environment env;
  env.framework = recipe.framework;
  for (const auto& [name, value] : opts.env_options) {
    if (Status s = set_environment_option(env, name, value); !s) return s.error();
  }
  for (const std::string& assignment : opts.launch_env) {
    if (Status s = set_environment_option(env, "env", assignment); !s) return s.error();
  }
  if (Status s = finalize_environment(env); !s) return s.error();
  return env;
}

/// Read the versions installed in --python / --detect-env's interpreter; exit 3 when it cannot
/// be run.
Result<std::optional<PythonEnvironment>> detect_python(const ValidateOptions& opts) {
  if (opts.python.empty()) return std::optional<PythonEnvironment>{};
  auto py = probe_python_env(opts.python);
  if (!py) return py.error();
  return std::optional<PythonEnvironment>(std::move(*py));
}

/// CP115: plan's request for this recipe on --cluster (plan's default when none), priced on the
/// world size validate knows. Nothing when the world size is unknown or plan cannot take the
/// recipe (no model sizes: there is nothing to price).
std::optional<Diagnostic> memory_finding(const ValidateOptions& opts, const Recipe& recipe,
                                         const Environment& env) {
  if (!env.world_size) return std::nullopt;
  PlanInputs in;
  in.loaded = recipe;
  in.cluster = opts.cluster;
  in.cluster_profile = opts.cluster_profile;
  in.gpus_per_node = env.gpus_per_node;
  in.bands = false;  // CP115 gives the memory band, not the speed's
  auto prepared = prepare_plan(in);
  if (!prepared) return std::nullopt;
  prepared->request.env.world_size = env.world_size;
  std::string cluster = prepared->cluster_label;
  if (opts.cluster.empty()) cluster += ", plan's default cluster: pass --cluster";
  return memory_fit_finding(prepared->request, cluster);
}

/// Put `d` after the findings at least as severe (check_rules orders errors, warnings, infos).
void insert_by_severity(std::vector<Diagnostic>& ds, Diagnostic d) {
  auto after = std::find_if(ds.begin(), ds.end(), [&](const Diagnostic& x) {
    return static_cast<int>(x.severity()) < static_cast<int>(d.severity());
  });
  ds.insert(after, std::move(d));
}

/// Check one subject; MLM sections carry their own GPU count and ENV_VARS (the command line wins).
Result<std::vector<Diagnostic>> check_subject(const ValidateOptions& opts,
                                              const RecipeSubject& subject,
                                              const std::optional<PythonEnvironment>& py) {
  ValidateOptions local = opts;
  if (subject.world_size && !opts.env_options.count("nodes")) {
    local.env_options["world-size"] = std::to_string(*subject.world_size);
  }
  auto env = environment_from(local, subject.recipe);
  if (!env) return env.error();
  for (const auto& [name, value] : subject.env_vars)
    env->process_env.emplace(name, value);
  if (py) apply_python_env(*py, *env);
  std::vector<Diagnostic> ds = subject.recipe.load_notes;  // Loader warnings first.
  std::vector<Diagnostic> found = check_rules(subject.recipe, *env);
  if (auto memory = memory_finding(opts, subject.recipe, *env))
    insert_by_severity(found, std::move(*memory));
  ds.insert(ds.end(), found.begin(), found.end());
  if (!subject.section.empty()) {
    for (Diagnostic& d : ds)
      d.message = subject.section + ": " + d.message;
  }
  return ds;
}

/// One recipe's result: the exit code it alone would give and its report (when it loaded).
struct RecipeOutcome {
  int exit_code = kExitOk;
  std::optional<DiagnosticsReport> report;
};

/// Load and check the recipe in opts.recipe (or --mlm-args / --hf-config) with the overrides.
RecipeOutcome validate_one(const ValidateOptions& opts, const std::vector<std::string>& overrides,
                           const std::optional<PythonEnvironment>& py,
                           const ProjectContext& project) {
  auto subjects = load_recipe_subjects(opts.sources, overrides);
  if (!subjects) {
    // A recipe that does not load is a finding of every report format, located where the
    // loader stopped; text prints it (and every further error) on stderr.
    const Error& e = subjects.error();
    for (const Diagnostic& d : fold_repeats(load_error_diagnostics(e)))
      print_error(d.location.known() ? d.location.str() + ": " + d.message : d.message);
    DiagnosticsReport failed;
    failed.recipe = opts.sources.recipe.empty() ? "<command line>" : opts.sources.recipe;
    bool mlm = !opts.sources.mlm_args.empty() ||
               (!opts.sources.recipe.empty() && opts.sources.recipe != "-" &&
                is_mlm_test_config(opts.sources.recipe));
    failed.framework = chosen_framework(opts).value_or(mlm ? "mlm" : "bridge");
    failed.loaded = false;
    failed.diagnostics = load_error_diagnostics(e);
    return {kExitBadInput, std::move(failed)};
  }
  const Recipe& first = subjects->front().recipe;
  DiagnosticsReport report;
  report.recipe = first.path.empty() ? first.name : first.path;
  report.framework = chosen_framework(opts).value_or(framework_name(first.framework));
  if (py) report.diagnostics = python_env_diagnostics(*py);
  for (const RecipeSubject& subject : *subjects) {
    auto ds = check_subject(opts, subject, py);
    if (!ds) {
      print_error(ds.error().str());
      return {kExitBadInput, std::nullopt};
    }
    report.diagnostics.insert(report.diagnostics.end(), ds->begin(), ds->end());
  }
  std::vector<std::string> ignore = opts.ignore;
  ignore.insert(ignore.end(), project.settings.ignore.begin(), project.settings.ignore.end());
  InlineSuppressions inline_ids = inline_suppressions_of(first.path);
  if (Status s = canonicalize_suppressions(inline_ids, first.path); !s) {
    print_error(s.error().str());
    return {kExitBadInput, std::nullopt};
  }
  drop_suppressed(report.diagnostics, ignore, inline_ids, first.path);
  const std::string fail_on = effective_fail_on(
      opts.fail_on, project.config ? project.config->fail_on : std::nullopt, opts.strict);
  Summary s = summarize(report.diagnostics);
  bool failed = s.errors > 0 || (fail_on == "warning" && s.warnings > 0);
  if (opts.quiet) {
    std::erase_if(report.diagnostics,
                  [](const Diagnostic& d) { return d.severity() == Severity::kInfo; });
  }
  return {failed ? kExitFindings : kExitOk, std::move(report)};
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A positional after the first names another recipe when it is no override (no '=', no
/// leading '-' or '~' or '+') and is a .yaml/.yml/.json path or a shipped recipe name.
bool names_recipe(const std::string& arg) {
  if (arg.empty() || arg.find('=') != std::string::npos) return false;
  if (arg == "-") return true;  // Standard input (read once; a second "-" gets the same text).
  if (arg.front() == '-' || arg.front() == '~' || arg.front() == '+') return false;
  std::error_code ec;
  if (std::filesystem::is_directory(arg, ec)) return true;
  if (ends_with(arg, ".yaml") || ends_with(arg, ".yml") || ends_with(arg, ".json")) return true;
  for (const std::string& name : shipped_recipe_names()) {
    if (name == arg) return true;
  }
  return false;
}

/// Move the positionals that name recipes out of `overrides` into the returned list.
std::vector<std::string> take_extra_recipes(std::vector<std::string>& overrides) {
  std::vector<std::string> recipes;
  std::vector<std::string> rest;
  for (std::string& arg : overrides) {
    if (names_recipe(arg)) {
      recipes.push_back(std::move(arg));
    } else {
      rest.push_back(std::move(arg));
    }
  }
  overrides = std::move(rest);
  return recipes;
}

/// Format the reports; JSON is one object for one or many recipes.
std::string format_reports(const std::string& format, const std::vector<DiagnosticsReport>& reports,
                           bool color) {
  if (format == "sarif") return format_diagnostics_sarif(reports, HCP_VERSION);
  if (format == "junit") return format_diagnostics_junit(reports);
  if (format == "github") return format_diagnostics_github(reports);
  if (format == "gcc") return format_diagnostics_gcc(reports);
  if (format == "json") return format_diagnostics_json(reports);
  std::string text;
  for (const DiagnosticsReport& report : reports) {
    if (!report.loaded) continue;  // Its errors went to stderr.
    DiagnosticsReport shown = report;
    shown.color = color;
    text += format_diagnostics_text(shown);
  }
  return text;
}

/// A directory stands for every .yaml/.yml file in it (sorted, not recursive).
std::vector<std::string> expand_directories(const std::vector<std::string>& recipes) {
  std::vector<std::string> out;
  for (const std::string& recipe : recipes) {
    std::error_code ec;
    if (recipe.empty() || !std::filesystem::is_directory(recipe, ec)) {
      out.push_back(recipe);
      continue;
    }
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(recipe, ec)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file(ec) && (ext == ".yaml" || ext == ".yml"))
        files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    // A directory without recipes is bad input: the loader names it ("is a directory").
    if (files.empty()) files.push_back(recipe);
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

/// What a YAML file is when it is recognisably no recipe (pre-commit config, workflow, ...).
std::optional<std::string> skipped_kind(const std::string& recipe) {
  if (recipe.empty() || recipe == "-") return {};
  Result<std::string> text =
      read_input_file(recipe, InputKind::kRecipe);  // the loader says why not
  if (!text) return {};
  return non_recipe_yaml_kind(*text, recipe);
}

/// Move the `--env NAME` values (train.sh's setup_experiment.py option, 067f987d
/// scripts/training/setup_experiment.py:101-106: a variable the container inherits, its value
/// unknown) from `launch_env` to the arguments the recipe loader reads, which names them as
/// launcher options; `--env NAME=VALUE` stays hcp-plan's. A value that is another option (or
/// none) is argparse's "expected one argument".
Status take_inherited_env(std::vector<std::string>& launch_env,
                          std::vector<std::string>& overrides) {
  std::vector<std::string> assignments;
  for (std::string& value : launch_env) {
    if (value.empty() || value.front() == '-') {
      return Error{
          "argument --env: expected one argument (NAME to inherit, as train.sh takes it, "
          "or NAME=VALUE), got " +
              (value.empty() ? std::string("none") : "option '" + value + "'"),
          Location{"<command line>", 0, 0}, "env"};
    }
    if (value.find('=') != std::string::npos) {
      assignments.push_back(std::move(value));
    } else {
      overrides.push_back("--env");
      overrides.push_back(std::move(value));
    }
  }
  launch_env = std::move(assignments);
  return Ok{};
}

int run_validate(ValidateOptions opts, std::vector<std::string> overrides) {
  std::vector<std::string> recipes{opts.sources.recipe};
  if (!opts.sources.recipe.empty()) {
    std::vector<std::string> more = take_extra_recipes(overrides);
    recipes.insert(recipes.end(), more.begin(), more.end());
  }
  if (Status s = take_inherited_env(opts.launch_env, overrides); !s) {
    print_error(s.error().str());
    return kExitBadInput;
  }
  recipes = expand_directories(recipes);
  auto config = load_config_option(opts.config);
  if (!config) {
    print_error(config.error().str());
    return kExitBadInput;
  }
  if (Status s = canonicalize_ignored_ids(opts.ignore); !s) {
    print_error(s.error().str());
    return kExitBadInput;
  }
  if (!opts.cluster.empty()) {
    auto profile = find_cluster_profile(opts.cluster);
    if (!profile) {
      print_error(profile.error().str());
      return kExitBadInput;
    }
    opts.cluster_profile = std::move(*profile);
  }
  auto py = detect_python(opts);
  if (!py) {
    print_error(py.error().str());
    return kExitEnvironment;
  }
  int worst = kExitOk;
  std::vector<DiagnosticsReport> reports;
  for (const std::string& recipe : recipes) {
    if (auto kind = skipped_kind(recipe)) {
      print_note(recipe + ": skipped, not a recipe (" + *kind + ")");
      DiagnosticsReport skipped;
      skipped.recipe = recipe;
      skipped.skipped = *kind;
      if (opts.output.format == "json") reports.push_back(std::move(skipped));
      continue;
    }
    ValidateOptions one = opts;
    one.sources.recipe = recipe;
    ProjectContext project;
    project.config = *config;
    if (project.config) {
      auto path = recipe.empty() || recipe == "-" ? Result<std::string>(recipe)
                                                  : resolve_recipe_path(recipe);
      project.settings = settings_for(*project.config, path ? *path : recipe);
      merge_project_options(one, project.settings);
      // The config's cluster (the command line's was read above): an unknown name is an error,
      // as for --cluster, not a memory check that silently ran on plan's default.
      if (!one.cluster.empty() && !one.cluster_profile) {
        auto profile = find_cluster_profile(one.cluster);
        if (!profile) {
          Error error = profile.error();
          error.location = Location{project.config->path, 0, 0};
          error.message = "cluster: " + error.message;
          print_error(error.str());
          return kExitBadInput;
        }
        one.cluster_profile = std::move(*profile);
      }
    }
    RecipeOutcome outcome = validate_one(one, overrides, *py, project);
    worst = std::max(worst, outcome.exit_code);
    if (outcome.report) reports.push_back(std::move(*outcome.report));
  }
  if (reports.empty()) return worst;
  if (!emit(opts.output, format_reports(opts.output.format, reports, color_enabled(opts.output))))
    return kExitBadInput;
  return worst;
}

std::function<int()> setup_validate(CLI::App& sub) {
  auto opts = std::make_shared<ValidateOptions>();
  add_recipe_sources(
      sub, opts->sources,
      "Recipe path, shipped recipe name, directory, Megatron-LM model_config.yaml (MODEL_ARGS) "
      "or - (standard input); more recipes may follow");
  sub.footer(
      "Further .yaml/.yml/.json paths or shipped recipe names are validated too (exit = worst). "
      "Every other argument after RECIPE that is not an option is an override in Hydra grammar "
      "(k=v, "
      "+k=v, ++k=v, ~k) or a run_recipe.py shorthand flag (-tp 2 -cp 4 -sl 131072 ...).");
  add_environment_options(sub, *opts);
  add_finding_filter_options(sub, opts->strict, opts->fail_on, opts->ignore, opts->quiet);
  add_config_options(sub, opts->config);
  sub.add_option("--env", opts->launch_env,
                 "Launch environment variable NAME=VALUE of the job (repeatable); --env NAME "
                 "(train.sh's: inherited, value unknown) is named as a launcher option");
  sub.add_option("--cluster", opts->cluster,
                 "Cluster profile (name or YAML path) whose GPU memory the recipe's layout is "
                 "priced against (CP115; default dgx-h100, as plan)");
  auto* python = sub.add_option("--python", opts->python,
                                "Read TE/MCore/Bridge/torch/NCCL versions from this interpreter");
  sub.add_flag_callback(
         "--detect-env",
         [opts]() {
           if (opts->python.empty()) opts->python = "python3";
         },
         "Same as --python python3 (from PATH)")
      ->excludes(python);
  add_output_options(sub, opts->output, {"text", "json", "sarif", "junit", "github", "gcc"});
  return [opts, &sub]() { return run_validate(*opts, sub.remaining(false)); };
}

const CommandRegistration kValidate{
    "validate", "Check a recipe against every context-parallel rule (exit 1 on errors)",
    setup_validate};

}  // namespace
}  // namespace hcp::cli
