// The named fittable constants, the fit file and the error bands.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "hcp/accuracy.h"
#include "hcp/cp_volume.h"
#include "hcp/data_dir.h"
#include "hcp/file_input.h"
#include "hcp/json_io.h"
#include "shipped_fit_text.h"

namespace hcp::accuracy {

namespace {

using nlohmann::json;

Error fit_error(const std::string& path, const std::string& key, const std::string& message) {
  Error e;
  e.message = key.empty() ? message : key + ": " + message;  // the location names the file
  e.location = Location{path, 0, 0};
  e.key = key;
  return e;
}

/// The range a fit file states for a constant must be the catalogue's, and its value inside it.
std::optional<std::string> range_error(const ConstantInfo& info, const json& c) {
  auto range = [&] {
    std::ostringstream out;
    out << "[" << info.min << ", " << info.max << "]";
    return out.str();
  };
  if (c.contains("range") &&
      (!c["range"].is_array() || c["range"].size() != 2 || !c["range"][0].is_number() ||
       !c["range"][1].is_number() || c["range"][0].get<double>() != info.min ||
       c["range"][1].get<double>() != info.max)) {
    return "range differs from the catalogue's " + range() + " (src/model/model_constants.cpp)";
  }
  double value = c["value"].get<double>();
  if (!(value >= info.min && value <= info.max)) return "value outside its range " + range();
  return std::nullopt;
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

std::string family_band_key(Family family) {
  return family_name(family);
}

Regime regime_of(const ModelDims& model, const Layout& layout) {
  Regime r;
  bool hybrid = model.layer_pattern.find_first_of("MG") != std::string::npos;
  r.family = hybrid ? Family::kHybrid : model.num_experts > 0 ? Family::kMoe : Family::kDense;
  r.cp = layout.cp > 1;
  return r;
}

std::string generation_of(const ClusterProfile& profile) {
  return generation_name(gpu_generation(profile));
}

int apply_fit(ModelConstants& constants, const FittedModel& fit) {
  int applied = 0;
  for (const FittedConstant& c : fit.constants) {
    std::string source = !c.source.empty()
                             ? c.source
                             : "fitted on " + std::to_string(c.fitted_on.size()) + " rows of " +
                                   (fit.corpus.empty() ? std::string("the corpus") : fit.corpus);
    if (constants.set(c.qualified(), c.value, source)) ++applied;
  }
  return applied;
}

namespace {

/// One entry of the fit file's "bands": a regime name, finite numbers, whole counts not below 0
/// (sources not below -1, "not said"), low and high log ratios on either side of 0 and
/// kMaxBandLogRatio at most from it, the difference band at most twice that.
Result<RegimeBand> parse_band(const json& b, const std::string& path) {
  if (!b.is_object() || !b.contains("regime") || !b["regime"].is_string()) {
    return fit_error(path, "bands", "each band needs a regime");
  }
  RegimeBand band;
  band.regime = b["regime"].get<std::string>();
  std::string key = "bands." + band.regime;
  for (const char* field : {"low", "high", "relative"}) {
    if (b.contains(field) && (!b[field].is_number() || !std::isfinite(b[field].get<double>()))) {
      return fit_error(path, key + "." + field, "must be a finite number");
    }
  }
  for (const char* field : {"rows", "pairs", "sources"}) {
    if (b.contains(field) && !b[field].is_number_integer()) {
      return fit_error(path, key + "." + field, "must be a whole number");
    }
  }
  band.rows = b.value("rows", int64_t{0});
  band.low = b.value("low", 0.0);
  band.high = b.value("high", 0.0);
  band.relative = b.value("relative", 0.0);
  band.pairs = b.value("pairs", int64_t{0});
  band.sources = b.value("sources", int64_t{-1});
  if (b.contains("cp_comm_types")) {
    const json& types = b["cp_comm_types"];
    if (!types.is_array()) return fit_error(path, key + ".cp_comm_types", "must be a list");
    band.cp_comm_types.emplace();
    for (const json& t : types) {
      if (!t.is_string() || !parse_cp_comm_type(t.get<std::string>())) {
        return fit_error(path, key + ".cp_comm_types", "each must be a cp_comm_type name");
      }
      band.cp_comm_types->push_back(t.get<std::string>());
    }
  }
  if (band.rows < 0 || band.pairs < 0 || band.sources < -1) {
    return fit_error(path, key, "rows and pairs must be >= 0 and sources >= -1");
  }
  // Log ratios, each band holding 0 (its own prediction), none wider than 100x either way.
  if (band.low < -kMaxBandLogRatio || band.low > 0) {
    return fit_error(path, key + ".low", "must be between -4.61 and 0 (log of at most 100x)");
  }
  if (band.high < 0 || band.high > kMaxBandLogRatio) {
    return fit_error(path, key + ".high", "must be between 0 and 4.61 (log of at most 100x)");
  }
  if (band.relative < 0 || band.relative > 2 * kMaxBandLogRatio) {
    return fit_error(path, key + ".relative",
                     "must be between 0 and 9.21 (a difference of two logs of at most 100x)");
  }
  return band;
}

Result<FittedModel> parse_fit(const std::string& text, const std::string& path) {
  Result<json> parsed = parse_json_input(text, path, "fitted-constants JSON");
  if (!parsed) return parsed.error();
  const json& j = *parsed;
  if (!j.is_object() || !j.contains("constants") || !j["constants"].is_array()) {
    return fit_error(path, "constants", "the fit file needs a 'constants' list");
  }
  FittedModel fit;
  fit.corpus = j.value("corpus", "");
  fit.objective = j.value("objective", "");
  fit.lomo_mape_threshold = j.value("lomo_mape_threshold", 0.0);
  fit.bands_method = j.value("bands_method", "");
  if (j.contains("protocol")) {
    const json& p = j["protocol"];
    if (!p.is_object() || !p.value("from_priors", json(false)).is_boolean() ||
        !p.value("prior_weight", json(0.0)).is_number() ||
        !p.value("rounds", json(8)).is_number_integer()) {
      return fit_error(path, "protocol",
                       "protocol needs from_priors (bool), prior_weight (number), rounds (int)");
    }
    fit.from_priors = p.value("from_priors", false);
    fit.prior_weight = p.value("prior_weight", 0.0);
    fit.rounds = p.value("rounds", 8);
    if (fit.prior_weight < 0 || fit.prior_weight > 100 || fit.rounds < 1 || fit.rounds > 100) {
      return fit_error(path, "protocol", "prior_weight must be 0-100 and rounds 1-100");
    }
  }
  for (const json& c : j["constants"]) {
    if (!c.is_object() || !c.contains("name") || !c.contains("value") || !c["value"].is_number() ||
        !c["name"].is_string()) {
      return fit_error(path, "constants", "each constant needs a name and a numeric value");
    }
    FittedConstant k;
    k.name = c["name"].get<std::string>();
    k.generation = c.value("generation", "");
    k.value = c["value"].get<double>();
    const ConstantInfo* info = ModelConstants::info(k.qualified());
    if (info == nullptr) {
      return fit_error(path, "constants." + k.qualified(),
                       "unknown constant '" + k.qualified() + "' (see model_constants.h)");
    }
    if (auto bad = range_error(*info, c))
      return fit_error(path, "constants." + k.qualified(), *bad);
    if (c.contains("source") && c["source"].is_string()) k.source = c["source"].get<std::string>();
    if (c.contains("fitted_on") && c["fitted_on"].is_array()) {
      for (const json& id : c["fitted_on"]) {
        if (id.is_string()) k.fitted_on.push_back(id.get<std::string>());
      }
    }
    fit.constants.push_back(std::move(k));
  }
  if (j.contains("bands") && j["bands"].is_array()) {
    for (const json& b : j["bands"]) {
      auto band = parse_band(b, path);
      if (!band) return band.error();
      fit.bands.push_back(*band);
    }
  }
  return fit;
}

/// Set the constants of detail::shipped_constants_text() (generation, name, value and source per
/// line, tab-separated) on `constants`, as apply_fit() sets a fit's.
void apply_constants_text(ModelConstants& constants, std::string_view text) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    std::string_view fields[4];
    for (int i = 0; i < 3; ++i) {
      size_t tab = line.find('\t');
      fields[i] = line.substr(0, tab);
      line = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
    }
    fields[3] = line;
    const std::string_view value = fields[2];
    double v = 0;
    auto [parsed_end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || parsed_end != value.data() + value.size()) continue;
    constants.set(std::string(fields[0]) + "." + std::string(fields[1]), v, std::string(fields[3]));
  }
}

}  // namespace

Result<FittedModel> load_fit(const std::string& path) {
  Result<std::string> text = read_input_file(path, InputKind::kCalibration);
  if (!text) return text.error();
  return parse_fit(*text, path);
}

std::string fit_to_json(const FittedModel& fit) {
  // Keys in reading order: what a constant is and its value before the rows it was fitted on.
  using ordered = nlohmann::ordered_json;
  ordered j;
  j["what"] =
      "The constants hcp-plan's cost model runs (plan, compare, check-log): every constant of "
      "every GPU generation with its value, its allowed range and where it comes from (the "
      "corpus rows it was fitted on, or its source: spec sheet, kernel benchmark, count), and "
      "the error bands per regime. Written by `hcp-plan accuracy --fit --write`; meanings and "
      "units in src/model/model_constants.cpp. No per-model or per-row corrections.";
  j["corpus"] = fit.corpus;
  j["objective"] = fit.objective;
  j["lomo_mape_threshold"] = fit.lomo_mape_threshold;
  j["protocol"] = {
      {"from_priors", fit.from_priors}, {"prior_weight", fit.prior_weight}, {"rounds", fit.rounds}};
  ordered constants = ordered::array();
  for (const FittedConstant& c : fit.constants) {
    ordered one = {{"generation", c.generation}, {"name", c.name}, {"value", c.value}};
    if (const ConstantInfo* info = ModelConstants::info(c.qualified()))
      one["range"] = {info->min, info->max};
    if (!c.source.empty()) one["source"] = c.source;
    if (!c.fitted_on.empty()) one["fitted_on"] = c.fitted_on;
    constants.push_back(std::move(one));
  }
  j["constants"] = constants;
  ordered bands = ordered::array();
  for (const RegimeBand& b : fit.bands) {
    ordered one = {{"regime", b.regime},  {"rows", b.rows},         {"low", b.low},
                   {"high", b.high},      {"relative", b.relative}, {"pairs", b.pairs},
                   {"sources", b.sources}};
    if (b.cp_comm_types) one["cp_comm_types"] = *b.cp_comm_types;
    bands.push_back(std::move(one));
  }
  j["bands_method"] = fit.bands_method;
  j["bands"] = bands;
  return j.dump(1) + "\n";
}

std::string shipped_fit_path() {
  return find_data_file("corpus/fitted_constants.json");
}

const ModelConstants& shipped_constants() {
  static std::once_flag once;
  // The fit file sets every constant of every generation (the accuracy tests hold it to that), so
  // no fit_start value reaches `plan`. Read from the constants CMake extracted from the file (the
  // same values and sources as apply_fit(*shipped_fit()): accuracy tests compare them), not the
  // whole file: a command that prices without bands skips 352 KB of JSON.
  static ModelConstants constants = ModelConstants::fit_start();
  std::call_once(once, [] { apply_constants_text(constants, detail::shipped_constants_text()); });
  return constants;
}

const FittedModel* shipped_fit() {
  static std::once_flag once;
  static std::optional<FittedModel> fit;
  std::call_once(once, [] {
    // Compiled in from recipes/corpus/fitted_constants.json at build time (CMakeLists.txt): the
    // values `plan` runs are that file's, whichever data directory is found at run time.
    auto loaded = parse_fit(std::string(detail::shipped_fit_text()),
                            "recipes/corpus/fitted_constants.json (compiled in)");
    if (loaded) fit = std::move(*loaded);
  });
  return fit ? &*fit : nullptr;
}

Band band_for(const FittedModel& fit, const Regime& regime, const Estimate& estimate) {
  auto find = [&](const std::string& key) -> const RegimeBand* {
    for (const RegimeBand& b : fit.bands) {
      bool enough = b.sources < 0 || b.sources >= kMinBandSources;
      if (b.regime == key && b.rows > 0 && enough) return &b;
    }
    return nullptr;
  };
  const RegimeBand* chosen = find(regime.key());
  if (!chosen) chosen = find(family_band_key(regime.family));
  if (!chosen) chosen = find(kAllRowsBandKey);
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
  band.cp_comm_types = chosen->cp_comm_types;
  return band;
}

Band band_for(const FittedModel& fit, const ModelDims& model, const Layout& layout,
              const Estimate& estimate) {
  Band band = band_for(fit, regime_of(model, layout), estimate);
  band.cp_comm_types_without_runs = cp_comm_types_without_runs(band, layout);
  return band;
}

std::vector<std::string> cp_comm_types_without_runs(const Band& band, const Layout& layout) {
  std::vector<std::string> out;
  if (!band.cp_comm_types) return out;
  const auto& ran = *band.cp_comm_types;
  for (CpCommType type : layout.cp_exchanges()) {
    std::string name = cp_comm_type_name(type);
    if (std::find(ran.begin(), ran.end(), name) == ran.end()) out.push_back(name);
  }
  return out;
}

double difference_band(const Band& a, const Band& b) {
  return std::max(a.relative, b.relative);
}

bool within_difference_band(double tokens_a, double tokens_b, double band) {
  if (tokens_a <= 0 || tokens_b <= 0) return false;
  return std::abs(std::log(tokens_a / tokens_b)) <= band + 1e-12;
}

std::string band_range_text(const Band& band, double tokens) {
  if (tokens <= 0 || band.tokens_per_s_per_gpu_high <= band.tokens_per_s_per_gpu_low) return "";
  auto signed_pct = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.0f%%", 100 * v);
    return std::string(buf);
  };
  return signed_pct(band.tokens_per_s_per_gpu_low / tokens - 1) + ".." +
         signed_pct(band.tokens_per_s_per_gpu_high / tokens - 1);
}

Band shipped_band(const ModelDims& model, const Layout& layout, const Estimate& estimate) {
  if (const FittedModel* fit = shipped_fit()) return band_for(*fit, model, layout, estimate);
  Band band;
  band.regime = regime_of(model, layout).name();
  band.tokens_per_s_per_gpu_low = band.tokens_per_s_per_gpu_high = estimate.tokens_per_s_per_gpu;
  band.step_s_low = band.step_s_high = estimate.time.step_s;
  return band;
}

}  // namespace hcp::accuracy
