// `hcp-plan accuracy` text output: the slice tables stay aligned whatever the slice names.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/text_util.h"

namespace hcp::accuracy {
namespace {

/// The lines of `text` that start with "  " + `first_cell`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& first_cell) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  " + first_cell, 0) == 0) out.push_back(line);
  }
  return out;
}

/// The one line of `text` that starts with "  " + `first_cell` ("" when not exactly one).
std::string the_line(const std::string& text, const std::string& first_cell) {
  auto lines = lines_starting(text, first_cell);
  EXPECT_EQ(lines.size(), 1u) << first_cell << "\n" << text;
  return lines.size() == 1 ? lines[0] : "";
}

Slice slice_named(const std::string& name, int64_t rows) {
  Slice s;
  s.name = name;
  s.metrics.rows = rows;
  return s;
}

/// A report whose in-sample table has a short slice name and whose validation table has
/// `long_name`, the way a system name from a publication can be long.
AccuracyReport report_with(const std::string& long_name) {
  AccuracyReport r;
  r.corpus = "corpus.json";
  r.constants = "built-in";
  r.in_sample = {slice_named("all", 7)};
  r.validation = {slice_named(long_name, 9)};
  r.validation_path = "validation.json";
  return r;
}

struct NameCase {
  const char* what;
  std::string name;
};
void PrintTo(const NameCase& c, std::ostream* os) {
  *os << c.what << " (" << c.name.size() << " characters)";
}

class SliceColumn : public ::testing::TestWithParam<NameCase> {};

TEST_P(SliceColumn, RowsFigureSitsUnderItsHeaderInEveryTable) {
  const std::string& name = GetParam().name;
  std::string text = format_accuracy_text(report_with(name), false);
  auto headers = lines_starting(text, "slice");
  ASSERT_EQ(headers.size(), 2u) << text;
  size_t rows_column = headers[0].find("rows");
  ASSERT_NE(rows_column, std::string::npos);
  EXPECT_EQ(headers[1], headers[0]) << text;
  EXPECT_LE(headers[0].size(), kTextWidth) << text;
  auto short_row = lines_starting(text, "all ");
  ASSERT_EQ(short_row.size(), 1u) << text;
  EXPECT_EQ(short_row[0].substr(rows_column, 2), "7 ") << text;
  // The long name's figures: on its line when the name fits its column, else on the next line.
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  size_t at = 0;
  while (at < lines.size() && lines[at].rfind("  " + name, 0) != 0)
    ++at;
  ASSERT_LT(at, lines.size()) << text;
  const bool fits = lines[at].size() > 2 + name.size() && lines[at][2 + name.size()] == ' ';
  const std::string& figures = fits ? lines[at] : lines.at(at + 1);
  ASSERT_GT(figures.size(), rows_column + 2) << text;
  EXPECT_EQ(figures.substr(rows_column, 2), "9 ") << text;
  EXPECT_EQ(figures.substr(0, rows_column).find_first_not_of(' '), fits ? 2 : std::string::npos)
      << text;
  if (!fits) {
    EXPECT_EQ(lines[at], "  " + name) << text;
  }
  EXPECT_LE(figures.size(), kTextWidth) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Names, SliceColumn,
    ::testing::Values(NameCase{"short", "GPU DGX-H100"},
                      NameCase{"one under the default width", std::string(23, 'x')},
                      NameCase{"exactly the default width", std::string(26, 'y')},
                      NameCase{"a published system name", "GPU H100-80GB (MosaicML platform)"},
                      NameCase{"very long", "GPU " + std::string(120, 'z')}),
    [](const ::testing::TestParamInfo<NameCase>& info) {
      std::string n = info.param.what;
      for (char& c : n) {
        if (c == ' ') c = '_';
      }
      return n;
    });

