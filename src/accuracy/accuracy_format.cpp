// `hcp-plan accuracy` output: text table and JSON.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "hcp/accuracy.h"
#include "hcp/breakdown_json.h"
#include "hcp/json_io.h"
#include "hcp/text_util.h"

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

/// The slice-name column: 26 characters keep a table inside kTextWidth (100).
constexpr size_t kSliceColumn = 26;

/// A table of slices. A name too long for its column (a system name from a publication) stands on
/// its own line, and its figures follow on the next, under their headers.
std::string slice_table(const std::vector<Slice>& slices) {
  std::string out = "  " + pad_column("slice", kSliceColumn) + pad_column("rows", 6) +
                    pad_column("MAPE", 8) + pad_column("median", 8) + pad_column("<=15%", 8) +
                    pad_column("tau", 7) + pad_column("groups", 7) + pad_column("OOM", 5) +
                    pad_column("OOM?", 6) + pad_column("band", 7) + "unpriced\n";
  for (const Slice& s : slices) {
    const Metrics& m = s.metrics;
    // A slice none of whose rows the model priced has no error to print: "-", not 0 %.
    const bool priced = m.rows > m.unpriced;
    const std::string name = text_columns(s.name) < kSliceColumn
                                 ? pad_column(s.name, kSliceColumn)
                                 : s.name + "\n  " + std::string(kSliceColumn, ' ');
    out += "  " + name + pad_column(std::to_string(m.rows), 6) +
           pad_column(priced ? pct(m.mape) : "-", 8) +
           pad_column(priced ? pct(m.median_ape) : "-", 8) +
           pad_column(priced ? pct(m.within_15) : "-", 8) +
           pad_column(m.tau_groups > 0 ? fmt("%.2f", m.kendall_tau) : "-", 7) +
           pad_column(std::to_string(m.tau_groups), 7) +
           pad_column(std::to_string(m.predicted_oom), 5) +
           pad_column(std::to_string(m.predicted_oom_unknown), 6) +
           pad_column(m.band_rows > 0 ? pct(m.coverage) : "-", 7) + std::to_string(m.unpriced) +
           "\n";
  }
  return out;
}

/// "  difference band (the tie rule ...): 390 of 393 inside (99.2%, ...); ..." (a line or two).
std::string difference_check_text(const DifferenceCheck& d) {
  std::string out =
      "  difference band (the tie rule of plan and compare) on the Megatron-family pairs of rows "
      "of one model, system and precision in one table whose inputs differ: ";
  if (d.pairs == 0) return out + "no such pair\n";
  out += std::to_string(d.inside) + " of " + std::to_string(d.pairs) + " inside (" +
         pct(static_cast<double>(d.inside) / static_cast<double>(d.pairs)) +
         ", the band is a 90th percentile); ";
  if (d.layout_pairs > 0) {
    out += "of the " + std::to_string(d.layout_pairs) +
           " pairs whose layouts differ in more than DP, " + std::to_string(d.layout_inside) +
           " inside (" +
           pct(static_cast<double>(d.layout_inside) / static_cast<double>(d.layout_pairs)) + "); ";
  }
  if (d.apart == 0) return out + "no pair predicted apart by more than the band\n";
  return out + std::to_string(d.apart_ordered) + " of the " + std::to_string(d.apart) +
         " pairs predicted apart by more than the band ran in the predicted order\n";
}

/// "  tau inside one publication ...: 0.88 (28 groups)" for the Megatron-family slice of
/// `slices`; "" when it has no such group.
std::string one_publication_tau_text(const std::vector<Slice>& slices) {
  for (const Slice& s : slices) {
    if (s.name != kMegatronFamilySlice || s.metrics.tau_one_publication_groups == 0) continue;
    return "  tau inside one publication (Megatron-family groups of >= 3 rows of one model, "
           "system and precision from one table or release: one software stack, as when plan "
           "compares layouts): " +
           fmt("%.2f", s.metrics.kendall_tau_one_publication) + " (" +
           std::to_string(s.metrics.tau_one_publication_groups) + " groups)\n";
  }
  return "";
}

