// hcp-plan accuracy end to end, and the error bands / recipe row in plan's JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using nlohmann::json;
using testing::read_whole_file;
using testing::run_cli;

// A three-row corpus (one Llama-3-8B-sized model on DGX H100, made up for the tests; the same rows
// as tests/accuracy/accuracy_test.cpp) keeps the leave-one-model-out runs fast.
const std::string kTiny = std::string(HCP_FIXTURES_DIR) + "/accuracy/tiny_corpus.json";

TEST(AccuracyCli, LomoOnATinyCorpus) {
  auto r = run_cli("accuracy --builtin --rounds 2 --corpus " + kTiny + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["corpus_rows"], 4);
  EXPECT_EQ(j["excluded_rows"], 1);
  ASSERT_FALSE(j["leave_one_model_out"].empty());
  EXPECT_EQ(j["leave_one_model_out"][0]["rows"], 3);
}

const std::string kTinyValidation =
    std::string(HCP_FIXTURES_DIR) + "/accuracy/tiny_validation.json";

/// The slice of a JSON slice list by name (null when absent).
json slice_named(const json& slices, const std::string& name) {
  for (const json& s : slices) {
    if (s["slice"] == name) return s;
  }
  return nullptr;
}

TEST(AccuracyCli, LeaveOneSourceOutAndTheValidationSetWithCoverage) {
  auto r = run_cli("accuracy --builtin --fit --rounds 1 --corpus " + kTiny + " --validation " +
                   kTinyValidation + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_FALSE(j["leave_one_source_out"].empty());
  EXPECT_EQ(j["leave_one_source_out"][0]["rows"], 3);
  ASSERT_FALSE(j["validation"].empty());
  EXPECT_EQ(j["validation"][0]["rows"], 2);
  EXPECT_EQ(slice_named(j["validation"], "Megatron-family")["rows"], 1);
  EXPECT_EQ(slice_named(j["validation"], "other frameworks")["rows"], 1);
  // The refit's bands come from the out-of-sample residuals, and every slice says how many of
  // its rows fall inside them.
  ASSERT_FALSE(j["fit"]["bands"].empty());
  EXPECT_NE(j["fit"]["bands_method"].get<std::string>().find("leave-one-source-out"),
            std::string::npos);
  EXPECT_EQ(j["validation"][0]["band_rows"], 2);
  // Its two rows are two jobs (other GPU counts, other tables): no pair checks the tie rule.
  EXPECT_EQ(j["validation_difference_band"]["pairs"], 0);
  double coverage = j["leave_one_model_out"][0]["band_coverage"];
  EXPECT_GE(coverage, 0.0);
  EXPECT_LE(coverage, 1.0);
  // The validation rows never enter the fit.
  for (const json& c : j["fit"]["constants"]) {
    if (!c.contains("fitted_on")) continue;
    for (const json& id : c["fitted_on"])
      EXPECT_NE(id.get<std::string>().rfind("v-", 0), 0u) << c["name"];
  }
  auto none =
      run_cli("accuracy --builtin --no-lomo --no-validation --corpus " + kTiny + " --format json");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_FALSE(json::parse(none.out).contains("validation"));
}

TEST(AccuracyCli, JsonHasSlicesOfTheShippedCorpus) {
  auto r = run_cli("accuracy --no-lomo --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_GE(j["corpus_rows"].get<int>(), 220);
  ASSERT_FALSE(j["in_sample"].empty());
  const json& all = j["in_sample"][0];
  EXPECT_EQ(all["slice"], "all");
  // The tie rule checked on the validation set: pairs of rows of one job in one table.
  const json& d = j["validation_difference_band"];
  EXPECT_GE(d["pairs"].get<int>(), 10);
  EXPECT_LE(d["inside"].get<int>(), d["pairs"].get<int>());
  EXPECT_LE(d["apart"].get<int>(), d["pairs"].get<int>());
  EXPECT_LE(d["apart_ordered"].get<int>(), d["apart"].get<int>());
  for (const char* key : {"rows", "mape", "median_ape", "within_15", "kendall_tau", "tau_groups",
                          "predicted_oom", "unpriced"}) {
    EXPECT_TRUE(all.contains(key)) << key;
  }
  std::vector<std::string> names;
  for (const json& s : j["in_sample"])
    names.push_back(s["slice"]);
  for (const char* want : {"family dense", "family moe", "family hybrid", "CP >1", "GPU DGX-H100",
                           "NeMo long-seq CP 32K-1M", "Megatron-family", "regime dense_cp"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  // Every predicted row names its measurement and prediction, and the model's step time per
  // term, which adds up to the step.
  for (const json& row : j["rows"]) {
    EXPECT_GT(row["measured_tokens_per_s_per_gpu"].get<double>(), 0) << row["id"];
    ASSERT_TRUE(row.contains("breakdown")) << row["id"];
    const json& t = row["breakdown"]["time"];
    double total = t["step_s"].get<double>();
    double terms = 0;
    for (const auto& [key, value] : t.items()) {
      bool detail = key == "step_s" || key == "cp_ring_hidden_s" || key.rfind("ring_step", 0) == 0;
      if (!detail) terms += value.get<double>();
    }
    EXPECT_GT(total, 0) << row["id"];
    EXPECT_GT(t["gemm_s"].get<double>(), 0) << row["id"];
    EXPECT_GT(row["breakdown"]["memory_gib"]["total"].get<double>(), 0) << row["id"];
    // Overlaps (hidden ring, EP and DP traffic) only ever take away from the sum of terms.
    EXPECT_LE(total, terms * 1.0001) << row["id"];
  }
}

// The man page sends readers to recipes/corpus/accuracy_after.txt for the whole report of the
// shipped fit; it must be what `hcp-plan accuracy` prints today. The golden test runs that
// command and holds its output (tests/golden/expected/, "$ hcp-plan accuracy"), so the file is
// compared with the golden one here instead of refitting a second time.
TEST(AccuracyCli, TheShippedReportIsTodaysOutput) {
  namespace fs = std::filesystem;
  std::string golden;
  for (const auto& entry : fs::directory_iterator(HCP_SOURCE_DIR "/tests/golden/expected")) {
    std::string text = read_whole_file(entry.path().string());
    if (text.starts_with("$ hcp-plan accuracy\n")) golden = text;
  }
  ASSERT_FALSE(golden.empty()) << "no golden output of 'hcp-plan accuracy'";
  const size_t body = golden.find('\n') + 1;
  const std::string stdout_part = golden.substr(body, golden.find("--- stderr\n") - body);
  EXPECT_EQ(stdout_part, read_whole_file(HCP_SOURCE_DIR "/recipes/corpus/accuracy_after.txt"))
      << "recipes/corpus/accuracy_after.txt is stale: write it from the golden output";
}

// The man page quotes the shipped fit's Megatron-family figures per slice; each must be the one
// the shipped report prints (accuracy_after.txt, itself held to today's output above).
TEST(AccuracyCli, TheManPageQuotesTheShippedReport) {
  const std::string report = read_whole_file(HCP_SOURCE_DIR "/recipes/corpus/accuracy_after.txt");
  std::string man = read_whole_file(HCP_SOURCE_DIR "/man/hcp-plan.1");
  std::replace(man.begin(), man.end(), '\n', ' ');
  struct Slice {
    const char* report_header;  ///< the table's heading in the report
    const char* man_label;      ///< the man paragraph's start
    bool groups;                ///< the man gives "over N groups"
  };
  for (const Slice& slice : {Slice{"In-sample", ".br in-sample (", false},
                             Slice{"Leave-one-model-out", ".br leave-one-model-out:", false},
                             Slice{"Leave-one-source-out", ".br leave-one-source-out:", false},
                             Slice{"Validation set", ".br validation set (", true},
                             Slice{"Held out", ".br held out,", true}}) {
    const size_t table = report.find(std::string("\n") + slice.report_header);
    ASSERT_NE(table, std::string::npos) << slice.report_header;
    const size_t row = report.find("  Megatron-family ", table);
    ASSERT_NE(row, std::string::npos) << slice.report_header;
    std::istringstream cells(report.substr(row, report.find('\n', row) - row));
    std::string name, rows, mape, median, within, tau, groups, oom, oom_unknown, band;
    cells >> name >> rows >> mape >> median >> within >> tau >> groups >> oom >> oom_unknown >>
        band;
    const size_t at = man.find(slice.man_label);
    ASSERT_NE(at, std::string::npos) << slice.man_label;
    const std::string paragraph = man.substr(at, man.find(".br", at + 3) - at);
    for (const std::string& figure :
         {"MAPE " + mape, "median " + median, "tau " + tau, "coverage " + band}) {
      EXPECT_NE(paragraph.find(figure), std::string::npos)
          << slice.man_label << " lacks '" << figure << "': " << paragraph;
    }
    if (slice.groups) {
      EXPECT_NE(paragraph.find("over " + groups + " groups"), std::string::npos) << paragraph;
      const size_t line = report.find("  tau inside one publication", row);
      ASSERT_NE(line, std::string::npos) << slice.report_header;
      std::string text = report.substr(line, report.find(" groups)", line) - line);
      std::replace(text.begin(), text.end(), '\n', ' ');
      std::smatch m;
      ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(: ([0-9.]+) \(([0-9]+)\s*$)"))) << text;
      EXPECT_NE(paragraph.find(m.str(1) + " over " + m.str(2) + " inside one publication"),
                std::string::npos)
          << paragraph;
    }
  }
}

// The README counts the rows of both corpora in prose; the counts are the files'.
TEST(AccuracyCli, TheReadmeCountsTheCorporaRows) {
  std::string readme = read_whole_file(HCP_SOURCE_DIR "/README.md");
  std::replace(readme.begin(), readme.end(), '\n', ' ');
  for (const auto& [file, pattern] :
       {std::pair<std::string, std::string>{"measured_runs.json",
                                            R"(measured_runs\.json`: ([0-9]+) published)"},
        std::pair<std::string, std::string>{"validation_runs.json",
                                            R"(validation_runs\.json`: ([0-9]+) runs)"}}) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(readme, m, std::regex(pattern))) << file;
    const json corpus = json::parse(read_whole_file(HCP_SOURCE_DIR "/recipes/corpus/" + file));
    EXPECT_EQ(std::stoul(m.str(1)), corpus.at("rows").size()) << file;
  }
}

TEST(AccuracyCli, ThresholdDecidesTheExitCode) {
  std::string base = "accuracy --builtin --rounds 1 --corpus " + kTiny;
  auto over = run_cli(base + " --max-lomo-mape 0.001");
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_NE(over.out.find("\nLOMO MAPE 41.2% > threshold 0.1%\n"), std::string::npos) << over.out;
  auto under = run_cli(base + " --max-lomo-mape 10");
  EXPECT_EQ(under.exit_code, 0);
  EXPECT_NE(under.out.find("\nLOMO MAPE 41.2% <= threshold 1000.0%\n"), std::string::npos)
      << under.out;
}

TEST(AccuracyCli, BadInputsExitTwoWithOneLine) {
  for (const char* args :
       {"accuracy --write /tmp/x.json", "accuracy --builtin --constants /tmp/none.json",
        "accuracy --corpus /nonexistent/corpus.json", "accuracy --rounds 0",
        "accuracy --constants /nonexistent/fit.json", "accuracy --max-lomo-mape 0.5 --no-lomo",
        "accuracy --no-lomo --validation /nonexistent/validation.json",
        "accuracy --no-validation --validation /tmp/v.json"}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

TEST(PlanCliBands, JsonCarriesBandsAndTheRecipesOwnLayout) {
  auto r = run_cli("plan llama3_8b_128k --nodes 4 --top 2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  for (const json& o : j["options"]) {
    double t = o["tokens_per_s_per_gpu"];
    EXPECT_LE(o["tokens_per_s_per_gpu_low"].get<double>(), o["tokens_per_s_per_gpu_high"]);
    EXPECT_GT(o["tokens_per_s_per_gpu_high"].get<double>(), 0);
    EXPECT_TRUE(o.contains("tie_with_best"));
    EXPECT_TRUE(o.contains("band_regime"));
    EXPECT_GT(t, 0);
  }
  // The recipe's own layout (TP1 CP16 a2a+p2p [8,2]) with its rank, although --top is 2.
  ASSERT_TRUE(j["recipe_layout"].is_object());
  EXPECT_EQ(j["recipe_layout"]["cp"], 16);
  EXPECT_GE(j["recipe_layout"]["rank"].get<int>(), 1);
  auto text = run_cli("plan llama3_8b_128k --nodes 4 --top 2");
  EXPECT_NE(text.out.find("your layout: "), std::string::npos) << text.out;
  // The absolute band beside each prediction, and what it means.
  EXPECT_NE(text.out.find("%..+"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Transformer Engine run it; the band is where 90%"), std::string::npos)
      << text.out;
}

TEST(CompareCliOrder, KeepsTheGivenLettersAndRecommendsB) {
  auto r = run_cli(
      "compare llama3_8b_128k --nodes 4 --recompute full "
      "--option tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2 --option tp=2,cp=4,cp_comm_type=a2a "
      "--option tp=1,cp=16,cp_comm_type=p2p --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["options"].size(), 3u);
  EXPECT_EQ(j["options"][0]["cp_comm_type"], "a2a+p2p");
  EXPECT_EQ(j["options"][1]["tp"], 2);
  EXPECT_TRUE(j["options"][1]["recommended"].get<bool>());
  std::string why = j["options"][1]["reasons"][0];
  EXPECT_NE(why.find("within model error of "), std::string::npos)
      << why;  // of the fastest (C with the refit)
}

}  // namespace
}  // namespace hcp
