// The named fittable constants, the fit file and the error bands.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "hcp/accuracy.h"
#include "hcp/data_dir.h"

namespace hcp::accuracy {

namespace {

using nlohmann::json;

Error fit_error(const std::string& path, const std::string& key, const std::string& message) {
  Error e;
  e.message = path + ": " + message;
  e.location = Location{path, 0, 0};
  e.key = key;
  return e;
}

}  // namespace

const char* family_name(Family f) {
  switch (f) {
    case Family::kDense:
      return "dense";
    case Family::kMoe:
      return "moe";
    case Family::kHybrid:
      return "hybrid";
  }
  return "dense";
}

std::string Regime::name() const {
  return std::string(family_name(family)) + (cp ? ", CP>1" : ", CP=1");
}

std::string Regime::key() const {
  return std::string(family_name(family)) + (cp ? "_cp" : "_nocp");
}

Regime regime_of(const ModelDims& model, const LayoutChoice& layout) {
  Regime r;
  r.family = model.num_experts > 0 ? Family::kMoe : Family::kDense;
  r.cp = layout.cp > 1;
  return r;
}

std::string generation_of(const ClusterProfile& profile) {
  int sm = profile.gpu_sm;
  if (sm >= 80 && sm < 90) return "ampere";
  if (sm >= 90 && sm < 100) return "hopper";
  if (sm >= 100 && sm < 103) return "blackwell";
  if (sm >= 103 && sm < 110) return "blackwell-ultra";
  return "other";
}

const std::vector<ParameterSpec>& parameter_specs() {
  // Bounds: physical limits (an efficiency is a share of the peak; the half-rate chunk length
  // and latencies span what flash attention and NCCL report) so the fit cannot run away.
  static const std::vector<ParameterSpec> specs = {
      {"gemm_efficiency", 0.15, 1.0, "achieved / peak for the linear layers"},
      {"attn_efficiency", 0.10, 1.0, "achieved / peak for long-chunk attention (forward)"},
      {"attn_half_tokens", 16, 16384, "query chunk length at which attention runs at half rate"},
      {"nvlink_latency_s", 1e-6, 2e-4, "per-message latency inside the NVLink domain"},
      {"nic_latency_s", 2e-6, 5e-4, "per-message latency across domains"},
  };
  return specs;
}

std::optional<double> get_parameter(const Hardware& hw, const std::string& name) {
  if (name == "gemm_efficiency") return hw.gemm_efficiency;
  if (name == "attn_efficiency") return hw.attn_efficiency;
  if (name == "attn_half_tokens") return hw.attn_half_tokens;
  if (name == "nvlink_latency_s") return hw.nvlink_latency_s;
  if (name == "nic_latency_s") return hw.nic_latency_s;
  return std::nullopt;
}

bool set_parameter(Hardware& hw, const std::string& name, double value) {
  if (name == "gemm_efficiency") {
    hw.gemm_efficiency = value;
  } else if (name == "attn_efficiency") {
    hw.attn_efficiency = value;
  } else if (name == "attn_half_tokens") {
    hw.attn_half_tokens = value;
  } else if (name == "nvlink_latency_s") {
    hw.nvlink_latency_s = value;
  } else if (name == "nic_latency_s") {
    hw.nic_latency_s = value;
  } else {
    return false;
  }
  return true;
}

int apply_fit(Hardware& hw, const FittedModel& fit, const std::string& generation) {
  int applied = 0;
  for (const FittedConstant& c : fit.constants) {
    if (c.generation != generation && c.generation != "all") continue;
    if (!set_parameter(hw, c.name, c.value)) continue;
    ++applied;
    std::string where = "fitted to " + std::to_string(c.fitted_on.size()) + " corpus rows (" +
                        (fit.corpus.empty() ? std::string("corpus") : fit.corpus) + ")";
    bool replaced = false;
    for (auto& [name, source] : hw.sources) {
      if (name == c.name) {
        source = where;
        replaced = true;
      }
    }
    if (!replaced) hw.sources.emplace_back(c.name, where);
  }
  return applied;
}

Result<FittedModel> load_fit(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fit_error(path, "", "cannot read the fit file");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    return fit_error(path, "", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("constants") || !j["constants"].is_array()) {
    return fit_error(path, "constants", "the fit file needs a 'constants' list");
  }
  FittedModel fit;
  fit.corpus = j.value("corpus", "");
  fit.objective = j.value("objective", "");
  fit.lomo_mape_threshold = j.value("lomo_mape_threshold", 0.0);
  for (const json& c : j["constants"]) {
    if (!c.is_object() || !c.contains("name") || !c.contains("value") || !c["value"].is_number() ||
        !c["name"].is_string()) {
      return fit_error(path, "constants", "each constant needs a name and a numeric value");
    }
    FittedConstant k;
    k.name = c["name"].get<std::string>();
    k.generation = c.value("generation", "all");
    k.value = c["value"].get<double>();
    if (!get_parameter(Hardware{}, k.name)) {
      return fit_error(path, "constants." + k.name, "unknown constant '" + k.name + "'");
    }
    if (c.contains("fitted_on") && c["fitted_on"].is_array()) {
      for (const json& id : c["fitted_on"]) {
        if (id.is_string()) k.fitted_on.push_back(id.get<std::string>());
      }
    }
    fit.constants.push_back(std::move(k));
  }
  if (j.contains("bands") && j["bands"].is_array()) {
    for (const json& b : j["bands"]) {
      if (!b.is_object() || !b.contains("regime")) {
        return fit_error(path, "bands", "each band needs a regime");
      }
      RegimeBand band;
      band.regime = b["regime"].get<std::string>();
      band.rows = b.value("rows", int64_t{0});
      band.low = b.value("low", 0.0);
      band.high = b.value("high", 0.0);
      band.relative = b.value("relative", 0.0);
      if (band.low > band.high || band.relative < 0) {
        return fit_error(path, "bands." + band.regime, "band low > high or negative relative");
      }
      fit.bands.push_back(band);
    }
  }
  return fit;
}

std::string fit_to_json(const FittedModel& fit) {
  json j;
  j["what"] =
      "Fitted constants of hcp-plan's cost model, per GPU generation, and the error bands per "
      "regime. Written by `hcp-plan accuracy --fit --write`; every constant names the corpus "
      "rows it was fitted on. No per-model or per-row corrections.";
  j["corpus"] = fit.corpus;
  j["objective"] = fit.objective;
  j["lomo_mape_threshold"] = fit.lomo_mape_threshold;
  json constants = json::array();
  for (const FittedConstant& c : fit.constants) {
    constants.push_back({{"name", c.name},
                         {"generation", c.generation},
                         {"value", c.value},
                         {"fitted_on", c.fitted_on}});
  }
  j["constants"] = constants;
  json bands = json::array();
  for (const RegimeBand& b : fit.bands) {
    bands.push_back({{"regime", b.regime},
                     {"rows", b.rows},
                     {"low", b.low},
                     {"high", b.high},
                     {"relative", b.relative}});
  }
  j["bands"] = bands;
  return j.dump(1) + "\n";
}

std::string shipped_fit_path() {
  return find_data_file("corpus/fitted_constants.json");
}

const FittedModel* shipped_fit() {
  static std::once_flag once;
  static std::optional<FittedModel> fit;
  std::call_once(once, [] {
    std::string path = shipped_fit_path();
    if (path.empty()) return;
    auto loaded = load_fit(path);
    if (loaded) fit = std::move(*loaded);
  });
  return fit ? &*fit : nullptr;
}

Band band_for(const FittedModel& fit, const Regime& regime, const Estimate& estimate) {
  const RegimeBand* chosen = nullptr;
  auto find = [&](const std::string& key) -> const RegimeBand* {
    for (const RegimeBand& b : fit.bands) {
      if (b.regime == key && b.rows > 0) return &b;
    }
    return nullptr;
  };
  chosen = find(regime.key());
  if (!chosen) chosen = find(Regime{regime.family, false}.key());
  if (!chosen) {
    for (const RegimeBand& b : fit.bands) {
      if (!chosen || b.high - b.low > chosen->high - chosen->low) chosen = &b;
    }
  }
  Band band;
  band.regime = regime.name();
  double tokens = estimate.tokens_per_s_per_gpu;
  double step = estimate.time.step_s;
  if (!chosen) {
    band.tokens_per_s_per_gpu_low = band.tokens_per_s_per_gpu_high = tokens;
    band.step_s_low = band.step_s_high = step;
    return band;
  }
  band.tokens_per_s_per_gpu_low = tokens * std::exp(chosen->low);
  band.tokens_per_s_per_gpu_high = tokens * std::exp(chosen->high);
  band.step_s_low = step * std::exp(-chosen->high);
  band.step_s_high = step * std::exp(-chosen->low);
  band.relative = chosen->relative;
  return band;
}

}  // namespace hcp::accuracy
