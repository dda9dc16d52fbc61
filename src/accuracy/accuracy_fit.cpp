// Predicting the corpus, error metrics, the fitter and leave-one-model-out.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/cp_volume.h"

namespace hcp::accuracy {

namespace {

/// The cluster profile of each row and its GPU generation.
struct RowCluster {
  ClusterProfile profile;
  std::string generation;
  GpuGeneration gen = GpuGeneration::kHopper;  ///< The same, as the enum fit_group takes.
  bool ok = false;
  std::string error;
};

std::map<std::string, RowCluster> clusters_of(const Corpus& corpus) {
  std::map<std::string, RowCluster> out;
  for (const CorpusRow& row : corpus.rows) {
    if (!row.excluded.empty() || out.count(row.cluster)) continue;
    RowCluster c;
    auto profile = find_cluster_profile(row.cluster);
    if (profile) {
      c.profile = *profile;
      c.gen = gpu_generation(*profile);
      c.generation = generation_name(c.gen);
      c.ok = true;
    } else {
      c.error = profile.error().message;
    }
    out.emplace(row.cluster, std::move(c));
  }
  return out;
}

Prediction predict_row(const CorpusRow& row, const Hardware& hw) {
  Prediction p;
  p.row = &row;
  auto e = estimate(row.dims, row.layout, hw, row.setup);
  if (!e) {
    p.error = e.error().message;
    return p;
  }
  p.predicted_tokens = e->tokens_per_s_per_gpu;
  p.fits_memory = e->fits_memory;
  p.memory = e->memory;
  p.time = e->time;
  p.memory_limit_gib = e->memory_limit_gib;
  return p;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(v.size() - 1, lo + 1);
  double frac = pos - static_cast<double>(lo);
  return v[lo] * (1 - frac) + v[hi] * frac;
}

int sign(double x) {
  return (x > 0) - (x < 0);
}

/// True when two rows give the model the same inputs: the same layout, GPU count, sequence,
/// batch and the settings the model prices. Their measured values differ only by the run (a
/// container release re-measured, a second table printing the same job), which no model can
/// order, so ranking leaves such a pair out.
bool same_inputs(const CorpusRow& a, const CorpusRow& b) {
  const TrainingSetup& x = a.setup;
  const TrainingSetup& y = b.setup;
  return a.layout.label() == b.layout.label() && a.layout.world() == b.layout.world() &&
         a.dims.seq_length == b.dims.seq_length && a.dims.micro_batch == b.dims.micro_batch &&
         x.global_batch == y.global_batch && x.recompute == y.recompute &&
         x.recompute_layers == y.recompute_layers && x.recompute_modules == y.recompute_modules &&
         x.precision == y.precision && x.fp8_attention == y.fp8_attention && x.fsdp == y.fsdp &&
         x.cuda_graphs == y.cuda_graphs &&
         x.cuda_graph_full_iteration == y.cuda_graph_full_iteration &&
         x.cuda_graph_partial_scope == y.cuda_graph_partial_scope &&
         x.moe_a2a_overlap == y.moe_a2a_overlap &&
         x.activation_offload_layers == y.activation_offload_layers &&
         x.offload_modules == y.offload_modules;
}

/// Kendall tau-b of predicted vs measured inside one group, over the pairs of rows whose inputs
/// differ (same_inputs); nullopt when undefined.
std::optional<double> kendall_tau_b(const std::vector<const Prediction*>& group) {
  int64_t concordant = 0;
  int64_t discordant = 0;
  int64_t ties_measured = 0;
  int64_t ties_predicted = 0;
  int64_t pairs = 0;
  for (size_t i = 0; i < group.size(); ++i) {
    for (size_t j = i + 1; j < group.size(); ++j) {
      if (same_inputs(*group[i]->row, *group[j]->row)) continue;
      ++pairs;
      int sm = sign(group[i]->row->measured_tokens - group[j]->row->measured_tokens);
      // Predictions closer than 0.1 % are a tie (the model cannot tell them apart).
      double a = group[i]->predicted_tokens;
      double b = group[j]->predicted_tokens;
      int sp = std::abs(a - b) <= 1e-3 * std::max(a, b) ? 0 : sign(a - b);
      if (sm == 0) ++ties_measured;
      if (sp == 0) ++ties_predicted;
      if (sm != 0 && sp != 0) (sm == sp ? concordant : discordant)++;
    }
  }
  double denom = std::sqrt(static_cast<double>(pairs - ties_measured) *
                           static_cast<double>(pairs - ties_predicted));
  if (denom <= 0) return std::nullopt;
  return static_cast<double>(concordant - discordant) / denom;
}

/// A job for ranking: rows of one model on one system at one precision differ only in layout,
/// batch and settings.
std::string group_key(const CorpusRow& row) {
  return row.model + " | " + row.system + " | " + row.precision;
}

/// Rows whose ratio the difference band describes: one model on one system at one precision in
/// one publication (any GPU count, batch and layout); a pair of them counts when its inputs differ
/// (same_inputs), for a job measured twice says how the runs vary, not how the model errs.
std::string pair_key(const CorpusRow& row) {
  return group_key(row) + " | " + row.publication;
}

/// The mean tau-b over the groups of >= 3 rows that have one, and how many groups that is.
std::pair<double, int64_t> mean_tau(
    const std::map<std::string, std::vector<const Prediction*>>& groups) {
  double sum = 0;
  int64_t count = 0;
  for (const auto& [key, group] : groups) {
    if (group.size() < 3) continue;
    auto tau = kendall_tau_b(group);
    if (!tau) continue;
    sum += *tau;
    ++count;
  }
  return {count > 0 ? sum / static_cast<double>(count) : 0.0, count};
}

constexpr double kUnpricedPenalty = 4.0;  // (log e^2)^2: an unpriced row counts as 7x off.

}  // namespace

double Prediction::residual() const {
  if (predicted_tokens <= 0 || !row || row->measured_tokens <= 0) return 0;
  return std::log(row->measured_tokens / predicted_tokens);
}

double Prediction::ape() const {
  if (!row || row->measured_tokens <= 0) return 0;
  return std::abs(predicted_tokens - row->measured_tokens) / row->measured_tokens;
}

std::vector<Prediction> predict(const Corpus& corpus, const FittedModel* fit) {
  auto clusters = clusters_of(corpus);
  ModelConstants constants = ModelConstants::fit_start();
  if (fit) apply_fit(constants, *fit);
  std::vector<Prediction> out;
  for (const CorpusRow& row : corpus.rows) {
    if (!row.excluded.empty()) continue;
    const RowCluster& c = clusters.at(row.cluster);
    if (!c.ok) {
      Prediction p;
      p.row = &row;
      p.error = !row.cluster.empty()           ? "cluster profile " + row.cluster + ": " + c.error
                : !row.cluster_missing.empty() ? "not priced: " + row.cluster_missing
                                               : "not priced: the row names no cluster profile";
      out.push_back(p);
      continue;
    }
    out.push_back(predict_row(row, hardware_from_profile(c.profile, constants)));
  }
  return out;
}

Metrics metrics_of(const std::vector<Prediction>& predictions) {
  Metrics m;
  std::vector<double> apes;
  std::map<std::string, std::vector<const Prediction*>> groups;
  std::map<std::string, std::vector<const Prediction*>> publication_groups;
  for (const Prediction& p : predictions) {
    ++m.rows;
    if (p.predicted_tokens <= 0) {
      ++m.unpriced;
      continue;
    }
    if (!p.fits_memory) ++(p.row->settings_found ? m.predicted_oom : m.predicted_oom_unknown);
    apes.push_back(p.ape());
    groups[group_key(*p.row)].push_back(&p);
    publication_groups[pair_key(*p.row)].push_back(&p);
  }
  if (!apes.empty()) {
    double sum = 0;
    int64_t within = 0;
    for (double a : apes) {
      sum += a;
      within += a <= 0.15;
    }
    m.mape = sum / static_cast<double>(apes.size());
    m.median_ape = percentile(apes, 0.5);
    m.within_15 = static_cast<double>(within) / static_cast<double>(apes.size());
  }
  std::tie(m.kendall_tau, m.tau_groups) = mean_tau(groups);
  std::tie(m.kendall_tau_one_publication, m.tau_one_publication_groups) =
      mean_tau(publication_groups);
  return m;
}

namespace {

/// A fit that holds only `bands`: what band_for reads.
FittedModel fit_with(const std::vector<RegimeBand>& bands) {
  FittedModel fit;
  fit.bands = bands;
  return fit;
}

/// The band `plan` prints for a priced prediction under `fit`'s bands.
Band band_of(const Prediction& p, const FittedModel& fit) {
  Estimate e;
  e.tokens_per_s_per_gpu = p.predicted_tokens;
  return band_for(fit, p.row->dims, p.row->layout, e);
}

/// True when two layouts differ in more than their data-parallel size (one layout at two GPU
/// counts differs in DP alone).
bool layouts_differ_beyond_dp(const Layout& a, const Layout& b) {
  Layout a_at_b_dp = a;
  a_at_b_dp.dp = b.dp;
  return a_at_b_dp.label() != b.label();
}

/// True when a priced prediction's measured value lies inside the band `fit` prints for it.
bool inside_band_of(const Prediction& p, const FittedModel& fit) {
  if (p.predicted_tokens <= 0) return false;
  Band b = band_of(p, fit);
  double m = p.row->measured_tokens;
  return m >= b.tokens_per_s_per_gpu_low * (1 - 1e-9) &&
         m <= b.tokens_per_s_per_gpu_high * (1 + 1e-9);
}

}  // namespace

bool inside_band(const Prediction& p, const std::vector<RegimeBand>& bands) {
  return inside_band_of(p, fit_with(bands));
}

namespace {

/// The share of priced predictions inside their band.
void add_coverage(Metrics& m, const std::vector<Prediction>& predictions,
                  const std::vector<RegimeBand>& bands) {
  const FittedModel fit = fit_with(bands);
  int64_t inside = 0;
  for (const Prediction& p : predictions) {
    if (p.predicted_tokens <= 0) continue;
    ++m.band_rows;
    inside += inside_band_of(p, fit);
  }
  if (m.band_rows > 0) m.coverage = static_cast<double>(inside) / static_cast<double>(m.band_rows);
}

}  // namespace

std::vector<Slice> slices_of(const std::vector<Prediction>& predictions,
                             const std::vector<RegimeBand>* bands) {
  std::vector<std::pair<std::string, std::vector<Prediction>>> named;
  auto add = [&](const std::string& name, const Prediction& p) {
    for (auto& [n, list] : named) {
      if (n == name) {
        list.push_back(p);
        return;
      }
    }
    named.emplace_back(name, std::vector<Prediction>{p});
  };
  for (const Prediction& p : predictions)
    add("all", p);
  for (const Prediction& p : predictions)
    add(megatron_family(*p.row) ? std::string(kMegatronFamilySlice) : "other frameworks", p);
  for (const char* f : {"dense", "moe", "hybrid"}) {
    for (const Prediction& p : predictions) {
      if (family_name(p.row->family) == std::string(f)) add(std::string("family ") + f, p);
    }
  }
  for (const Prediction& p : predictions)
    add("CP " + std::string(p.row->layout.cp > 1 ? ">1" : "=1"), p);
  std::set<std::string> regimes;
  for (const Prediction& p : predictions)
    regimes.insert(Regime{p.row->family, p.row->layout.cp > 1}.key());
  for (const std::string& key : regimes) {
    for (const Prediction& p : predictions) {
      if (Regime{p.row->family, p.row->layout.cp > 1}.key() == key) add("regime " + key, p);
    }
  }
  std::set<std::string> precisions;
  std::set<std::string> systems;
  for (const Prediction& p : predictions) {
    precisions.insert(p.row->precision);
    systems.insert(p.row->system);
  }
  for (const std::string& prec : precisions) {
    for (const Prediction& p : predictions) {
      if (p.row->precision == prec) add("precision " + prec, p);
    }
  }
  for (const std::string& sys : systems) {
    for (const Prediction& p : predictions) {
      if (p.row->system == sys) add("GPU " + sys, p);
    }
  }
  for (const Prediction& p : predictions) {
    if (p.row->kind == "nemo_long_sequence" && p.row->layout.cp > 1 &&
        p.row->dims.seq_length >= 32768) {
      add("NeMo long-seq CP 32K-1M", p);
    }
  }
  std::vector<Slice> out;
  out.reserve(named.size());
  for (const auto& [name, list] : named) {
    out.push_back({name, metrics_of(list)});
    if (bands) add_coverage(out.back().metrics, list, *bands);
  }
  return out;
}

namespace {

/// A corpus row the fit prices, with its cluster.
struct FitRow {
  const CorpusRow* row;
  const RowCluster* cluster;
};

/// One fitted value: a constant of one generation, or one value shared by a fit group.
struct FitParameter {
  std::string qualified;            ///< "<generation>.<constant>" (the first one when shared)
  const ConstantInfo* info;         ///< Its catalogue entry (bounds).
  std::vector<size_t> rows;         ///< Rows of that generation (every row when shared).
  std::vector<std::string> copies;  ///< Shared constants: the other generations' names.
  bool inert = false;  ///< No trial changed the loss: the corpus says nothing about it.
};

/// The fitter's state: the rows it prices, the constants it moves (starting from the priors or
/// the defaults, then `start`), its parameters and the current loss of each row.
class Fitter {
 public:
  Fitter(const Corpus& corpus, const FittedModel* start, const FitOptions& options)
      : options_(options),
        clusters_(clusters_of(corpus)),
        prior_(options.from_priors ? ModelConstants::priors() : ModelConstants::fit_start()),
        constants_(prior_),
        initial_(prior_) {
    select_rows(corpus);
    if (start) apply_fit(constants_, *start);
    initial_ = constants_;
    add_parameters();
    project_onto_ratio_bounds();
  }
  Fitter(const Fitter&) = delete;
  Fitter& operator=(const Fitter&) = delete;

