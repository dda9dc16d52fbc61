// check-log as one step: from the parsed logs and what the command line gave (recipe, environment,
// cluster, calibration, bands) to the report the formats print, saving a calibration when asked.
// The CLI (src/cli/cmd_check_log.cpp) only parses arguments and calls this.
#include <optional>
#include <string>
#include <utility>

#include "hcp/logcheck.h"

namespace hcp {
namespace {

/// The band of the prediction the command line asks for: --tolerance, else a centred 0.25 for a
/// calibrated run (the fitted bands describe the shipped constants' residuals), else none (the
/// fitted band).
std::optional<PredictionBand> requested_band(const LogCheckRun& run) {
  if (run.tolerance) return default_prediction_band(*run.tolerance, "--tolerance");
  if (!run.calibration.empty()) return default_prediction_band(0.25);
  return std::nullopt;
}

/// Price the configuration on the run's world size; on failure say why in `in.prediction_error`.
void predict_into(const std::optional<Recipe>& config, const ParsedLog& log,
                  const LogHardware& hardware, const LogCheckRun& run, LogCheckInputs& in) {
  std::optional<int64_t> world = in.env.world_size ? in.env.world_size : log.world_size;
  if (!config) {
    in.prediction_error = "no configuration (the log prints none; pass RECIPE)";
    return;
  }
  if (!world) {
    in.prediction_error = "the world size is unknown (pass --world-size)";
    return;
  }
  auto prediction = predict_run(*config, *world, hardware, requested_band(run));
  if (prediction) {
    in.prediction = std::move(*prediction);
  } else {
    in.prediction_error = prediction.error().message;
  }
}

Error save_calibration_error(const std::string& message) {
  return Error{"--save-calibration: " + message, Location{}, ""};
}

/// --save-calibration: the measured step time as a calibration file for plan/compare.
Status save_run_calibration(const std::optional<Recipe>& config, const LogCheckInputs& in,
                            const LogHardware& hardware, const LogCheckReport& report,
                            const LogCheckRun& run) {
  if (!in.speed || !in.prediction) {
    return save_calibration_error(in.speed ? in.prediction_error
                                           : std::string("no iteration lines after warm-up"));
  }
  auto dims = model_dims_of(*config);
  if (!dims) return save_calibration_error(dims.error().message);
  auto cal =
      calibration_from_run(*dims, *in.prediction, hardware.hardware, training_setup_of(*config),
                           in.speed->median_step_ms / 1000.0, run.tool_version);
  if (!cal) return save_calibration_error(cal.error().message);
  auto nccl = report.log.versions.find("nccl");
  if (nccl != report.log.versions.end()) cal->nccl_version = nccl->second.version.str();
  return save_calibration(*cal, run.save_calibration);
}

}  // namespace

Result<LogCheckReport> run_log_check(ParsedLog log, const LogCheckRun& run) {
  LogCheckInputs in;
  in.recipe = run.recipe;
  in.env = run.env;
  in.memory_tolerance = run.memory_tolerance;
  auto hardware = hardware_for_log(log, run.cluster, run.topology, run.calibration);
  if (!hardware) return hardware.error();
  // A cluster named on the command line also gives the rules its node size.
  if (!in.env.gpus_per_node && (!run.cluster.empty() || !run.topology.empty()))
    in.env.gpus_per_node = hardware->gpus_per_node;
  std::optional<Recipe> config = effective_recipe(log, in.recipe);
  predict_into(config, log, *hardware, run, in);
  in.speed = measured_speed(log, run.warmup);

  LogCheckReport report;
  report.diagnostics = check_log(log, in);
  report.speed = in.speed;
  report.prediction = in.prediction;
  report.config_source = log.config ? "log" : (in.recipe ? "recipe" : "");
  if (in.speed && in.prediction) {
    report.speed_check =
        check_speed(in.speed->median_step_ms / 1000.0, in.prediction->estimate.time,
                    in.prediction->cp_off_step_s, in.prediction->band);
  }
  report.log = std::move(log);
  if (!run.save_calibration.empty()) {
    if (Status s = save_run_calibration(config, in, *hardware, report, run); !s) return s.error();
  }
  return report;
}

}  // namespace hcp
