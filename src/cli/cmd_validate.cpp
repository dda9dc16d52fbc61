// hcp-plan validate RECIPE [OVERRIDE...]: load, apply overrides, run every rule, report.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "hcp/recipe.h"
#include "hcp/report.h"
#include "hcp/rules.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct ValidateOptions {
  std::string recipe;
  std::map<std::string, std::string> env_options;  ///< Long name -> value, as given.
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
  if (Status s = finalize_environment(env); !s) return s.error();
  return env;
}

/// Load the recipe and apply the overrides (shorthand flags included) in command-line order.
Result<Recipe> load_subject(const ValidateOptions& opts,
                            const std::vector<std::string>& overrides) {
  auto path = resolve_recipe_path(opts.recipe);
  if (!path) return path.error();
  auto recipe = load_recipe_file(*path);
  if (!recipe) return recipe.error();
  if (Status s = apply_overrides(*recipe, overrides); !s) return s.error();
  return recipe;
}

int run_validate(const ValidateOptions& opts, const std::vector<std::string>& overrides) {
  auto recipe = load_subject(opts, overrides);
  if (!recipe) {
    print_error(recipe.error().str());
    return kExitBadInput;
  }
  auto env = environment_from(opts, *recipe);
  if (!env) {
    print_error(env.error().str());
    return kExitBadInput;
  }
  DiagnosticsReport report;
  report.recipe = recipe->path.empty() ? recipe->name : recipe->path;
  report.framework = framework_name(env->framework);
  report.diagnostics = check_rules(*recipe, *env);
  std::string text = opts.output.format == "json" ? format_diagnostics_json(report)
                                                  : format_diagnostics_text(report);
  if (!emit(opts.output, text)) return kExitBadInput;
  Summary s = summarize(report.diagnostics);
  bool failed = s.errors > 0 || (opts.strict && s.warnings > 0);
  return failed ? kExitFindings : kExitOk;
}

std::function<int()> setup_validate(CLI::App& sub) {
  auto opts = std::make_shared<ValidateOptions>();
  sub.add_option("recipe", opts->recipe, "Recipe path, or the name of a shipped recipe")
      ->required();
  sub.allow_extras();
  sub.footer(
      "Every argument after RECIPE that is not an option is an override in Hydra grammar (k=v, "
      "+k=v, ++k=v, ~k) or a run_recipe.py shorthand flag (-tp 2 -cp 4 -sl 131072 ...).");
  add_environment_options(sub, *opts);
  sub.add_flag("--strict", opts->strict, "Fail (exit 1) on warnings as well as errors");
  add_output_options(sub, opts->output);
  return [opts, &sub]() { return run_validate(*opts, sub.remaining(false)); };
}

const CommandRegistration kValidate{
    "validate", "Check a recipe against every context-parallel rule (exit 1 on errors)",
    setup_validate};

}  // namespace
}  // namespace hcp::cli