TEST(RowsText, AnUnpricedRowPrintsADashAndItsReasonNotAHundredPercent) {
  CorpusRow priced_row;
  priced_row.id = "priced";
  priced_row.measured_tokens = 1000;
  CorpusRow unpriced_row;
  unpriced_row.id = "unpriced";
  unpriced_row.measured_tokens = 1000;
  Prediction priced;
  priced.row = &priced_row;
  priced.predicted_tokens = 1100;
  Prediction unpriced;
  unpriced.row = &unpriced_row;
  unpriced.error = "not priced: no profile";
  AccuracyReport r = report_with("GPU some system");
  r.validation_predictions = {priced, unpriced};
  std::string text = format_accuracy_text(r, true);
  std::string priced_line = the_line(text, "priced ");
  std::string unpriced_line = the_line(text, "unpriced ");
  EXPECT_NE(priced_line.find("predicted     1100  10.0%"), std::string::npos) << text;
  EXPECT_NE(unpriced_line.find("predicted        -  not priced: no profile"), std::string::npos)
      << text;
  EXPECT_EQ(unpriced_line.find('%'), std::string::npos) << text;
}

TEST(BandsText, ADifferenceBandWithoutPairsSaysWhereItsWidthComesFrom) {
  AccuracyReport r = report_with("GPU some system");
  RegimeBand paired;
  paired.regime = "dense_nocp";
  paired.rows = 70;
  paired.low = std::log(0.8);
  paired.high = std::log(1.25);
  paired.relative = std::log(1.062);
  paired.pairs = 24;
  RegimeBand unpaired = paired;
  unpaired.regime = "dense_cp";
  unpaired.pairs = 0;
  unpaired.relative = (unpaired.high - unpaired.low) / 2;  // what bands_from gives without pairs
  r.bands = {paired, unpaired};
  std::string text = format_accuracy_text(r, false);
  std::string with_pairs = the_line(text, "dense_nocp ");
  std::string without = the_line(text, "dense_cp ");
  EXPECT_NE(with_pairs.find("-20% .. +25%; difference band +-6.2% (24 pairs)"), std::string::npos)
      << text;
  EXPECT_NE(without.find("difference band +-25.0% (no pair of rows whose inputs differ: half the"),
            std::string::npos)
      << text;
  EXPECT_EQ(without.find("0 pairs"), std::string::npos) << text;
}

TEST(BandsText, EachBandSaysWhichCpExchangesItsRowsRan) {
  AccuracyReport r = report_with("GPU some system");
  RegimeBand cp;
  cp.regime = "dense";
  cp.rows = 94;
  cp.cp_comm_types = std::vector<std::string>{"all_gather", "p2p"};
  RegimeBand none = cp;
  none.regime = "moe";
  none.cp_comm_types = std::vector<std::string>{};
  RegimeBand unsaid = cp;
  unsaid.regime = "hybrid";
  unsaid.cp_comm_types.reset();
  r.bands = {cp, none, unsaid};
  std::string text = format_accuracy_text(r, false);
  EXPECT_NE(the_line(text, "dense ").find("; CP runs: all_gather, p2p"), std::string::npos) << text;
  EXPECT_NE(the_line(text, "moe ").find("; no CP runs"), std::string::npos) << text;
  EXPECT_EQ(the_line(text, "hybrid ").find("CP runs"), std::string::npos) << text;
}

/// The cells of a table line (runs of non-blank characters after the name, which `name` gives).
std::vector<std::string> cells_after(const std::string& line, const std::string& name) {
  std::istringstream in(line.substr(line.find(name) + name.size()));
  std::vector<std::string> out;
  for (std::string cell; in >> cell;)
    out.push_back(cell);
  return out;
}

struct FigureCase {
  const char* what;
  Metrics metrics;
  std::vector<std::string> text;  ///< MAPE, median, <=15%, tau, groups, OOM, OOM?, band, unpriced.
  nlohmann::json json;            ///< mape, median_ape, within_15, kendall_tau, band_coverage.
};
void PrintTo(const FigureCase& c, std::ostream* os) {
  *os << c.what;
}

/// Metrics with every figure set, of which the counts say which are defined.
Metrics metrics(int64_t rows, int64_t unpriced, int64_t tau_groups, int64_t band_rows) {
  return Metrics{.rows = rows,
                 .unpriced = unpriced,
                 .mape = 0.125,
                 .median_ape = 0.1,
                 .within_15 = 0.5,
                 .kendall_tau = 0.75,
                 .tau_groups = tau_groups,
                 .band_rows = band_rows,
                 .coverage = 0.875};
}

