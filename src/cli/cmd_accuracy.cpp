// hcp-plan accuracy: the cost model's error on the validation corpus, in-sample and
// leave-one-model-out; --fit refits the named constants, --write stores them.
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "command.h"
#include "hcp/accuracy.h"
#include "hcp/file_output.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct AccuracyCliOptions {
  std::string corpus;                   ///< --corpus FILE (default: the shipped corpus)
  std::string constants;                ///< --constants FILE (default: the shipped fit)
  bool builtin = false;                 ///< --builtin: the model's built-in constants, no fit file
  bool fit = false;                     ///< --fit: refit the constants on the corpus
  bool no_lomo = false;                 ///< --no-lomo
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

int run_accuracy(const AccuracyCliOptions& o) {
  using namespace hcp::accuracy;
  std::string corpus_path = o.corpus.empty() ? shipped_corpus_path() : o.corpus;
  if (corpus_path.empty()) {
    print_error("no corpus: recipes/corpus/measured_runs.json is not installed; give --corpus");
    return kExitBadInput;
  }
  auto corpus = load_corpus(corpus_path);
  if (!corpus) {
    print_error(corpus.error().str());
    return kExitBadInput;
  }
  if (o.builtin && !o.constants.empty()) {
    print_error("give --builtin or --constants, not both");
    return kExitBadInput;
  }
  if (!o.write.empty() && !o.fit) {
    print_error("--write needs --fit (it writes the fitted constants)");
    return kExitBadInput;
  }
  if ((o.max_lomo_mape || o.check) && o.no_lomo) {
    print_error("a LOMO threshold needs the leave-one-model-out run (drop --no-lomo)");
    return kExitBadInput;
  }
  if (o.rounds && (*o.rounds < 1 || *o.rounds > 100)) {
    print_error("--rounds must be between 1 and 100");
    return kExitBadInput;
  }
  std::optional<FittedModel> start;
  std::string constants_label = "built-in (src/model/model_constants.cpp fit_start values)";
  if (!o.builtin) {
    std::string path = o.constants.empty() ? shipped_fit_path() : o.constants;
    if (!path.empty()) {
      auto loaded = load_fit(path);
      if (!loaded) {
        print_error(loaded.error().str());
        return kExitBadInput;
      }
      start = std::move(*loaded);
      constants_label = path;
    }
  }
  FitOptions options;
  // The fit file says how it was made; the LOMO refits and --fit repeat that unless told.
  options.max_rounds = o.rounds.value_or(start ? start->rounds : 8);
  options.from_priors = o.from_priors || (start && start->from_priors);
  options.prior_weight = o.prior_weight.value_or(start ? start->prior_weight : 0.0);
  AccuracyReport report;
  auto progress = std::make_unique<ElapsedProgress>("fitting and predicting the corpus");
  report.corpus = corpus_path;
  report.corpus_rows = static_cast<int64_t>(corpus->rows.size());
  for (const CorpusRow& row : corpus->rows)
    report.excluded_rows += !row.excluded.empty();
  const FittedModel* used = start ? &*start : nullptr;
  if (o.fit) {
    report.fitted = accuracy::fit(*corpus, options.from_priors ? nullptr : used, options);
    if (start && !report.fitted->lomo_mape_threshold)
      report.fitted->lomo_mape_threshold = start->lomo_mape_threshold;
    used = &*report.fitted;
    constants_label = "fitted now (" + report.fitted->objective + ")";
  }
  report.constants = constants_label;
  report.predictions = predict(*corpus, used);
  report.in_sample = slices_of(report.predictions);
  if (!o.no_lomo) {
    // Each refit starts from the priors (or the built-in constants), never from the loaded fit:
    // that fit has seen the held-out model's rows, and a descent started there stays near it.
    report.lomo_predictions = leave_one_model_out(*corpus, nullptr, options);
    report.lomo = slices_of(report.lomo_predictions);
  }
  if (report.fitted) {
    report.fitted->bands =
        bands_from(report.lomo_predictions.empty() ? report.predictions : report.lomo_predictions);
    if (o.set_threshold) report.fitted->lomo_mape_threshold = *o.set_threshold;
  }
  progress.reset();  // before anything else is printed
  std::optional<double> threshold = o.max_lomo_mape;
  if (!threshold && o.check) {
    const FittedModel* f = report.fitted ? &*report.fitted : used;
    if (!f || f->lomo_mape_threshold <= 0) {
      print_error("--check needs a fit file with lomo_mape_threshold");
      return kExitBadInput;
    }
    threshold = f->lomo_mape_threshold;
  }
  if (threshold) report.lomo_threshold = *threshold;
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
  if (threshold && report.lomo.front().metrics.mape > *threshold) return kExitFindings;
  return kExitOk;
}

std::function<int()> setup_accuracy(CLI::App& sub) {
  auto opts = std::make_shared<AccuracyCliOptions>();
  sub.add_option("--corpus", opts->corpus, "Corpus JSON (default: the shipped corpus)");
  sub.add_option(
      "--constants", opts->constants,
      "Fitted-constants JSON (default: the shipped recipes/corpus/fitted_constants.json)");
  sub.add_flag("--builtin", opts->builtin, "Use the model's built-in constants (no fit file)");
  sub.add_flag("--fit", opts->fit, "Refit the named constants on the corpus");
  sub.add_option("--write", opts->write, "With --fit: write the fitted constants and bands");
  sub.add_flag("--no-lomo", opts->no_lomo, "Skip the leave-one-model-out refits");
  sub.add_flag("--rows", opts->rows, "Text: list every row's prediction");
  sub.add_option("--rounds", opts->rounds,
                 "Coordinate-descent rounds of the fitter (default: the fit file's, else 8)");
  sub.add_flag("--from-priors", opts->from_priors,
               "Fits start from the priors (spec, benchmark or assumption values), not the "
               "catalogue's fit_start values");
  sub.add_option("--prior-weight", opts->prior_weight,
                 "Penalty weight on log(value / prior)^2 per fitted constant (default: the fit "
                 "file's, else 0)")
      ->check(CLI::Range(0.0, 100.0));

  sub.add_option("--max-lomo-mape", opts->max_lomo_mape,
                 "Exit 1 when the leave-one-model-out MAPE exceeds this fraction");
  sub.add_flag("--check", opts->check,
               "Exit 1 when the LOMO MAPE exceeds the fit file's lomo_mape_threshold");
  sub.add_option("--set-threshold", opts->set_threshold,
                 "With --write: the LOMO MAPE threshold to store (fraction)");
  add_output_options(sub, opts->output);
  return [opts] { return run_accuracy(*opts); };
}

const CommandRegistration kRegister{
    "accuracy", "The cost model's error on published runs; fit its constants (--fit)",
    setup_accuracy};

}  // namespace
}  // namespace hcp::cli