  /// Coordinate descent in log space: options.max_rounds rounds over every parameter.
  void descend() {
    price_every_row();
    for (int round = 0; round < options_.max_rounds; ++round) {
      double step = std::log(2.0) / (1 + round);
      for (FitParameter& p : params_) {
        if (p.inert || p.rows.empty()) continue;
        descend_one(p, step, round);
      }
    }
  }

  /// The fit as a FittedModel (see fitted_constants for which constants it lists).
  FittedModel result(const Corpus& corpus, const FittedModel* start) const {
    FittedModel out;
    out.corpus = corpus.path;
    out.objective = "minimise the mean squared log(measured / predicted) tokens/s/GPU over " +
                    std::to_string(rows_.size()) + " rows (coordinate descent, " +
                    std::to_string(options_.max_rounds) + " rounds, log-space steps)";
    out.constants = fitted_constants();
    out.from_priors = options_.from_priors;
    out.prior_weight = options_.prior_weight;
    out.rounds = options_.max_rounds;
    if (start) {
      out.bands = start->bands;
      out.bands_method = start->bands_method;
      out.lomo_mape_threshold = start->lomo_mape_threshold;
    }
    return out;
  }

 private:
  /// The rows the fit prices: not excluded, of the models the options name, on a known cluster.
  void select_rows(const Corpus& corpus) {
    for (const CorpusRow& row : corpus.rows) {
      if (!row.excluded.empty() || row.validation || row.model == options_.exclude_model ||
          row.publication == options_.exclude_publication) {
        continue;
      }
      if (!options_.only_models.empty() &&
          std::find(options_.only_models.begin(), options_.only_models.end(), row.model) ==
              options_.only_models.end()) {
        continue;
      }
      const RowCluster& c = clusters_.at(row.cluster);
      if (!c.ok) continue;
      rows_.push_back({&row, &c});
      generations_.insert(c.generation);
    }
  }