/// The JSON figures a slice must carry (null where undefined).
nlohmann::json figures(nlohmann::json mape, nlohmann::json median, nlohmann::json within,
                       nlohmann::json tau, nlohmann::json band) {
  return {{"mape", std::move(mape)},
          {"median_ape", std::move(median)},
          {"within_15", std::move(within)},
          {"kendall_tau", std::move(tau)},
          {"band_coverage", std::move(band)}};
}

// The one-publication tau stands under the validation and held-out tables, for the
// Megatron-family slice, and only where that slice has such a group; JSON carries it per slice.
TEST(AccuracyText, OnePublicationTauFollowsTheValidationAndHeldOutTables) {
  AccuracyReport r = report_with("Megatron-family");
  r.validation[0].metrics.kendall_tau_one_publication = 0.875;
  r.validation[0].metrics.tau_one_publication_groups = 28;
  r.held_out = r.validation;
  r.held_out[0].metrics.tau_one_publication_groups = 0;
  const std::string text = format_accuracy_text(r, false);
  const std::string line = "tau inside one publication";
  ASSERT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find(line, text.find(line) + 1), std::string::npos) << "twice:\n" << text;
  EXPECT_GT(text.find(line), text.find("Validation set")) << text;
  EXPECT_NE(text.find("0.88 (28 groups)"), std::string::npos) << text;
  auto j = nlohmann::json::parse(format_accuracy_json(r));
  EXPECT_EQ(j["validation"][0]["kendall_tau_one_publication"], 0.875);
  EXPECT_EQ(j["validation"][0]["tau_one_publication_groups"], 28);
  EXPECT_TRUE(j["held_out"][0]["kendall_tau_one_publication"].is_null());
  // Another slice's groups are not the Megatron-family figure.
  AccuracyReport other = report_with("GPU DGX-H100");
  other.validation[0].metrics.tau_one_publication_groups = 3;
  EXPECT_EQ(format_accuracy_text(other, false).find(line), std::string::npos);
}

class UndefinedFigure : public ::testing::TestWithParam<FigureCase> {};

TEST_P(UndefinedFigure, PrintsADashInTextAndNullInJson) {
  const FigureCase& c = GetParam();
  AccuracyReport r = report_with("GPU some system");
  r.validation[0].metrics = c.metrics;
  auto lines = lines_starting(format_accuracy_text(r, false), "GPU some system");
  ASSERT_EQ(lines.size(), 1u);
  auto cells = cells_after(lines[0], "GPU some system");
  ASSERT_EQ(cells.size(), 10u) << lines[0];
  EXPECT_EQ(std::vector<std::string>(cells.begin() + 1, cells.end()), c.text) << lines[0];
  auto j = nlohmann::json::parse(format_accuracy_json(r))["validation"][0];
  for (const char* key : {"mape", "median_ape", "within_15", "kendall_tau", "band_coverage"}) {
    EXPECT_EQ(j[key], c.json[key]) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Slices, UndefinedFigure,
    ::testing::Values(FigureCase{"every row priced, grouped and banded",
                                 metrics(8, 0, 2, 8),
                                 {"12.5%", "10.0%", "50.0%", "0.75", "2", "0", "0", "87.5%", "0"},
                                 figures(0.125, 0.1, 0.5, 0.75, 0.875)},
                      FigureCase{"one row of eight priced",
                                 metrics(8, 7, 0, 1),
                                 {"12.5%", "10.0%", "50.0%", "-", "0", "0", "0", "87.5%", "7"},
                                 figures(0.125, 0.1, 0.5, nullptr, 0.875)},
                      FigureCase{"no row priced",
                                 metrics(30, 30, 0, 0),
                                 {"-", "-", "-", "-", "0", "0", "0", "-", "30"},
                                 figures(nullptr, nullptr, nullptr, nullptr, nullptr)}),
    [](const ::testing::TestParamInfo<FigureCase>& info) {
      std::string n = info.param.what;
      for (char& c : n) {
        if (c == ' ' || c == ',') c = '_';
      }
      return n;
    });

}  // namespace
}  // namespace hcp::accuracy