json metrics_json(const Metrics& m) {
  const bool priced = m.rows > m.unpriced;
  return {{"rows", m.rows},
          {"unpriced", m.unpriced},
          {"predicted_oom", m.predicted_oom},
          {"predicted_oom_settings_unknown", m.predicted_oom_unknown},
          {"mape", json_if(priced, m.mape)},
          {"median_ape", json_if(priced, m.median_ape)},
          {"within_15", json_if(priced, m.within_15)},
          {"kendall_tau", json_if(m.tau_groups > 0, m.kendall_tau)},
          {"tau_groups", m.tau_groups},
          {"kendall_tau_one_publication",
           json_if(m.tau_one_publication_groups > 0, m.kendall_tau_one_publication)},
          {"tau_one_publication_groups", m.tau_one_publication_groups},
          {"band_rows", m.band_rows},
          {"band_coverage", json_if(m.band_rows > 0, m.coverage)}};
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
              {"framework", p.row->framework},
              {"publication", p.row->publication},
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

/// "; CP runs: p2p" / "; no CP runs" for a band that says which exchanges its CP rows ran; "".
std::string cp_runs_text(const RegimeBand& b) {
  if (!b.cp_comm_types) return "";
  if (b.cp_comm_types->empty()) return "; no CP runs";
  return "; CP runs: " + join(*b.cp_comm_types, ", ");
}

/// The bands of the fit in use, and how they were computed.
std::string bands_text(const AccuracyReport& r) {
  if (r.bands.empty()) return "";
  std::string out = "\nError bands per regime";
  out += r.bands_from.empty() ? ":\n" : " (" + r.bands_from + "):\n";
  for (const RegimeBand& b : r.bands) {
    out += "  " + pad_column(b.regime, 14) + pad_column(std::to_string(b.rows) + " rows", 10) +
           fmt("%+.0f%%", 100 * (std::exp(b.low) - 1)) + " .. " +
           fmt("%+.0f%%", 100 * (std::exp(b.high) - 1)) + "; difference band +-" +
           pct(std::exp(b.relative) - 1) +
           (b.pairs > 0 ? " (" + std::to_string(b.pairs) + " pairs)"
                        : " (no pair of rows whose inputs differ: half the absolute band)") +
           (b.sources >= 0 ? "; " + std::to_string(b.sources) +
                                 (b.sources == 1 ? " publication" : " publications")
                           : "") +
           (b.sources >= 0 && b.sources < kMinBandSources ? ", too few: not used" : "") +
           cp_runs_text(b) + "\n";
  }
  return out;
}

/// Every row of a prediction set, with the memory of rows predicted out of memory.
std::string rows_text(const std::vector<Prediction>& predictions) {
  std::string out;
  for (const Prediction& p : predictions) {
    out +=
        "  " + pad_column(p.row->id, 58) + pad_column(p.row->layout.label(), 34) +
        fmt("measured %8.0f", p.row->measured_tokens) +
        (p.predicted_tokens > 0 ? fmt("  predicted %8.0f", p.predicted_tokens) + "  " + pct(p.ape())
                                : std::string("  predicted        -")) +
        (p.fits_memory           ? ""
         : p.row->settings_found ? "  (predicted OOM)"
                                 : "  (predicted OOM; settings unknown)") +
        (p.error.empty() ? "" : "  " + p.error) + "\n";
    if (!p.fits_memory) out += memory_line(p);
  }
  return out;
}

}  // namespace