  /// The rows a constant's fit group covers (model_constants.h, fit_group).
  std::vector<size_t> rows_of_group(std::string_view name, std::string_view group) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (fit_group(name, rows_[i].cluster->gen) == group) out.push_back(i);
    }
    return out;
  }

  /// Set p to v in every generation it covers. A rate that bounds others' ratio
  /// (rate_ratio_bounds: the BF16 GEMM rate) carries them along, so that the ratio stays where
  /// it is. False, with nothing set, when any value would leave its catalogue range.
  bool set_value(const FitParameter& p, double v) {
    double old = *constants_.get(p.qualified);
    std::vector<std::pair<std::string, double>> writes;
    std::vector<std::string> names{p.qualified};
    names.insert(names.end(), p.copies.begin(), p.copies.end());
    for (const std::string& q : names) {
      writes.emplace_back(q, v);
      if (old <= 0) continue;
      std::string generation = q.substr(0, q.find('.'));
      for (const RateRatioBound& b : rate_ratio_bounds()) {
        if (b.denominator != p.info->name) continue;
        std::string n = generation + "." + std::string(b.numerator);
        writes.emplace_back(n, *constants_.get(n) * v / old);
      }
    }
    for (const auto& [q, value] : writes) {
      const ConstantInfo* info = ModelConstants::info(q);
      if (info == nullptr || !(value >= info->min && value <= info->max)) return false;
    }
    for (const auto& [q, value] : writes)
      constants_.set(q, value, "fit");
    return true;
  }

