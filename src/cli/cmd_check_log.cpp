// hcp-plan check-log LOG... [RECIPE [OVERRIDE...]]: read a training job's log and check what it
// did against the rules, the groups its configuration needs and the plan's prediction.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/checked.h"
#include "hcp/logcheck.h"
#include "hcp/recipe.h"
#include "hcp/report.h"
#include "hcp/rules.h"
#include "output.h"

#ifndef HCP_VERSION
#define HCP_VERSION "0.0.0"
#endif

namespace hcp::cli {
namespace {

struct CheckLogOptions {
  std::map<std::string, std::string> env_options;
  LogCheckRun run;  ///< --cluster, --topology, --calibration, the bands, --save-calibration.
  bool strict = false;
  std::string fail_on;              ///< --fail-on error|warning ("" = config, else --strict's).
  std::vector<std::string> ignore;  ///< --ignore ID (repeatable).
  bool quiet = false;               ///< --quiet: no info findings.
  ConfigOptions config;             ///< --config FILE, --no-config.
  OutputOptions output;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool names_recipe(const std::string& arg) {
  if (ends_with(arg, ".yaml") || ends_with(arg, ".yml") || ends_with(arg, ".json")) return true;
  for (const std::string& name : shipped_recipe_names()) {
    if (name == arg) return true;
  }
  return false;
}

bool is_override(const std::string& arg) {
  return arg.find('=') != std::string::npos ||
         (!arg.empty() && (arg.front() == '-' || arg.front() == '+' || arg.front() == '~'));
}

/// Split the arguments: logs until the first recipe, then the recipe, then its overrides.
struct Positionals {
  std::vector<std::string> logs;
  std::string recipe;
  std::vector<std::string> overrides;
};
Result<Positionals> split_positionals(const std::vector<std::string>& args) {
  Positionals p;
  for (const std::string& arg : args) {
    if (!p.recipe.empty()) {
      p.overrides.push_back(arg);
    } else if (names_recipe(arg)) {
      p.recipe = arg;
    } else if (is_override(arg)) {
      return Error{"override '" + arg +
                       "' needs a RECIPE before it (check-log LOG... RECIPE "
                       "OVERRIDE...)",
                   Location{"<command line>", 0, 0}, ""};
    } else {
      p.logs.push_back(arg);
    }
  }
  if (p.logs.empty()) {
    return Error{"no log given (check-log LOG... [RECIPE [OVERRIDE...]])",
                 Location{"<command line>", 0, 0}, ""};
  }
  return p;
}

/// The recipe and environment the command line gives; error (bad input) as the first one fails.
Status fill_run_inputs(const CheckLogOptions& opts, const Positionals& pos, LogCheckRun& run) {
  if (!pos.recipe.empty()) {
    auto subjects =
        load_recipe_subjects(RecipeSources{pos.recipe, "", "", "direct"}, pos.overrides);
    if (!subjects) return subjects.error();
    run.recipe = subjects->front().recipe;
  }
  for (const auto& [name, value] : opts.env_options) {
    if (Status s = set_environment_option(run.env, name, value); !s) return s;
  }
  return finalize_environment(run.env);
}

/// --ignore and the config's ignore: drop those findings; --quiet: drop the info ones.
void drop_unwanted(const CheckLogOptions& opts, const AppliedConfig& config,
                   std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> ignore = opts.ignore;
  ignore.insert(ignore.end(), config.settings.ignore.begin(), config.settings.ignore.end());
  drop_suppressed(diagnostics, ignore, {}, "");
  if (opts.quiet) {
    std::erase_if(diagnostics, [](const Diagnostic& d) { return d.severity() == Severity::kInfo; });
  }
}

/// The exit code: --fail-on, else the config's fail_on, else --strict's.
int exit_code_of(const CheckLogOptions& opts, const AppliedConfig& config,
                 const std::vector<Diagnostic>& diagnostics) {
  const std::string fail_on = effective_fail_on(opts.fail_on, config.fail_on, opts.strict);
  Summary s = summarize(diagnostics);
  return s.errors > 0 || (fail_on == "warning" && s.warnings > 0) ? kExitFindings : kExitOk;
}

/// `opts` is the command's own (not a copy): the project config fills the options it binds.
int run_check_log(CLI::App& sub, CheckLogOptions& opts, const std::vector<std::string>& args) {
  auto pos = split_positionals(args);
  if (!pos) {
    print_error(pos.error().str());
    return kExitBadInput;
  }
  auto config = apply_project_config(sub, opts.config, pos->recipe);
  if (!config) {
    print_error(config.error().str());
    return kExitBadInput;
  }
  if (Status s = canonicalize_ignored_ids(opts.ignore); !s) {
    print_error(s.error().str());
    return kExitBadInput;
  }
  auto progress = std::make_unique<ElapsedProgress>("reading the log");
  auto log = parse_logs(pos->logs);
  progress.reset();  // before anything is printed
  if (!log) {
    print_error(log.error().str());
    return kExitBadInput;
  }
  LogCheckRun run = opts.run;
  run.tool_version = HCP_VERSION;
  if (Status s = fill_run_inputs(opts, *pos, run); !s) {
    print_error(s.error().str());
    return kExitBadInput;
  }
  progress = std::make_unique<ElapsedProgress>("checking the log");
  auto report = run_log_check(std::move(*log), run);
  progress.reset();
  if (!report) {
    print_error(report.error().str());
    return kExitBadInput;
  }
  drop_unwanted(opts, *config, report->diagnostics);
  if (!emit(opts.output, format_log_check(opts.output.format, *report, HCP_VERSION))) {
    return kExitBadInput;
  }
  return exit_code_of(opts, *config, report->diagnostics);
}

std::function<int()> setup_check_log(CLI::App& sub) {
  auto opts = std::make_shared<CheckLogOptions>();
  sub.allow_extras();
  sub.footer(
      "LOG...: the job's stdout/stderr (rank 0 or several ranks' files; plain or gzip; srun, "
      "torchrun and mpirun prefixes are stripped). The configuration the log prints is checked; "
      "a RECIPE after the logs (with Hydra overrides) fills what the log does not print.");
  static const std::pair<const char*, const char*> kEnv[] = {
      {"world-size", "Total number of GPUs (default: what the log prints)"},
      {"nodes", "Number of nodes (with --gpus-per-node)"},
      {"gpus-per-node", "GPUs per node"},
      {"te-version", "Transformer Engine version X.Y.Z (default: what the log prints)"},
      {"mcore-version", "Megatron-Core version X.Y.Z"},
  };
  for (const auto& [name, help] : kEnv) {
    sub.add_option_function<std::string>(
        std::string("--") + name,
        [opts, n = std::string(name)](const std::string& v) { opts->env_options[n] = v; }, help);
  }
  sub.add_option("--cluster", opts->run.cluster,
                 "Cluster profile for the prediction (default: the GPU the log names)");
  sub.add_option("--topology", opts->run.topology,
                 "Cluster-profile YAML, e.g. from `probe --save`");
  sub.add_option("--calibration", opts->run.calibration, "Calibration JSON (bench or check-log)");
  sub.add_option("--tolerance", opts->run.tolerance,
                 "Relative band of the step-time prediction (default: the fitted band of the "
                 "run's regime, else 0.25)")
      ->check(physical_number(kFraction));
  sub.add_option("--memory-tolerance", opts->run.memory_tolerance,
                 "Relative band of the memory prediction (default 0.2)")
      ->check(physical_number(kFraction));
  sub.add_option("--warmup", opts->run.warmup,
                 "Iterations left out of the median (default 3); the first logged line, which "
                 "averages over start-up, is left out too when later lines exist");
  sub.add_option("--save-calibration", opts->run.save_calibration,
                 "Write the measured step time as a calibration file for plan/compare");
  add_finding_filter_options(sub, opts->strict, opts->fail_on, opts->ignore, opts->quiet);
  add_config_options(sub, opts->config);
  add_output_options(sub, opts->output, {"text", "json", "sarif", "junit", "github", "gcc"});
  return [opts, &sub]() { return run_check_log(sub, *opts, sub.remaining(false)); };
}

const CommandRegistration kCheckLog{
    "check-log", "Check a training job's log: groups, rules, speed and memory against the plan",
    setup_check_log};

}  // namespace
}  // namespace hcp::cli
