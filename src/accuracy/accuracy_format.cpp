// `hcp-plan accuracy` output: text table and JSON.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "hcp/accuracy.h"
#include "hcp/breakdown_json.h"

namespace hcp::accuracy {

namespace {

using nlohmann::json;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string pct(double v) {
  return fmt("%.1f%%", 100 * v);
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string slice_table(const std::vector<Slice>& slices) {
  std::string out = "  " + pad("slice", 28) + pad("rows", 6) + pad("MAPE", 9) + pad("median", 9) +
                    pad("<=15%", 8) + pad("tau", 7) + pad("groups", 8) + pad("OOM", 5) +
                    pad("OOM?", 6) + "unpriced\n";
  for (const Slice& s : slices) {
    const Metrics& m = s.metrics;
    out += "  " + pad(s.name, 28) + pad(std::to_string(m.rows), 6) + pad(pct(m.mape), 9) +
           pad(pct(m.median_ape), 9) + pad(pct(m.within_15), 8) +
           pad(m.tau_groups > 0 ? fmt("%.2f", m.kendall_tau) : "-", 7) +
           pad(std::to_string(m.tau_groups), 8) + pad(std::to_string(m.predicted_oom), 5) +
           pad(std::to_string(m.predicted_oom_unknown), 6) + std::to_string(m.unpriced) + "\n";
  }
  return out;
}

json metrics_json(const Metrics& m) {
  return {{"rows", m.rows},
          {"unpriced", m.unpriced},
          {"predicted_oom", m.predicted_oom},
          {"predicted_oom_settings_unknown", m.predicted_oom_unknown},
          {"mape", m.mape},
          {"median_ape", m.median_ape},
          {"within_15", m.within_15},
          {"kendall_tau", m.kendall_tau},
          {"tau_groups", m.tau_groups}};
}

json slices_json(const std::vector<Slice>& slices) {
  json out = json::array();
  for (const Slice& s : slices) {
    json j = metrics_json(s.metrics);
    j["slice"] = s.name;
    out.push_back(j);
  }
  return out;
}

json predictions_json(const std::vector<Prediction>& predictions) {
  json out = json::array();
  for (const Prediction& p : predictions) {
    json j = {{"id", p.row->id},
              {"model", p.row->model},
              {"system", p.row->system},
              {"precision", p.row->precision},
              {"layout", p.row->layout.label()},
              {"measured_tokens_per_s_per_gpu", p.row->measured_tokens},
              {"predicted_tokens_per_s_per_gpu", p.predicted_tokens},
              {"ape", p.ape()},
              {"fits_memory", p.fits_memory}};
    if (p.row->tflops_metric) j["measured_model_tflops_per_gpu"] = p.row->measured_tflops;
    if (!p.error.empty()) j["error"] = p.error;
    if (p.predicted_tokens > 0) {
      j["breakdown"] = {{"time", time_breakdown_json(p.time)},
                        {"memory_gib", memory_breakdown_json(p.memory)}};
    }
    out.push_back(j);
  }
  return out;
}

/// The memory breakdown of a row the model says does not fit, in GiB.
std::string memory_line(const Prediction& p) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const MemoryBreakdown& m = p.memory;
  return fmt("      memory GiB: weights %.1f", m.weights / kGiB) +
         fmt(" grads %.1f", m.gradients / kGiB) + fmt(" optimizer %.1f", m.optimizer / kGiB) +
         fmt(" activations %.1f", m.activations / kGiB) + fmt(" cp %.1f", m.cp_buffers / kGiB) +
         fmt(" logits %.1f", m.logits / kGiB) + fmt(" reserved %.1f", m.reserved / kGiB) +
         fmt(" = %.1f", m.total / kGiB) + fmt(" > %.1f\n", p.memory_limit_gib);
}

}  // namespace

std::string format_accuracy_text(const AccuracyReport& r, bool per_row) {
  std::string out = "Model accuracy on " + r.corpus + "\n";
  out += "  " + std::to_string(r.corpus_rows) + " rows, " + std::to_string(r.excluded_rows) +
         " excluded (see each row's 'excluded'); constants: " + r.constants + "\n";
  out +=
      "  APE = |predicted - measured| / measured tokens/s/GPU (TFLOP/s rows through the model "
      "FLOPs per token); tau = mean Kendall tau-b inside (model, system) groups of >= 3 rows;\n"
      "  OOM = rows that ran but are predicted out of memory; OOM? = the same among rows whose "
      "Bridge preset (FSDP, offload, recompute) could not be found\n\n";
  out += "In-sample:\n" + slice_table(r.in_sample);
  if (!r.lomo.empty()) {
    out +=
        "\nLeave-one-model-out (fit without a model's rows, predict them):\n" + slice_table(r.lomo);
  }
  if (r.fitted) {
    out += "\nFitted constants (" + r.fitted->objective + "):\n";
    for (const FittedConstant& c : r.fitted->constants) {
      // The fit names every constant; the report lists those the fit moved or started apart.
      if (c.fitted_on.empty() && c.value == *ModelConstants::fit_start().get(c.qualified())) {
        continue;
      }
      out += "  " + pad(c.name, 20) + pad(c.generation, 17) + fmt("%-12.4g", c.value) + "(" +
             std::to_string(c.fitted_on.size()) + " rows)\n";
    }
    if (!r.fitted->bands.empty()) {
      out += "Error bands per regime (10th-90th percentile of log(measured/predicted)):\n";
      for (const RegimeBand& b : r.fitted->bands) {
        out += "  " + pad(b.regime, 14) + pad(std::to_string(b.rows) + " rows", 10) +
               fmt("%+.0f%%", 100 * (std::exp(b.low) - 1)) + " .. " +
               fmt("%+.0f%%", 100 * (std::exp(b.high) - 1)) + ", ranking +-" +
               pct(std::exp(b.relative) - 1) + "\n";
      }
    }
  }
  if (r.lomo_threshold > 0 && !r.lomo.empty()) {
    double mape = r.lomo.front().metrics.mape;
    out += "\nLOMO MAPE " + pct(mape) + (mape <= r.lomo_threshold ? " <= " : " > ") + "threshold " +
           pct(r.lomo_threshold) + "\n";
  }
  if (per_row) {
    out += "\nPer row (in-sample):\n";
    for (const Prediction& p : r.predictions) {
      out += "  " + pad(p.row->id, 58) + pad(p.row->layout.label(), 34) +
             fmt("measured %8.0f", p.row->measured_tokens) +
             fmt("  predicted %8.0f", p.predicted_tokens) + "  " + pct(p.ape()) +
             (p.fits_memory           ? ""
              : p.row->settings_found ? "  (predicted OOM)"
                                      : "  (predicted OOM; settings unknown)") +
             (p.error.empty() ? "" : "  " + p.error) + "\n";
      if (!p.fits_memory) out += memory_line(p);
    }
  }
  return out;
}

std::string format_accuracy_json(const AccuracyReport& r) {
  json j;
  j["corpus"] = r.corpus;
  j["constants"] = r.constants;
  j["corpus_rows"] = r.corpus_rows;
  j["excluded_rows"] = r.excluded_rows;
  j["in_sample"] = slices_json(r.in_sample);
  if (!r.lomo.empty()) j["leave_one_model_out"] = slices_json(r.lomo);
  j["rows"] = predictions_json(r.predictions);
  if (!r.lomo_predictions.empty()) j["lomo_rows"] = predictions_json(r.lomo_predictions);
  if (r.lomo_threshold > 0) j["lomo_mape_threshold"] = r.lomo_threshold;
  if (r.fitted) j["fit"] = json::parse(fit_to_json(*r.fitted));
  return j.dump(1) + "\n";
}

}  // namespace hcp::accuracy