  /// True when every generation's rates keep their ratio bounds (rate_ratio_bounds).
  bool ratios_hold() const {
    for (int g = 0; g < kGpuGenerations; ++g) {
      std::string generation = generation_name(static_cast<GpuGeneration>(g));
      for (const RateRatioBound& b : rate_ratio_bounds()) {
        double n = *constants_.get(generation + "." + std::string(b.numerator));
        double d = *constants_.get(generation + "." + std::string(b.denominator));
        if (d > 0 && (n < b.min * d * (1 - 1e-12) || n > b.max * d * (1 + 1e-12))) return false;
      }
    }
    return true;
  }

  /// Move each numerator into its ratio bound (the nearest end) before the descent starts.
  void project_onto_ratio_bounds() {
    for (int g = 0; g < kGpuGenerations; ++g) {
      std::string generation = generation_name(static_cast<GpuGeneration>(g));
      for (const RateRatioBound& b : rate_ratio_bounds()) {
        std::string n = generation + "." + std::string(b.numerator);
        double d = *constants_.get(generation + "." + std::string(b.denominator));
        double v = std::clamp(*constants_.get(n), b.min * d, b.max * d);
        const ConstantInfo* info = ModelConstants::info(n);
        constants_.set(n, std::clamp(v, info->min, info->max), "fit: held to its rate ratio");
      }
    }
  }

