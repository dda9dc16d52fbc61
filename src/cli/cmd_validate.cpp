// hcp-plan validate RECIPE [OVERRIDE...]: load, apply overrides, run every rule, report.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
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
  std::string recipe;
  std::map<std::string, std::string> env_options;  ///< Long name -> value, as given.
  std::vector<std::string> launch_env;             ///< --env NAME=VALUE, in order.
  std::string mlm_args;                            ///< --mlm-args "--flag v ..." or @FILE.
  std::string hf_config;                           ///< --hf-config config.json.
  std::string python;  ///< --python PATH (or python3 with --detect-env).
  bool strict = false;
  OutputOptions output;
};

/// Add the environment options (--world-size, --te-version, ...) as plain strings; their values
/// are checked by set_environment_option so every command reports them the same way.
void add_environment_options(CLI::App& sub, ValidateOptions& opts) {
  struct Spec {
    const char* name;
    const char* help;
  };
  static const Spec specs[] = {
      {"world-size", "Total number of GPUs (N)"},
      {"nodes", "Number of nodes (with --gpus-per-node)"},
      {"gpus-per-node", "GPUs per node (G)"},
      {"nvlink-domain", "GPUs per NVLink domain (e.g. 72 on GB200 NVL72)"},
      {"te-version", "Transformer Engine version X.Y.Z the job runs with"},
      {"mcore-version", "Megatron-Core version X.Y.Z the job runs with"},
      {"framework", "Whose semantics apply: bridge or mlm (default: the recipe's)"},
      {"gpu-sm", "GPU compute capability, e.g. 90 for H100 (some backend rules need it)"},
  };
  for (const Spec& spec : specs) {
    sub.add_option_function<std::string>(
        std::string("--") + spec.name,
        [&opts, name = std::string(spec.name)](const std::string& v) {
          opts.env_options[name] = v;
        },
        spec.help);
  }
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
                           const std::optional<PythonEnvironment>& py) {
  auto subjects =
      load_recipe_subjects(RecipeSources{opts.recipe, opts.mlm_args, opts.hf_config}, overrides);
  if (!subjects) {
    print_error(subjects.error().str());
    return {kExitBadInput, std::nullopt};
  }
  const Recipe& first = subjects->front().recipe;
  DiagnosticsReport report;
  report.recipe = first.path.empty() ? first.name : first.path;
  auto framework = opts.env_options.find("framework");
  report.framework =
      framework != opts.env_options.end() ? framework->second : framework_name(first.framework);
  if (py) report.diagnostics = python_env_diagnostics(*py);
  for (const RecipeSubject& subject : *subjects) {
    auto ds = check_subject(opts, subject, py);
    if (!ds) {
      print_error(ds.error().str());
      return {kExitBadInput, std::nullopt};
    }
    report.diagnostics.insert(report.diagnostics.end(), ds->begin(), ds->end());
  }
  Summary s = summarize(report.diagnostics);
  bool failed = s.errors > 0 || (opts.strict && s.warnings > 0);
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
  if (arg.front() == '-' || arg.front() == '~' || arg.front() == '+') return false;
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

/// Format the reports; JSON keeps the single-recipe object and becomes an array for several.
std::string format_reports(const std::string& format,
                           const std::vector<DiagnosticsReport>& reports) {
  if (format == "sarif") return format_diagnostics_sarif(reports, HCP_VERSION);
  if (format == "junit") return format_diagnostics_junit(reports);
  if (format == "github") return format_diagnostics_github(reports);
  if (format == "gcc") return format_diagnostics_gcc(reports);
  if (format == "json") {
    if (reports.size() == 1) return format_diagnostics_json(reports.front());
    std::string text = "[\n";
    for (size_t i = 0; i < reports.size(); ++i) {
      std::string one = format_diagnostics_json(reports[i]);
      one.pop_back();  // the trailing newline
      text += one + (i + 1 < reports.size() ? ",\n" : "\n");
    }
    return text + "]\n";
  }
  std::string text;
  for (const DiagnosticsReport& report : reports)
    text += format_diagnostics_text(report);
  return text;
}

int run_validate(ValidateOptions opts, std::vector<std::string> overrides) {
  if (!opts.mlm_args.empty() || !opts.hf_config.empty())
    reclaim_override_from_recipe_slot(opts.recipe, overrides);
  std::vector<std::string> recipes{opts.recipe};
  if (!opts.recipe.empty()) {
    std::vector<std::string> more = take_extra_recipes(overrides);
    recipes.insert(recipes.end(), more.begin(), more.end());
  }
  auto py = detect_python(opts);
  if (!py) {
    print_error(py.error().str());
    return kExitEnvironment;
  }
  int worst = kExitOk;
  std::vector<DiagnosticsReport> reports;
  for (const std::string& recipe : recipes) {
    ValidateOptions one = opts;
    one.recipe = recipe;
    RecipeOutcome outcome = validate_one(one, overrides, *py);
    worst = std::max(worst, outcome.exit_code);
    if (outcome.report) reports.push_back(std::move(*outcome.report));
  }
  if (reports.empty()) return worst;
  if (!emit(opts.output, format_reports(opts.output.format, reports))) return kExitBadInput;
  return worst;
}

std::function<int()> setup_validate(CLI::App& sub) {
  auto opts = std::make_shared<ValidateOptions>();
  sub.add_option("recipe", opts->recipe,
                 "Recipe path, shipped recipe name, or Megatron-LM model_config.yaml (MODEL_ARGS); "
                 "more recipes may follow");
  sub.allow_extras();
  sub.footer(
      "Further .yaml/.yml/.json paths or shipped recipe names are validated too (exit = worst). "
      "Every other argument after RECIPE that is not an option is an override in Hydra grammar "
      "(k=v, "
      "+k=v, ++k=v, ~k) or a run_recipe.py shorthand flag (-tp 2 -cp 4 -sl 131072 ...).");
  add_environment_options(sub, *opts);
  sub.add_flag("--strict", opts->strict, "Fail (exit 1) on warnings as well as errors");
  sub.add_option("--env", opts->launch_env,
                 "Launch environment variable NAME=VALUE of the job (repeatable)");
  sub.add_option("--mlm-args", opts->mlm_args,
                 "Megatron-LM arguments to validate instead of RECIPE: \"--flag v ...\" or @FILE");
  sub.add_option("--hf-config", opts->hf_config,
                 "Hugging Face config.json whose model dims fill the recipe (alone: the model)");
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