std::string format_accuracy_text(const AccuracyReport& r, bool per_row) {
  std::string out = "Model accuracy on " + r.corpus + "\n";
  out += "  " + std::to_string(r.corpus_rows) + " rows, " + std::to_string(r.excluded_rows) +
         " excluded (see each row's 'excluded'); constants: " + r.constants + "\n";
  out +=
      "  APE = |predicted - measured| / measured tokens/s/GPU (TFLOP/s rows through the model "
      "FLOPs per token); tau = mean Kendall tau-b inside (model, system, precision) groups of >= "
      "3 rows, over pairs of rows whose inputs differ (a job measured twice is not ranked);\n"
      "  OOM = rows that ran but are predicted out of memory; OOM? = the same among rows whose "
      "settings (FSDP, offload, recompute) are not published;\n"
      "  band = coverage: the share of rows whose measured value lies inside the band `plan` "
      "prints for them\n\n";
  out += "In-sample (the fit has seen these rows):\n" + slice_table(r.in_sample);
  if (!r.lomo.empty()) {
    out +=
        "\nLeave-one-model-out (fit without a model's rows, predict them):\n" + slice_table(r.lomo);
  }
  if (!r.loso.empty()) {
    out += "\nLeave-one-source-out (fit without one publication's rows, predict them):\n" +
           slice_table(r.loso);
  }
  if (!r.validation.empty()) {
    out +=
        "\nValidation set " + r.validation_path + " (never fitted):\n" + slice_table(r.validation);
    out += one_publication_tau_text(r.validation);
    if (r.validation_difference) out += difference_check_text(*r.validation_difference);
  }
  if (!r.held_out.empty()) {
    out +=
        "\nHeld out, corpus and validation set together (leave-one-source-out rows of the corpus "
        "and the validation set's rows; no row is predicted by a fit that saw its publication):\n" +
        slice_table(r.held_out) + one_publication_tau_text(r.held_out);
  }
  if (r.fitted) {
    out += "\nFitted constants (" + r.fitted->objective + "):\n";
    for (const FittedConstant& c : r.fitted->constants) {
      // The fit names every constant; the report lists those the fit moved or started apart.
      if (c.fitted_on.empty() && c.value == *ModelConstants::fit_start().get(c.qualified())) {
        continue;
      }
      out += "  " + pad_column(c.name, 20) + pad_column(c.generation, 17) +
             fmt("%-12.4g", c.value) + "(" + std::to_string(c.fitted_on.size()) + " rows)\n";
    }
  }
  out += bands_text(r);
  if (r.lomo_threshold > 0 && !r.lomo.empty()) {
    double mape = r.lomo.front().metrics.mape;
    out += "\nLOMO MAPE " + pct(mape) + (mape <= r.lomo_threshold ? " <= " : " > ") + "threshold " +
           pct(r.lomo_threshold) + "\n";
  }
  if (per_row) {
    out += "\nPer row (in-sample):\n" + rows_text(r.predictions);
    if (!r.validation_predictions.empty())
      out += "\nPer row (validation set):\n" + rows_text(r.validation_predictions);
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
  if (!r.loso.empty()) j["leave_one_source_out"] = slices_json(r.loso);
  if (!r.held_out.empty()) j["held_out"] = slices_json(r.held_out);
  if (!r.validation.empty()) {
    j["validation_set"] = r.validation_path;
    j["validation"] = slices_json(r.validation);
    j["validation_rows"] = predictions_json(r.validation_predictions);
    if (const auto& d = r.validation_difference) {
      j["validation_difference_band"] = {{"pairs", d->pairs},
                                         {"inside", d->inside},
                                         {"apart", d->apart},
                                         {"apart_ordered", d->apart_ordered},
                                         {"layout_pairs", d->layout_pairs},
                                         {"layout_inside", d->layout_inside}};
    }
  }
  if (!r.bands_from.empty()) j["bands_method"] = r.bands_from;
  j["bands"] = json::array();
  for (const RegimeBand& b : r.bands) {
    json one = {{"regime", b.regime},  {"rows", b.rows},           {"low", b.low},
                {"high", b.high},      {"difference", b.relative}, {"pairs", b.pairs},
                {"sources", b.sources}};
    // cp_comm_type of the band's CP rows; null: the fit file does not say.
    one["cp_comm_types"] = b.cp_comm_types ? json(*b.cp_comm_types) : json(nullptr);
    j["bands"].push_back(std::move(one));
  }
  j["rows"] = predictions_json(r.predictions);
  if (!r.lomo_predictions.empty()) j["lomo_rows"] = predictions_json(r.lomo_predictions);
  if (!r.loso_predictions.empty()) j["loso_rows"] = predictions_json(r.loso_predictions);
  if (r.lomo_threshold > 0) j["lomo_mape_threshold"] = r.lomo_threshold;
  if (r.fitted) j["fit"] = json::parse(fit_to_json(*r.fitted));
  return j.dump(1) + "\n";
}

}  // namespace hcp::accuracy