  /// Parameters: the catalogue's fittable constants of every generation with rows.
  void add_parameters() {
    for (const ConstantInfo& info : constant_catalog()) {
      if (!info.fittable) continue;
      // One parameter per fit group: a generation's own value, or one value shared by the
      // generations whose hardware or software the constant describes alike, fitted on all their
      // rows and written to each of them.
      std::map<std::string_view, std::vector<std::string>> groups;
      for (int g = 0; g < kGpuGenerations; ++g) {
        auto gen = static_cast<GpuGeneration>(g);
        groups[fit_group(info.name, gen)].push_back(generation_name(gen));
      }
      for (const auto& [group, members] : groups) {
        add_parameter(info, group, members);
      }
    }
  }

  void add_parameter(const ConstantInfo& info, std::string_view group,
                     const std::vector<std::string>& members) {
    FitParameter p{"", &info, rows_of_group(info.name, group), {}};
    if (p.rows.empty()) return;
    double log_sum = 0;
    int counted = 0;
    for (const std::string& g : members) {
      std::string q = g + "." + std::string(info.name);
      if (p.qualified.empty()) {
        p.qualified = q;
      } else {
        p.copies.push_back(q);
      }
      double v = *constants_.get(q);
      if (generations_.count(g) && v > 0) {
        log_sum += std::log(v);
        ++counted;
      }
    }
    // A shared value starts from the geometric mean of its generations' starting values.
    if (!p.copies.empty() && counted > 0) set_value(p, std::exp(log_sum / counted));
    params_.push_back(std::move(p));
  }

