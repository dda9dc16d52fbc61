// The model's accuracy against published runs: the validation corpus, the fitter of the model's
// named constants, error metrics (in-sample and leave-one-model-out) and the error bands every
// prediction carries.
//
// Data files (shipped under recipes/corpus/, found with find_data_file):
//   measured_runs.json    the corpus; every row cites its source (see recipes/corpus/README.md).
//   fitted_constants.json the values the model runs: every constant of every GPU generation
//                         with its range and the rows it was fitted on (or its source), and the
//                         error bands per regime. Written by `hcp-plan accuracy --fit --write
//                         FILE`; read by `plan`, `compare` and `check-log`.
//
// Stable API for other commands (check-log's speed check):
//   const FittedModel* shipped_fit();                         the shipped fit, or nullptr
//   Band band_for(const FittedModel&, Regime, const Estimate&) low/high tokens/s/GPU, step time
//   Regime regime_of(const ModelDims&, const Layout&)   dense/MoE/hybrid x CP on/off
//   Band shipped_band(const ModelDims&, const Layout&, const Estimate&)  the two above in one
//   const ModelConstants& shipped_constants()                 the shipped fit's values (every
//                                                             constant), for hardware_from_profile
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/model.h"

namespace hcp::accuracy {

// ---------------------------------------------------------------------------------------------
// Regimes and error bands

/// The model family a row belongs to for its error band.
enum class Family { kDense, kMoe, kHybrid };
/// Return "dense", "moe" or "hybrid".
const char* family_name(Family f);

/// A regime: model family x CP on/off. Bands are fitted per regime.
struct Regime {
  Family family = Family::kDense;
  bool cp = false;  ///< context_parallel_size > 1
  /// Return e.g. "moe, CP>1" or "dense, CP=1".
  std::string name() const;
  /// Return e.g. "moe_cp" or "dense_nocp" (the key in fitted_constants.json).
  std::string key() const;
};

/// Return the regime of a layout: hybrid when the model's layer pattern has Mamba or gated
/// delta net layers, else MoE when it has experts, else dense; CP on when cp > 1.
Regime regime_of(const ModelDims& model, const Layout& layout);

/// The spread of log(measured / predicted) in one regime, from out-of-sample residuals
/// (leave-one-model-out and leave-one-source-out predictions of the corpus).
/// Widest band end, as a log ratio: ln(100), a prediction 100x off either way. Past it a band
/// says nothing a reader could use, and a typo there (1e308) printed as "+inf%" or hundreds of
/// digits. The fitter clamps to it and a fit file past it is refused.
inline constexpr double kMaxBandLogRatio = 4.605170185988092;

struct RegimeBand {
  std::string regime;   ///< Regime::key()
  int64_t rows = 0;     ///< Residuals it was computed from.
  double low = 0;       ///< kBandLowQuantile of log(measured / predicted) (absolute band).
  double high = 0;      ///< kBandHighQuantile.
  double relative = 0;  ///< The difference band: kDifferenceQuantile of |r_i - r_j| over pairs
                        ///< of rows of one model, system and precision in one publication whose
                        ///< inputs differ: the error of the predicted ratio of two configurations.
  int64_t pairs = 0;    ///< Pairs the difference band was computed from.
  /// Publications the residuals come from; -1 when the fit file does not say (then the band is
  /// used as it stands). band_for uses a band only when it has kMinBandSources of them.
  int64_t sources = -1;
  /// cp_comm_type of the band's rows with CP > 1, sorted ("p2p"); empty: none of its rows ran
  /// CP; nullopt: the fit file does not say.
  std::optional<std::vector<std::string>> cp_comm_types = std::nullopt;
};

/// The publications a band's residuals must come from before band_for uses it: a band estimated
/// on one or two tables says how those tables err, not how the next one will (the NeMo
/// long-sequence table alone put its CP band at -31 % .. -2 %, and no other source's CP rows
/// fell inside it). A regime with fewer falls back to its family's band, then to the band of
/// all rows.
inline constexpr int64_t kMinBandSources = 3;

/// The key of the band over every regime of one family ("dense") and over every row ("all").
std::string family_band_key(Family family);
inline constexpr const char* kAllRowsBandKey = "all";

/// The quantiles of the out-of-sample residuals an absolute band spans (a 90 % interval) and the
/// quantile of within-job residual differences the difference band (tie rule) takes (90 % of
/// those differences, the same confidence as the absolute band).
inline constexpr double kBandLowQuantile = 0.05;
inline constexpr double kBandHighQuantile = 0.95;
inline constexpr double kDifferenceQuantile = 0.90;

/// Low/high bounds of one prediction.
struct Band {
  double tokens_per_s_per_gpu_low = 0;
  double tokens_per_s_per_gpu_high = 0;
  double step_s_low = 0;   ///< Step time at the high throughput.
  double step_s_high = 0;  ///< Step time at the low throughput.
  /// The difference band (log half-width): two layouts of one job whose predictions differ by
  /// less are a tie (RegimeBand::relative).
  double relative = 0;
  std::string regime;  ///< Regime::name() the band came from.
  /// RegimeBand::cp_comm_types of the band chosen (nullopt: not said, or no fit).
  std::optional<std::vector<std::string>> cp_comm_types = std::nullopt;
  /// The CP exchanges of the option (cp_comm_type names, its windowed layers' too) that no row
  /// behind the band ran: the prediction rests on NCCL's component rates for them, not on a
  /// published run (set by the planner: cp_comm_types_without_runs).
  std::vector<std::string> cp_comm_types_without_runs;
};

/// The CP exchanges of `layout` that no CP row behind `band` used: cp_comm_type names of its
/// full-attention and windowed layers, each once; empty for CP 1, or when the band does not say.
std::vector<std::string> cp_comm_types_without_runs(const Band& band, const Layout& layout);

/// The difference band of two layouts of one job (log half-width): the wider of their bands'.
double difference_band(const Band& a, const Band& b);
/// True when predictions `tokens_a` and `tokens_b` (tokens/s/GPU) lie within `band` (log
/// half-width) of each other: the model cannot tell which of the two runs faster (a tie).
bool within_difference_band(double tokens_a, double tokens_b, double band);

// ---------------------------------------------------------------------------------------------
// The named fittable constants

/// One fitted constant of the cost model: a named constant of model_constants.h for one GPU
/// generation (generation_name(): "hopper", "blackwell", "blackwell_ultra", ...).
struct FittedConstant {
  std::string name;        ///< Constant name, e.g. "gemm_eff_bf16".
  std::string generation;  ///< generation_name() of the GPU generation.
  double value = 0;
  std::vector<std::string> fitted_on;  ///< Corpus row ids it was fitted on.
  /// Where the value comes from when it was not fitted (a prior the fit started from and kept:
  /// a constant kept out of fitting); empty for fitted constants.
  std::string source;
  /// Return "<generation>.<name>" (ModelConstants' qualified name).
  std::string qualified() const { return generation + "." + name; }
};

/// The fit: constants plus bands, and where they came from.
struct FittedModel {
  std::string corpus;  ///< Corpus file the fit used.
  std::string objective;
  std::vector<FittedConstant> constants;
  std::vector<RegimeBand> bands;
  std::string bands_method;  ///< How the bands were computed (which residuals, which quantiles).
  double lomo_mape_threshold = 0;  ///< The CTest fails when LOMO MAPE exceeds this (0: none).
  /// How the fit was made, so that `accuracy` repeats it for the leave-one-model-out refits.
  bool from_priors = false;
  double prior_weight = 0;
  int rounds = 8;
};

/// Return the generation name of a cluster profile's GPU, as the model decides it
/// (hardware_from_profile: compute capability, else the spec table).
std::string generation_of(const ClusterProfile& profile);

/// Set the constants of `fit` on `constants` (each with its source: the rows it was fitted on).
/// Return the number set; a constant outside the catalogue's bounds is skipped.
int apply_fit(ModelConstants& constants, const FittedModel& fit);

/// Read / write fitted_constants.json. Errors name the file and key.
Result<FittedModel> load_fit(const std::string& path);
std::string fit_to_json(const FittedModel& fit);

/// Return the shipped fit: recipes/corpus/fitted_constants.json as compiled in at build time
/// (CMakeLists.txt), parsed once; nullptr only when it does not parse.
const FittedModel* shipped_fit();
/// Return the path of the installed copy of the shipped fit ("" when absent): what `accuracy`
/// reads and `accuracy --fit --write` rewrites.
std::string shipped_fit_path();
/// Return the values of the shipped fit (loaded once): it names every constant of every
/// generation (tests/accuracy holds it to that). `plan`, `compare` and `check-log` price with
/// these.
const ModelConstants& shipped_constants();

/// Return the band of one prediction: the regime's spread around the estimate. When the fit has
/// no band for the regime, the family's CP-off band, then the widest band, is used.
Band band_for(const FittedModel& fit, const Regime& regime, const Estimate& estimate);
/// The same for `layout` of `model` (its regime_of), with the layout's CP exchanges that no row
/// behind the band ran (cp_comm_types_without_runs): the band `plan` and `check-log` use.
Band band_for(const FittedModel& fit, const ModelDims& model, const Layout& layout,
              const Estimate& estimate);
/// Return the absolute band around a prediction of `tokens` tokens/s/GPU as "-21%..+14%" ("" for
/// a zero-width band).
std::string band_range_text(const Band& band, double tokens);
/// Return the band of one prediction with the shipped fit (zero width when none is shipped).
/// The one call a consumer needs: band_for(*shipped_fit(), regime_of(model, layout), estimate).
Band shipped_band(const ModelDims& model, const Layout& layout, const Estimate& estimate);

// ---------------------------------------------------------------------------------------------
// The corpus

/// How a publication's model-FLOP count prices core attention (Q K^T and the product with V).
enum class AttentionFlops {
  kFull,    ///< 12 x seq x width per layer: the NeMo launcher's and NeMo 2's count until 2025-08.
  kCausal,  ///< Half of it, the causal mask's nonzero half: Megatron-LM's count since 2025-03.
};

/// One measured run, ready for the model.
struct CorpusRow {
  std::string id;
  std::string kind;  ///< bridge_summary, nemo_long_sequence, bridge_moe_card
  std::string model;
  std::string system;           ///< DGX-H100, DGX-GB200, ...
  std::string cluster;          ///< Shipped cluster profile name.
  std::string cluster_missing;  ///< Why no shipped profile matches `system` (the row says).
  std::string precision;
  std::string source;    ///< One line: repo path (container / section).
  std::string excluded;  ///< Why the row is not predicted (empty: it is).
  ModelDims dims;
  Layout layout;
  TrainingSetup setup;
  Family family = Family::kDense;
  double measured_tokens = 0;  ///< tokens/s/GPU (converted from TFLOP/s for TFLOP/s rows).
  double measured_tflops = 0;  ///< As published (0 when not given).
  bool tflops_metric = false;  ///< The row's published metric is model TFLOP/s/GPU.
  /// How the publication counted attention FLOPs (measured.attention_flops; default full).
  AttentionFlops attention_flops = AttentionFlops::kFull;
  /// False for Bridge summary rows whose preset (settings_source.found) could not be read: the
  /// memory settings (FSDP, offload, recompute) behind them are unknown.
  bool settings_found = true;
  /// The publication the row comes from (one table release, paper or page): what
  /// leave-one-source-out holds out together.
  std::string publication;
  /// The framework that ran it: "megatron-bridge", "nemo", "megatron-lm", "torchtitan", ...
  std::string framework;
  /// A row of the validation set: never fitted.
  bool validation = false;
};

/// True for Megatron-family frameworks (Megatron-LM, Megatron-Bridge, NeMo): the runs the cost
/// model describes.
bool megatron_family(const CorpusRow& row);

struct Corpus {
  std::string path;
  std::vector<CorpusRow> rows;
};

/// Return the shipped corpus path (recipes/corpus/measured_runs.json) or "".
std::string shipped_corpus_path();
/// Load a corpus file. Errors name the file and the row id / key. `models_path` (optional) is a
/// corpus whose `models` a row may also name (the validation set names the corpus's models).
Result<Corpus> load_corpus(const std::string& path, const std::string& models_path = "");
/// Return the shipped validation set (recipes/corpus/validation_runs.json) or "".
std::string shipped_validation_path();
/// Load a validation set: its rows are marked `validation` (never fitted); models it does not
/// define come from the corpus at `models_path`.
Result<Corpus> load_validation(const std::string& path, const std::string& models_path);

/// Model FLOPs per token of one training step: 6 x active parameters (layers and logits) + 12 x
/// seq x attention width per full-attention layer, halved when `attention_count` is kCausal
/// (windowed layers count their window either way).
double model_flops_per_token(const ModelDims& model,
                             AttentionFlops attention_count = AttentionFlops::kFull);

// ---------------------------------------------------------------------------------------------
// Prediction, metrics and fitting

struct Prediction {
  const CorpusRow* row = nullptr;
  double predicted_tokens = 0;  ///< 0 when the model could not price the row.
  bool fits_memory = true;
  MemoryBreakdown memory;       ///< The model's memory per GPU (first pipeline stage).
  TimeBreakdown time;           ///< The model's step time per term.
  double memory_limit_gib = 0;  ///< The GPU's usable memory the row is held to.
  std::string error;            ///< Why the model refused the row.
  /// Return log(measured / predicted); 0 when unpriced.
  double residual() const;
  /// Return |predicted - measured| / measured.
  double ape() const;
};

/// Predict every non-excluded row with the shipped cluster profiles plus `fit` (may be null:
/// the model's built-in constants).
std::vector<Prediction> predict(const Corpus& corpus, const FittedModel* fit);

struct Metrics {
  int64_t rows = 0;
  int64_t unpriced = 0;
  int64_t predicted_oom = 0;  ///< Rows that ran, with known settings, the model says do not fit.
  int64_t predicted_oom_unknown = 0;  ///< The same among rows whose settings are unknown.
  double mape = 0;
  double median_ape = 0;
  double within_15 = 0;    ///< Share of rows with APE <= 15 %.
  double kendall_tau = 0;  ///< Mean tau-b over (model, system, precision) groups of >= 3 rows.
  int64_t tau_groups = 0;
  /// The same over groups of one publication too (one table or release: the rows ran under one
  /// software stack, as the layouts `plan` compares do).
  double kendall_tau_one_publication = 0;
  int64_t tau_one_publication_groups = 0;
  int64_t band_rows = 0;  ///< Priced rows checked against a band (0: no coverage computed).
  double coverage = 0;    ///< Share of band_rows whose measured value lies inside the band.
};

/// Metrics of a set of predictions (unpriced rows are counted, not averaged).
Metrics metrics_of(const std::vector<Prediction>& predictions);

/// A named slice of the corpus and its metrics.
struct Slice {
  std::string name;
  Metrics metrics;
};
/// The name of the slice of Megatron-family rows (megatron_family).
inline constexpr std::string_view kMegatronFamilySlice = "Megatron-family";
/// Metrics for: all, Megatron-family / other frameworks, dense/moe/hybrid, each regime, each
/// precision, each system, CP=1 / CP>1, and the NeMo long-sequence CP rows of 32K to 1M tokens.
/// With `bands`, each slice's coverage: the share of its rows inside the band band_for prints.
std::vector<Slice> slices_of(const std::vector<Prediction>& predictions,
                             const std::vector<RegimeBand>* bands = nullptr);

/// True when the row's measured tokens/s/GPU lies inside the band the fit prints for it.
bool inside_band(const Prediction& p, const std::vector<RegimeBand>& bands);

/// The tie rule checked on rows no band was computed from: the pairs of rows of one model, system
/// and precision in one publication whose inputs differ (as the bands pair them).
struct DifferenceCheck {
  int64_t pairs = 0;          ///< Such pairs with both rows priced.
  int64_t inside = 0;         ///< Pairs whose |r_i - r_j| lies inside their difference band.
  int64_t apart = 0;          ///< Pairs whose predictions lie outside it: `plan` calls one faster.
  int64_t apart_ordered = 0;  ///< Of those, the pairs measured in the predicted order.
  /// The pairs whose layouts differ in more than DP (what `plan` compares; the others are one
  /// layout at two scales), and how many of them lie inside the band.
  int64_t layout_pairs = 0;
  int64_t layout_inside = 0;
};
/// Check the difference bands of `bands` (as band_for picks them) on `predictions`.
DifferenceCheck check_difference_band(const std::vector<Prediction>& predictions,
                                      const std::vector<RegimeBand>& bands);
/// The predictions of Megatron-family rows (megatron_family): what `plan` predicts for.
std::vector<Prediction> megatron_family_only(const std::vector<Prediction>& predictions);

struct FitOptions {
  int max_rounds = 8;                    ///< Coordinate-descent rounds.
  std::vector<std::string> only_models;  ///< Empty: fit on every model.
  std::string exclude_model;             ///< Leave this model out.
  std::string exclude_publication;       ///< Leave this publication out.
  /// Start from ModelConstants::priors() (spec, benchmark or assumption values) instead of
  /// ModelConstants::fit_start(), which is itself an earlier corpus fit.
  bool from_priors = false;
  /// Weight of the penalty sum over fitted constants of log(value / prior)^2, added to the sum
  /// of squared log residuals: it keeps a constant the corpus barely sees near its prior.
  double prior_weight = 0;
};

/// Fit the fittable constants of model_constants.h, per GPU generation present in the corpus, to
/// the corpus: minimise the mean squared log(measured / predicted) by coordinate descent (steps
/// in log space, within each constant's catalogue bounds), starting from fit_start() (or priors())
/// with `start` applied. Every constant of every generation is returned: the moved ones with the
/// rows they were fitted on, the others with their source. Bands are not filled.
FittedModel fit(const Corpus& corpus, const FittedModel* start, const FitOptions& options);

/// Leave-one-model-out: for each model, fit without its rows and predict them.
std::vector<Prediction> leave_one_model_out(const Corpus& corpus, const FittedModel* start,
                                            const FitOptions& options);

/// Leave-one-source-out: for each publication, fit without its rows and predict them.
std::vector<Prediction> leave_one_source_out(const Corpus& corpus, const FittedModel* start,
                                             const FitOptions& options);

/// Compute the bands per regime from sets of predictions (out-of-sample sets, LOMO and LOSO, give
/// honest bands): the absolute band spans kBandLowQuantile-kBandHighQuantile of every set's
/// log(measured / predicted); the difference band is kDifferenceQuantile of |r_i - r_j| over
/// pairs of one set of one model, system and precision in one publication whose inputs differ.
std::vector<RegimeBand> bands_from(const std::vector<const std::vector<Prediction>*>& sets);

/// The bands a fit ships (kOutOfSampleBandsMethod): bands_from the corpus's leave-one-model-out
/// and leave-one-source-out predictions. The validation set takes no part: its coverage checks
/// them.
std::vector<RegimeBand> out_of_sample_bands(const std::vector<Prediction>& lomo,
                                            const std::vector<Prediction>& loso);
/// How out_of_sample_bands computes them (written beside the bands in the fit file).
extern const char* const kOutOfSampleBandsMethod;

// ---------------------------------------------------------------------------------------------
// Report

struct AccuracyReport {
  std::string corpus;
  std::string constants;  ///< "built-in" or the fit file.
  int64_t corpus_rows = 0;
  int64_t excluded_rows = 0;
  std::vector<Slice> in_sample;
  std::vector<Slice> lomo;        ///< Empty when not computed.
  std::vector<Slice> loso;        ///< Leave-one-source-out; empty when not computed.
  std::vector<Slice> validation;  ///< The validation set (never fitted); empty when none.
  /// Every held-out row together: the corpus's leave-one-source-out predictions and the
  /// validation set's (no prediction comes from a fit that saw its publication); empty unless
  /// both were computed.
  std::vector<Slice> held_out;
  /// The difference band checked on the validation set's Megatron-family rows; nullopt without
  /// bands or validation.
  std::optional<DifferenceCheck> validation_difference;
  std::string validation_path;
  std::vector<Prediction> predictions;  ///< In-sample, per row.
  std::vector<Prediction> lomo_predictions;
  std::vector<Prediction> loso_predictions;
  std::vector<Prediction> validation_predictions;
  std::vector<RegimeBand> bands;      ///< The bands of the fit in use (what `plan` prints).
  std::string bands_from;             ///< How those bands were computed.
  std::optional<FittedModel> fitted;  ///< When --fit ran.
  double lomo_threshold = 0;
};

std::string format_accuracy_text(const AccuracyReport& report, bool per_row);
std::string format_accuracy_json(const AccuracyReport& report);

}  // namespace hcp::accuracy
