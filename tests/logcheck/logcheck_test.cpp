// Tests of src/logcheck/logcheck.cpp: check-log as one step, from the parsed logs and the command
// line's options to the report (and a saved calibration), and the --format choice.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "hcp/logcheck.h"

namespace hcp {
namespace {

const std::string kLogs = std::string(HCP_FIXTURES_DIR) + "/logs/";

ParsedLog parsed(const std::string& file) {
  auto log = parse_logs({kLogs + file});
  EXPECT_TRUE(log) << (log ? "" : log.error().str());
  return log ? *log : ParsedLog{};
}

TEST(RunLogCheck, ChecksThePrintedConfigurationAndPricesIt) {
  auto report = run_log_check(parsed("mlm_hcp_ok.log"), LogCheckRun{});
  ASSERT_TRUE(report) << report.error().str();
  EXPECT_EQ(report->config_source, "log");
  EXPECT_FALSE(report->log.files.empty());
  EXPECT_EQ(report->speed.has_value(), report->log.iterations.size() > 1);
  if (report->speed && report->prediction) {
    EXPECT_TRUE(report->speed_check.has_value());
  }
}

TEST(RunLogCheck, SilentCpOffIsAnError) {
  auto report = run_log_check(parsed("mlm_hcp_no_groups.log"), LogCheckRun{});
  ASSERT_TRUE(report) << report.error().str();
  EXPECT_GT(summarize(report->diagnostics).errors, 0);
  EXPECT_NE(log_verdict(*report).find("FAIL"), std::string::npos);
}

TEST(RunLogCheck, UnknownClusterIsBadInput) {
  LogCheckRun run;
  run.cluster = "no-such-cluster";
  EXPECT_FALSE(run_log_check(parsed("mlm_hcp_ok.log"), run));
}

TEST(RunLogCheck, SavingACalibrationNeedsIterationsAndAPrediction) {
  LogCheckRun run;
  run.save_calibration = ::testing::TempDir() + "/never_written.json";
  auto report = run_log_check(parsed("mlm_cp012_assert.log"), run);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().str().rfind("--save-calibration: ", 0), 0u) << report.error().str();
}

TEST(FormatLogCheck, EachFormatHasItsShape) {
  auto report = run_log_check(parsed("mlm_hcp_ok.log"), LogCheckRun{});
  ASSERT_TRUE(report);
  EXPECT_EQ(format_log_check("text", *report, "1.2.3"), format_log_report_text(*report));
  EXPECT_EQ(format_log_check("json", *report, "1.2.3"), format_log_report_json(*report));
  auto sarif = nlohmann::json::parse(format_log_check("sarif", *report, "1.2.3"));
  EXPECT_EQ(sarif["runs"][0]["tool"]["driver"]["version"], "1.2.3");
  EXPECT_NE(format_log_check("junit", *report, "1.2.3").find("<testsuite"), std::string::npos);
}

}  // namespace
}  // namespace hcp