  double row_loss(size_t i) const {
    Prediction p =
        predict_row(*rows_[i].row, hardware_from_profile(rows_[i].cluster->profile, constants_));
    if (p.predicted_tokens <= 0) return kUnpricedPenalty;
    double r = p.residual();
    return r * r;
  }

  /// The pull of the prior on one constant: prior_weight x log(value / prior)^2.
  double penalty(const FitParameter& p, double v) const {
    double p0 = *prior_.get(p.qualified);
    if (options_.prior_weight <= 0 || p0 <= 0 || v <= 0) return 0.0;
    double d = std::log(v / p0);
    return options_.prior_weight * d * d;
  }

  /// The loss of every row and the total with the priors' pull.
  void price_every_row() {
    loss_.assign(rows_.size(), 0);
    best_ = 0;
    for (size_t i = 0; i < rows_.size(); ++i) {
      loss_[i] = row_loss(i);
      best_ += loss_[i];
    }
    for (const FitParameter& p : params_)
      best_ += penalty(p, *constants_.get(p.qualified));
  }

  /// Try p at original x e^(k step), k in {-1, -0.5, 0.5, 1}, and keep the best total.
  void descend_one(FitParameter& p, double step, int round) {
    double original = *constants_.get(p.qualified);
    bool moved_loss = false;
    std::vector<double> trials;
    if (original > 0) {
      for (double k : {-1.0, -0.5, 0.5, 1.0})
        trials.push_back(original * std::exp(k * step));
    } else {
      trials = {p.info->max * 1e-3, p.info->max * 1e-2};  // a zero cannot move in log space
    }
    double best_value = original;
    std::vector<double> best_loss;
    const double base = best_;  // the total at `original`: every trial is priced from it
    for (double v : trials) {
      v = std::clamp(v, p.info->min, p.info->max);
      if (v == original || !set_value(p, v) || !ratios_hold()) continue;
      std::vector<double> trial = loss_;
      double rows_change = 0;
      for (size_t i : p.rows) {
        trial[i] = row_loss(i);
        rows_change += trial[i] - loss_[i];
      }
      moved_loss = moved_loss || std::abs(rows_change) > 1e-12;
      double sum = base + rows_change - penalty(p, original) + penalty(p, v);
      if (sum < best_ - 1e-9) {
        best_ = sum;
        best_value = v;
        best_loss = std::move(trial);
      }
    }
    set_value(p, best_value);
    if (!best_loss.empty()) loss_ = std::move(best_loss);
    if (round == 0 && !moved_loss) p.inert = true;
  }

  /// Every constant of every generation, so that the fit file holds every value `plan` runs:
  /// a fittable constant that differs from where fits start (fit_start and the start fit), with
  /// its fit group's rows; any other with its source (the start fit's, or the catalogue's).
  std::vector<FittedConstant> fitted_constants() const {
    std::vector<FittedConstant> out;
    for (int gi = 0; gi < kGpuGenerations; ++gi) {
      auto gen = static_cast<GpuGeneration>(gi);
      std::string g = generation_name(gen);
      for (const ConstantInfo& info : constant_catalog()) {
        std::vector<size_t> group_rows = rows_of_group(info.name, fit_group(info.name, gen));
        std::string q = g + "." + std::string(info.name);
        double value = *constants_.get(q);
        bool moved = value != *ModelConstants::fit_start().get(q) || value != *initial_.get(q);
        FittedConstant c;
        c.name = std::string(info.name);
        c.generation = g;
        c.value = value;
        if (moved && info.fittable && !group_rows.empty()) {
          for (size_t i : group_rows)
            c.fitted_on.push_back(rows_[i].row->id);
        } else {
          c.source = moved ? constants_.source(q) : initial_.source(q);
        }
        out.push_back(std::move(c));
      }
    }
    return out;
  }

