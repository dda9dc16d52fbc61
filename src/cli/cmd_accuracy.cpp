// hcp-plan accuracy: the cost model's error on the validation corpus, in-sample,
// leave-one-model-out and leave-one-source-out, and on the validation set (never fitted), with the
// coverage of the printed bands; --fit refits the named constants, --write stores them.
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "command.h"
#include "hcp/accuracy.h"
#include "hcp/checked.h"
#include "hcp/file_output.h"
#include "output.h"

namespace hcp::cli {
namespace {

/// --prior-weight: 0 (no penalty) up to 100, where the priors all but fix the constants.
constexpr PhysicalRange kPriorWeightRange{"(a penalty weight)", 1e-9, 100, true};

struct AccuracyCliOptions {
  std::string corpus;                   ///< --corpus FILE (default: the shipped corpus)
  std::string constants;                ///< --constants FILE (default: the shipped fit)
  std::string validation;               ///< --validation FILE (default: the shipped set)
  bool no_validation = false;           ///< --no-validation
  bool builtin = false;                 ///< --builtin: the model's built-in constants, no fit file
  bool fit = false;                     ///< --fit: refit the constants on the corpus
  bool no_lomo = false;                 ///< --no-lomo: no leave-one-out refits (model, source)
  bool rows = false;                    ///< --rows: per-row table in text
  std::optional<int> rounds;            ///< --rounds (default: the fit file's, else 8)
  bool from_priors = false;             ///< --from-priors: fits start from the priors
  std::optional<double> prior_weight;   ///< --prior-weight (default: the fit file's, else 0)
  std::string write;                    ///< --write FILE
  std::optional<double> max_lomo_mape;  ///< --max-lomo-mape X (fraction)
  bool check = false;                   ///< --check: use the fit file's threshold
  std::optional<double> set_threshold;  ///< --set-threshold X written with --write
  OutputOptions output;
};

/// The argument combinations that cannot run; "" when they can.
std::string bad_combination(const AccuracyCliOptions& o) {
  if (o.builtin && !o.constants.empty()) return "give --builtin or --constants, not both";
  if (!o.write.empty() && !o.fit) return "--write needs --fit (it writes the fitted constants)";
  if ((o.max_lomo_mape || o.check) && o.no_lomo)
    return "a LOMO threshold needs the leave-one-model-out run (drop --no-lomo)";
  if (o.no_validation && !o.validation.empty()) return "give --validation or --no-validation";
  return "";
}

/// The fit the report starts from: --constants, the shipped fit, or none (--builtin).
bool load_start(const AccuracyCliOptions& o, std::optional<accuracy::FittedModel>& start,
                std::string& label) {
  label = "built-in (src/model/model_constants.cpp fit_start values)";
  if (o.builtin) return true;
  std::string path = o.constants.empty() ? accuracy::shipped_fit_path() : o.constants;
  if (path.empty()) return true;
  auto loaded = accuracy::load_fit(path);
  if (!loaded) {
    print_error(loaded.error().str());
    return false;
  }
  start = std::move(*loaded);
  label = path;
  return true;
}

/// The validation set (never fitted): --validation, else the shipped one when installed and the
/// corpus is the shipped one (its rows name the shipped corpus's models).
bool load_validation_set(const AccuracyCliOptions& o, const std::string& corpus_path,
                         std::optional<accuracy::Corpus>& out) {
  if (o.no_validation || (o.validation.empty() && !o.corpus.empty())) return true;
  std::string path = o.validation.empty() ? accuracy::shipped_validation_path() : o.validation;
  if (path.empty()) return true;
  auto loaded = accuracy::load_validation(path, corpus_path);
  if (!loaded) {
    print_error(loaded.error().str());
    return false;
  }
  out = std::move(*loaded);
  return true;
}

/// Out-of-sample predictions: each refit starts from the priors (or the built-in constants),
/// never from the loaded fit, which has seen the held-out rows (a descent started there stays
/// near it).
void predict_out_of_sample(const accuracy::Corpus& corpus, const accuracy::FitOptions& options,
                           accuracy::AccuracyReport& report) {
  report.lomo_predictions = accuracy::leave_one_model_out(corpus, nullptr, options);
  report.loso_predictions = accuracy::leave_one_source_out(corpus, nullptr, options);
}

/// The slices of every prediction set, with the coverage of the bands the fit in use prints.
void fill_slices(const accuracy::FittedModel* used, accuracy::AccuracyReport& report) {
  const std::vector<accuracy::RegimeBand>* bands =
      used != nullptr && !used->bands.empty() ? &used->bands : nullptr;
  if (bands != nullptr) {
    report.bands = *bands;
    report.bands_from = used->bands_method;
  }
  report.in_sample = accuracy::slices_of(report.predictions, bands);
  if (!report.lomo_predictions.empty())
    report.lomo = accuracy::slices_of(report.lomo_predictions, bands);
  if (!report.loso_predictions.empty())
    report.loso = accuracy::slices_of(report.loso_predictions, bands);
  if (!report.validation_predictions.empty()) {
    report.validation = accuracy::slices_of(report.validation_predictions, bands);
    if (bands != nullptr) {
      report.validation_difference = accuracy::check_difference_band(
          accuracy::megatron_family_only(report.validation_predictions), *bands);
    }
  }
  if (!report.loso_predictions.empty() && !report.validation_predictions.empty()) {
    std::vector<accuracy::Prediction> held_out = report.loso_predictions;
    held_out.insert(held_out.end(), report.validation_predictions.begin(),
                    report.validation_predictions.end());
    report.held_out = accuracy::slices_of(held_out, bands);
  }
}

/// --fit: refit on the corpus (never on the validation set).
void refit(const accuracy::Corpus& corpus, const std::optional<accuracy::FittedModel>& start,
           const AccuracyCliOptions& o, const accuracy::FitOptions& options,
           accuracy::AccuracyReport& report) {
  const accuracy::FittedModel* from = start && !options.from_priors ? &*start : nullptr;
  report.fitted = accuracy::fit(corpus, from, options);
  if (start && !report.fitted->lomo_mape_threshold)
    report.fitted->lomo_mape_threshold = start->lomo_mape_threshold;
  if (o.set_threshold) report.fitted->lomo_mape_threshold = *o.set_threshold;
}

/// The refit's bands from the corpus's out-of-sample predictions (never the validation set).
void refit_bands(accuracy::AccuracyReport& report) {
  if (!report.fitted || report.lomo_predictions.empty()) return;
  report.fitted->bands =
      accuracy::out_of_sample_bands(report.lomo_predictions, report.loso_predictions);
  report.fitted->bands_method = accuracy::kOutOfSampleBandsMethod;
}

/// The LOMO MAPE threshold to hold the report to (--max-lomo-mape, else --check's fit file's).
bool threshold_of(const AccuracyCliOptions& o, const accuracy::FittedModel* used,
                  accuracy::AccuracyReport& report) {
  std::optional<double> threshold = o.max_lomo_mape;
  if (!threshold && o.check) {
    if (!used || used->lomo_mape_threshold <= 0) {
      print_error("--check needs a fit file with lomo_mape_threshold");
      return false;
    }
    threshold = used->lomo_mape_threshold;
  }
  if (threshold) report.lomo_threshold = *threshold;
  return true;
}

int run_accuracy(const AccuracyCliOptions& o) {
  using namespace hcp::accuracy;
  std::string corpus_path = o.corpus.empty() ? shipped_corpus_path() : o.corpus;
  if (corpus_path.empty()) {
    print_error("no corpus: recipes/corpus/measured_runs.json is not installed; give --corpus");
    return kExitBadInput;
  }
  if (std::string bad = bad_combination(o); !bad.empty()) {
    print_error(bad);
    return kExitBadInput;
  }
  auto corpus = load_corpus(corpus_path);
  if (!corpus) {
    print_error(corpus.error().str());
    return kExitBadInput;
  }
  std::optional<Corpus> validation;
  std::optional<FittedModel> start;
  AccuracyReport report;
  if (!load_validation_set(o, corpus_path, validation) || !load_start(o, start, report.constants)) {
    return kExitBadInput;
  }
  FitOptions options;
  // The fit file says how it was made; the refits and --fit repeat that unless told.
  options.max_rounds = o.rounds.value_or(start ? start->rounds : 8);
  options.from_priors = o.from_priors || (start && start->from_priors);
  options.prior_weight = o.prior_weight.value_or(start ? start->prior_weight : 0.0);
  auto progress = std::make_unique<ElapsedProgress>("fitting and predicting the corpus");
  report.corpus = corpus_path;
  report.corpus_rows = static_cast<int64_t>(corpus->rows.size());
  for (const CorpusRow& row : corpus->rows)
    report.excluded_rows += !row.excluded.empty();
  if (!o.no_lomo) predict_out_of_sample(*corpus, options, report);
  const FittedModel* used = start ? &*start : nullptr;
  if (o.fit) {
    refit(*corpus, start, o, options, report);
    used = &*report.fitted;
    report.constants = "fitted now (" + report.fitted->objective + ")";
  }
  report.predictions = predict(*corpus, used);
  if (validation) {
    report.validation_path = validation->path;
    report.validation_predictions = predict(*validation, used);
  }
  refit_bands(report);
  fill_slices(used, report);
  progress.reset();  // before anything else is printed
  if (!threshold_of(o, used, report)) return kExitBadInput;
  if (!o.write.empty()) {
    Status written = write_output_file(o.write, fit_to_json(*report.fitted));
    if (!written) {
      print_error(written.error().str());
      return kExitBadInput;
    }
  }
  std::string text = o.output.format == "json" ? format_accuracy_json(report)
                                               : format_accuracy_text(report, o.rows);
  if (!emit(o.output, text)) return kExitBadInput;
  if (report.lomo_threshold > 0 && report.lomo.front().metrics.mape > report.lomo_threshold)
    return kExitFindings;
  return kExitOk;
}

std::function<int()> setup_accuracy(CLI::App& sub) {
  auto opts = std::make_shared<AccuracyCliOptions>();
  sub.add_option("--corpus", opts->corpus, "Corpus JSON (default: the shipped corpus)");
  sub.add_option(
      "--constants", opts->constants,
      "Fitted-constants JSON (default: the shipped recipes/corpus/fitted_constants.json)");
  sub.add_option("--validation", opts->validation,
                 "Validation set JSON, never fitted (default without --corpus: the shipped "
                 "recipes/corpus/validation_runs.json when installed)");
  sub.add_flag("--no-validation", opts->no_validation, "Do not predict the validation set");
  sub.add_flag("--builtin", opts->builtin, "Use the model's built-in constants (no fit file)");
  sub.add_flag("--fit", opts->fit, "Refit the named constants on the corpus");
  sub.add_option("--write", opts->write, "With --fit: write the fitted constants and bands");
  sub.add_flag("--no-lomo", opts->no_lomo,
               "Skip the leave-one-out refits (leave-one-model-out and leave-one-source-out)");
  sub.add_flag("--rows", opts->rows, "Text: list every row's prediction");
  sub.add_option("--rounds", opts->rounds,
                 "Coordinate-descent rounds of the fitter (default: the fit file's, else 8)");
  sub.add_flag("--from-priors", opts->from_priors,
               "Fits start from the priors (spec, benchmark or assumption values), not the "
               "catalogue's fit_start values");
  sub.add_option("--prior-weight", opts->prior_weight,
                 "Penalty weight on log(value / prior)^2 per fitted constant (default: the fit "
                 "file's, else 0)")
      ->check(physical_number(kPriorWeightRange));

  sub.add_option("--max-lomo-mape", opts->max_lomo_mape,
                 "Exit 1 when the leave-one-model-out MAPE exceeds this fraction")
      ->check(physical_number(kFraction));
  sub.add_flag("--check", opts->check,
               "Exit 1 when the LOMO MAPE exceeds the fit file's lomo_mape_threshold");
  sub.add_option("--set-threshold", opts->set_threshold,
                 "With --write: the LOMO MAPE threshold to store (fraction)")
      ->check(physical_number(kFraction));
  add_output_options(sub, opts->output);
  return [opts] { return run_accuracy(*opts); };
}

const CommandRegistration kRegister{
    "accuracy", "The cost model's error on published runs; fit its constants (--fit)",
    setup_accuracy};

}  // namespace
}  // namespace hcp::cli
