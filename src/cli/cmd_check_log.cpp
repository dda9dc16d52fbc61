// hcp-plan check-log LOG... [RECIPE [OVERRIDE...]]: read a training job's log and check what it
// did against the rules, the groups its configuration needs and the plan's prediction.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
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
  std::string cluster;
  std::string topology;
  std::string calibration;
  std::string save_calibration;
  std::optional<double> tolerance;  ///< --tolerance; default: the fitted band.
  double memory_tolerance = 0.2;
  int64_t warmup = 3;
  bool strict = false;
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

std::string format_ci(const std::string& format, const LogCheckReport& report) {
  DiagnosticsReport diags;
  diags.recipe = report.log.files.empty() ? "log" : report.log.files.front();
  diags.framework = report.log.config ? framework_name(report.log.config->recipe.framework) : "";
  diags.diagnostics = report.diagnostics;
  std::vector<DiagnosticsReport> reports{diags};
  if (format == "sarif") return format_diagnostics_sarif(reports, HCP_VERSION);
  if (format == "junit") return format_diagnostics_junit(reports);
  if (format == "github") return format_diagnostics_github(reports);
  if (format == "gcc") return format_diagnostics_gcc(reports);
  if (format == "json") return format_log_report_json(report);
  return format_log_report_text(report);
}

int run_check_log(const CheckLogOptions& opts, const std::vector<std::string>& args) {
  auto pos = split_positionals(args);
  if (!pos) {
    print_error(pos.error().str());
    return kExitBadInput;
  }
  auto log = parse_logs(pos->logs);
  if (!log) {
    print_error(log.error().str());
    return kExitBadInput;
  }
  LogCheckInputs in;
  if (!pos->recipe.empty()) {
    auto subjects =
        load_recipe_subjects(RecipeSources{pos->recipe, "", "", "direct"}, pos->overrides);
    if (!subjects) {
      print_error(subjects.error().str());
      return kExitBadInput;
    }
    in.recipe = subjects->front().recipe;
  }
  for (const auto& [name, value] : opts.env_options) {
    if (Status s = set_environment_option(in.env, name, value); !s) {
      print_error(s.error().str());
      return kExitBadInput;
    }
  }
  if (Status s = finalize_environment(in.env); !s) {
    print_error(s.error().str());
    return kExitBadInput;
  }
  in.memory_tolerance = opts.memory_tolerance;
  auto hardware = hardware_for_log(*log, opts.cluster, opts.topology, opts.calibration);
  if (!hardware) {
    print_error(hardware.error().str());
    return kExitBadInput;
  }
  // A cluster named on the command line also gives the rules its node size.
  if (!in.env.gpus_per_node && (!opts.cluster.empty() || !opts.topology.empty()))
    in.env.gpus_per_node = hardware->gpus_per_node;
  std::optional<Recipe> config = effective_recipe(*log, in.recipe);
  std::optional<int64_t> world = in.env.world_size ? in.env.world_size : log->world_size;
  if (!config) {
    in.prediction_error = "no configuration (the log prints none; pass RECIPE)";
  } else if (!world) {
    in.prediction_error = "the world size is unknown (pass --world-size)";
  } else {
    std::optional<PredictionBand> band;
    // The fitted bands describe the shipped constants' residuals; a calibrated run is centred.
    if (opts.tolerance) {
      band = default_prediction_band(*opts.tolerance);
    } else if (!opts.calibration.empty()) {
      band = default_prediction_band(0.25);
    }
    auto prediction = predict_run(*config, *world, *hardware, band);
    if (prediction) {
      in.prediction = std::move(*prediction);
    } else {
      in.prediction_error = prediction.error().message;
    }
  }
  in.speed = measured_speed(*log, opts.warmup);

  LogCheckReport report;
  report.diagnostics = check_log(*log, in);
  report.speed = in.speed;
  report.prediction = in.prediction;
  report.config_source = log->config ? "log" : (in.recipe ? "recipe" : "");
  if (in.speed && in.prediction) {
    report.speed_check =
        check_speed(in.speed->median_step_ms / 1000.0, in.prediction->estimate.time,
                    in.prediction->cp_off_step_s, in.prediction->band);
  }
  report.log = std::move(*log);

  if (!opts.save_calibration.empty()) {
    if (!in.speed || !in.prediction) {
      print_error("--save-calibration: " + (in.speed ? in.prediction_error
                                                     : std::string("no iteration lines after "
                                                                   "warm-up")));
      return kExitBadInput;
    }
    auto dims = model_dims_of(*config);
    if (!dims) {
      print_error("--save-calibration: " + dims.error().message);
      return kExitBadInput;
    }
    auto cal =
        calibration_from_run(*dims, *in.prediction, hardware->hardware, training_setup_of(*config),
                             in.speed->median_step_ms / 1000.0, HCP_VERSION);
    if (!cal) {
      print_error("--save-calibration: " + cal.error().message);
      return kExitBadInput;
    }
    auto nccl = report.log.versions.find("nccl");
    if (nccl != report.log.versions.end()) cal->nccl_version = nccl->second.version.str();
    if (Status s = save_calibration(*cal, opts.save_calibration); !s) {
      print_error(s.error().str());
      return kExitBadInput;
    }
  }

  if (!emit(opts.output, format_ci(opts.output.format, report))) return kExitBadInput;
  Summary s = summarize(report.diagnostics);
  return s.errors > 0 || (opts.strict && s.warnings > 0) ? kExitFindings : kExitOk;
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
  sub.add_option("--cluster", opts->cluster,
                 "Cluster profile for the prediction (default: the GPU the log names)");
  sub.add_option("--topology", opts->topology, "Cluster-profile YAML, e.g. from `probe --save`");
  sub.add_option("--calibration", opts->calibration, "Calibration JSON (bench or check-log)");
  sub.add_option("--tolerance", opts->tolerance,
                 "Relative band of the step-time prediction (default: the fitted band of the "
                 "run's regime, else 0.25)")
      ->check(CLI::Range(0.0, 10.0));
  sub.add_option("--memory-tolerance", opts->memory_tolerance,
                 "Relative band of the memory prediction (default 0.2)")
      ->check(CLI::Range(0.0, 10.0));
  sub.add_option("--warmup", opts->warmup, "Iterations left out of the median (default 3)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--save-calibration", opts->save_calibration,
                 "Write the measured step time as a calibration file for plan/compare");
  sub.add_flag("--strict", opts->strict, "Fail (exit 1) on warnings as well as errors");
  add_output_options(sub, opts->output, {"text", "json", "sarif", "junit", "github", "gcc"});
  return [opts, &sub]() { return run_check_log(*opts, sub.remaining(false)); };
}

const CommandRegistration kCheckLog{
    "check-log", "Check a training job's log: groups, rules, speed and memory against the plan",
    setup_check_log};

}  // namespace
}  // namespace hcp::cli