  const FitOptions& options_;
  std::map<std::string, RowCluster> clusters_;
  std::vector<FitRow> rows_;
  std::set<std::string> generations_;
  const ModelConstants& prior_;
  ModelConstants constants_;
  ModelConstants initial_;
  std::vector<FitParameter> params_;
  std::vector<double> loss_;
  double best_ = 0;
};

}  // namespace

FittedModel fit(const Corpus& corpus, const FittedModel* start, const FitOptions& options) {
  Fitter fitter(corpus, start, options);
  fitter.descend();
  return fitter.result(corpus, start);
}

std::vector<Prediction> leave_one_model_out(const Corpus& corpus, const FittedModel* start,
                                            const FitOptions& options) {
  std::set<std::string> models;
  for (const CorpusRow& row : corpus.rows) {
    if (row.excluded.empty()) models.insert(row.model);
  }
  std::vector<Prediction> out;
  for (const std::string& model : models) {
    FitOptions o = options;
    o.exclude_model = model;
    FittedModel without = fit(corpus, start, o);
    for (const Prediction& p : predict(corpus, &without)) {
      if (p.row->model == model) out.push_back(p);
    }
  }
  return out;
}

std::vector<Prediction> leave_one_source_out(const Corpus& corpus, const FittedModel* start,
                                             const FitOptions& options) {
  std::set<std::string> publications;
  for (const CorpusRow& row : corpus.rows) {
    if (row.excluded.empty() && !row.validation) publications.insert(row.publication);
  }
  std::vector<Prediction> out;
  for (const std::string& publication : publications) {
    FitOptions o = options;
    o.exclude_publication = publication;
    FittedModel without = fit(corpus, start, o);
    for (const Prediction& p : predict(corpus, &without)) {
      if (p.row->publication == publication) out.push_back(p);
    }
  }
  return out;
}

namespace {

/// Call `visit(a, b)` for every pair of priced predictions of `set` under one pair_key whose
/// inputs differ.
template <typename Visit>
void for_each_band_pair(const std::vector<Prediction>& set, Visit visit) {
  std::map<std::string, std::vector<const Prediction*>> groups;
  for (const Prediction& p : set) {
    if (p.predicted_tokens > 0) groups[pair_key(*p.row)].push_back(&p);
  }
  for (const auto& [key, group] : groups) {
    for (size_t i = 0; i < group.size(); ++i) {
      for (size_t j = i + 1; j < group.size(); ++j) {
        if (!same_inputs(*group[i]->row, *group[j]->row)) visit(*group[i], *group[j]);
      }
    }
  }
}

/// The residuals, pair differences and publications behind one band.
struct BandSample {
  std::vector<double> residuals;
  std::vector<double> differences;
  std::set<std::string> publications;
  std::set<std::string> cp_comm_types;  ///< Of the rows with CP > 1.
};

/// The keys a row counts under: its regime, its family and every row.
std::vector<std::string> band_keys(const CorpusRow& row) {
  return {Regime{row.family, row.layout.cp > 1}.key(), family_band_key(row.family),
          kAllRowsBandKey};
}

/// |r_i - r_j| over the pairs of `set` (for_each_band_pair), under each band key of the pair's
/// first row: the error of the predicted ratio of two configurations. Both rows of a pair come
/// from one held-out set, so one refit predicted both.
void add_pair_differences(const std::vector<Prediction>& set,
                          std::map<std::string, BandSample>& samples) {
  for_each_band_pair(set, [&](const Prediction& a, const Prediction& b) {
    double difference = std::abs(a.residual() - b.residual());
    for (const std::string& band : band_keys(*a.row))
      samples[band].differences.push_back(difference);
  });
}

RegimeBand regime_band_of(const std::string& key, const BandSample& s) {
  RegimeBand b;
  b.regime = key;
  b.rows = static_cast<int64_t>(s.residuals.size());
  b.sources = static_cast<int64_t>(s.publications.size());
  b.cp_comm_types = std::vector<std::string>(s.cp_comm_types.begin(), s.cp_comm_types.end());
  // The band holds the point estimate: a model biased one way on the rows it saw still prints
  // its own prediction inside the band it gives.
  b.low = std::clamp(percentile(s.residuals, kBandLowQuantile), -kMaxBandLogRatio, 0.0);
  b.high = std::clamp(percentile(s.residuals, kBandHighQuantile), 0.0, kMaxBandLogRatio);
  b.pairs = static_cast<int64_t>(s.differences.size());
  b.relative = s.differences.empty()
                   ? (b.high - b.low) / 2
                   : std::min(percentile(s.differences, kDifferenceQuantile), 2 * kMaxBandLogRatio);
  return b;
}

}  // namespace

std::vector<RegimeBand> bands_from(const std::vector<const std::vector<Prediction>*>& sets) {
  std::map<std::string, BandSample> samples;
  for (const std::vector<Prediction>* set : sets) {
    for (const Prediction& p : *set) {
      if (p.predicted_tokens <= 0) continue;
      for (const std::string& key : band_keys(*p.row)) {
        samples[key].residuals.push_back(p.residual());
        samples[key].publications.insert(p.row->publication);
        for (CpCommType type : p.row->layout.cp_exchanges())
          samples[key].cp_comm_types.insert(cp_comm_type_name(type));
      }
    }
    add_pair_differences(*set, samples);
  }
  std::vector<RegimeBand> out;
  for (const auto& [key, sample] : samples) {
    if (sample.residuals.size() >= 3) out.push_back(regime_band_of(key, sample));
  }
  return out;
}

DifferenceCheck check_difference_band(const std::vector<Prediction>& predictions,
                                      const std::vector<RegimeBand>& bands) {
  DifferenceCheck check;
  const FittedModel fit = fit_with(bands);
  for_each_band_pair(predictions, [&](const Prediction& a, const Prediction& b) {
    double band = difference_band(band_of(a, fit), band_of(b, fit));
    bool inside = std::abs(a.residual() - b.residual()) <= band + 1e-12;
    ++check.pairs;
    check.inside += inside;
    if (layouts_differ_beyond_dp(a.row->layout, b.row->layout)) {
      ++check.layout_pairs;
      check.layout_inside += inside;
    }
    if (within_difference_band(a.predicted_tokens, b.predicted_tokens, band)) return;
    ++check.apart;
    check.apart_ordered += sign(a.predicted_tokens - b.predicted_tokens) ==
                           sign(a.row->measured_tokens - b.row->measured_tokens);
  });
  return check;
}

std::vector<Prediction> megatron_family_only(const std::vector<Prediction>& predictions) {
  std::vector<Prediction> out;
  for (const Prediction& p : predictions) {
    if (p.row && megatron_family(*p.row)) out.push_back(p);
  }
  return out;
}

const char* const kOutOfSampleBandsMethod =
    "absolute band: 5th-95th percentile of log(measured / predicted) per regime over the "
    "corpus's out-of-sample predictions (leave-one-model-out and leave-one-source-out), widened "
    "to hold the prediction itself; a regime whose rows come from fewer than 3 publications "
    "uses its family's band (dense, moe, hybrid), else the band of all rows; the validation set "
    "is never used, so its coverage checks the band; difference band (tie rule): "
    "90th percentile of |r_i - r_j| over pairs of rows of one model, system and precision in one "
    "publication whose inputs differ (layout, GPU count, batch or settings; a job measured twice "
    "is left out), both predicted by the same fit";

std::vector<RegimeBand> out_of_sample_bands(const std::vector<Prediction>& lomo,
                                            const std::vector<Prediction>& loso) {
  return bands_from({&lomo, &loso});
}

}  // namespace hcp::accuracy
