// The log checks with explicit prediction bands, and the catalogs they rely on.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/cluster.h"
#include "hcp/logcheck.h"

namespace hcp {
namespace {

const std::string kLogs = std::string(HCP_FIXTURES_DIR) + "/logs/";

std::vector<std::string> ids(const std::vector<Diagnostic>& ds, Severity at_least) {
  std::vector<std::string> out;
  for (const Diagnostic& d : ds) {
    if (static_cast<int>(d.severity()) >= static_cast<int>(at_least)) out.push_back(d.id());
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& id) {
  return std::find(v.begin(), v.end(), id) != v.end();
}

TimeBreakdown breakdown() {
  TimeBreakdown t;
  t.gemm_s = 4.0;
  t.attention_s = 12.0;
  t.cp_a2a_s = 1.0;
  t.cp_ring_exposed_s = 0.5;
  t.dp_comm_s = 0.5;
  t.step_s = 18.0;
  return t;
}

TEST(SpeedCheck, CpOffTimeIsAttentionOverCpWithoutCpCommunication) {
  // 18 - 1.5 (CP comm) - 12 + 12/16
  EXPECT_DOUBLE_EQ(cp_off_step_time(breakdown(), 16), 5.25);
  EXPECT_DOUBLE_EQ(cp_off_step_time(breakdown(), 1), 16.5);
}

TEST(SpeedCheck, VerdictFollowsTheBand) {
  PredictionBand band{0.9, 1.2, "test"};
  TimeBreakdown t = breakdown();
  double off = cp_off_step_time(t, 16);
  SpeedCheck within = check_speed(18.5, t, off, band);
  EXPECT_EQ(within.verdict, SpeedVerdict::kWithin);
  EXPECT_DOUBLE_EQ(within.low_s, 16.2);
  EXPECT_DOUBLE_EQ(within.high_s, 21.6);
  SpeedCheck fast = check_speed(5.3, t, off, band);
  EXPECT_EQ(fast.verdict, SpeedVerdict::kFaster);
  EXPECT_TRUE(fast.matches_cp_off);
  SpeedCheck fast_other = check_speed(10.0, t, off, band);
  EXPECT_EQ(fast_other.verdict, SpeedVerdict::kFaster);
  EXPECT_FALSE(fast_other.matches_cp_off);
  SpeedCheck slow = check_speed(30.0, t, off, band);
  EXPECT_EQ(slow.verdict, SpeedVerdict::kSlower);
  EXPECT_EQ(slow.largest_term, "attention compute");
  // A narrower band turns the same measurement into a finding.
  EXPECT_EQ(check_speed(18.5, t, off, PredictionBand{0.99, 1.01, "narrow"}).verdict,
            SpeedVerdict::kSlower);
}

TEST(SpeedCheck, DefaultBandIsSymmetricInRatio) {
  PredictionBand b = default_prediction_band(0.25);
  EXPECT_DOUBLE_EQ(b.high_factor, 1.25);
  EXPECT_DOUBLE_EQ(b.low_factor, 0.8);
  EXPECT_EQ(b.source, "default +-25%");
}

TEST(SpeedCheck, ABandSaysWhereItsToleranceComesFromAndShowsItAsGiven) {
  // --tolerance 0.004 used to read "default +-0%".
  EXPECT_EQ(default_prediction_band(0.004, "--tolerance").source, "--tolerance +-0.4%");
  EXPECT_EQ(default_prediction_band(0.125, "--tolerance").source, "--tolerance +-12.5%");
  EXPECT_EQ(default_prediction_band(2.0, "--tolerance").source, "--tolerance +-200%");
}

/// Parse a fixture and run the checks with a prediction of the same shape but explicit numbers.
std::vector<Diagnostic> run(const std::string& file, double measured_ms, double predicted_s,
                            double cp_off_s, PredictionBand band) {
  auto log = parse_logs({kLogs + file});
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().str());
  LogCheckInputs in;
  LogPrediction p;
  p.layout.cp = 16;
  p.layout.comm = CommType::kA2aP2p;
  p.layout.hcp = {8, 2};
  p.estimate.time = breakdown();
  p.estimate.time.step_s = predicted_s;
  p.estimate.memory.total = 80.0 * (1 << 30);
  p.estimate.memory.reserved = 6.0 * (1 << 30);
  p.cp_off_step_s = cp_off_s;
  p.band = std::move(band);
  p.cluster = "test";
  in.prediction = p;
  MeasuredSpeed s;
  s.median_step_ms = measured_ms;
  s.samples = 5;
  in.speed = s;
  return check_log(*log, in);
}

TEST(LogChecks, CorrectHcpRunHasNoFindings) {
  auto ds = run("mlm_hcp_ok.log", 18000, 18.0, 4.1, PredictionBand{0.8, 1.25, "t"});
  EXPECT_TRUE(ids(ds, Severity::kWarning).empty()) << ids(ds, Severity::kWarning).front();
  EXPECT_TRUE(has(ids(ds, Severity::kInfo), "LOG006"));
  EXPECT_TRUE(has(ids(ds, Severity::kInfo), "LOG030"));
}

TEST(LogChecks, MissingHierarchicalGroupsIsTheSilentCpOffError) {
  auto ds = run("mlm_hcp_no_groups.log", 18000, 18.0, 4.1, PredictionBand{0.8, 1.25, "t"});
  auto errors = ids(ds, Severity::kError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "LOG001");
  const Diagnostic& d = ds.front();
  EXPECT_NE(d.message.find("only CONTEXT_PARALLEL_GROUP (size 16)"), std::string::npos);
  EXPECT_EQ(d.location.line, 5);  // the cp_comm_type line of the arguments block
}

TEST(LogChecks, SilentCpOffBridgeRunIsFlaggedThreeWays) {
  auto ds = run("bridge_silent_cp_off.log", 5200, 19.3, 5.2, PredictionBand{0.8, 1.25, "t"});
  auto errors = ids(ds, Severity::kError);
  EXPECT_TRUE(has(errors, "CP012"));   // the registry on the printed configuration
  EXPECT_TRUE(has(errors, "LOG001"));  // no hierarchical groups
  EXPECT_TRUE(has(errors, "LOG004"));  // attention / CP speed
  auto speed = std::find_if(ds.begin(), ds.end(), [](auto& d) { return d.id() == "LOG004"; });
  EXPECT_NE(speed->message.find("the measured time matches it"), std::string::npos);
}

TEST(LogChecks, SlowRunIsAWarningNamingTheLargestTerm) {
  auto ds = run("mlm_hcp_ok.log", 30000, 18.0, 4.1, PredictionBand{0.8, 1.25, "t"});
  auto d = std::find_if(ds.begin(), ds.end(), [](auto& x) { return x.id() == "LOG005"; });
  ASSERT_NE(d, ds.end());
  EXPECT_EQ(d->severity(), Severity::kWarning);
  EXPECT_NE(d->message.find("attention compute"), std::string::npos);
  EXPECT_NE(d->fix().find("probe"), std::string::npos);
}

TEST(LogChecks, GroupSizesOtherThanConfigured) {
  auto log = parse_logs({kLogs + "mlm_hcp_ok.log"});
  ASSERT_TRUE(log.ok());
  for (LogGroup& g : log->groups) {
    if (g.name == "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0") g.size = 4;
    if (g.name == "CONTEXT_PARALLEL_GROUP") g.size = 8;
  }
  auto errors = ids(check_log(*log, LogCheckInputs{}), Severity::kError);
  EXPECT_TRUE(has(errors, "LOG002"));
  EXPECT_TRUE(has(errors, "LOG003"));
}

TEST(LogChecks, FailuresAreExplainedByRuleIds) {
  auto ds = check_log(*parse_logs({kLogs + "mlm_cp012_assert.log"}), LogCheckInputs{});
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds.front().id(), "LOG020");
  EXPECT_NE(ds.front().message.find("explained by CP012"), std::string::npos);
  EXPECT_EQ(ds.front().fix(), std::string(find_rule("CP012")->fix));

  auto oom = check_log(*parse_logs({kLogs + "mlm_oom.log"}), LogCheckInputs{});
  EXPECT_EQ(oom.front().id(), "LOG021");
  EXPECT_NE(oom.front().message.find("tried to allocate 8.00 GiB"), std::string::npos);
  EXPECT_NE(oom.front().message.find("(2 occurrences)"), std::string::npos);
}

TEST(LogChecks, FirstOfSeveralFailuresIsNamed) {
  auto log = parse_logs({kLogs + "real_crash_tail_device_assert.log"});
  ASSERT_TRUE(log.ok()) << log.error().str();
  auto ds = check_log(*log, LogCheckInputs{});
  auto errors = ids(ds, Severity::kError);
  EXPECT_EQ(errors, (std::vector<std::string>{"LOG023", "LOG023", "LOG022"}));
  auto first =
      std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id() == "LOG025"; });
  ASSERT_NE(first, ds.end());
  EXPECT_EQ(first->location.line, 1);
  EXPECT_NE(first->message.find("the first failure is the cuda-error (device-side assertion "
                                "`srcIndex < srcSelectDimSize` failed)"),
            std::string::npos)
      << first->message;
  EXPECT_NE(first->message.find("; later: cuda-error at line 2, nccl-timeout at line 3"),
            std::string::npos)
      << first->message;

  // One failure: nothing to order.
  auto one = check_log(*parse_logs({kLogs + "real_llamafactory6269_watchdog.log"}), {});
  EXPECT_FALSE(has(ids(one, Severity::kInfo), "LOG025"));
}

TEST(LogChecks, LogValuesWinOverTheRecipeAndDifferencesAreNamed) {
  auto log = parse_logs({kLogs + "mlm_hcp_ok.log"});
  ASSERT_TRUE(log.ok());
  auto recipe = load_recipe_file(std::string(HCP_RECIPES_DIR) + "/llama3_8b_128k.yaml");
  ASSERT_TRUE(recipe.ok());
  recipe->set("model.context_parallel_size", Value::integer(8));
  auto merged = effective_recipe(*log, *recipe);
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->get_int("model.context_parallel_size"), 16);
  EXPECT_EQ(merged->framework, Framework::kMlm);
  LogCheckInputs in;
  in.recipe = *recipe;
  auto ds = check_log(*log, in);
  auto d = std::find_if(ds.begin(), ds.end(), [](auto& x) { return x.id() == "LOG031"; });
  ASSERT_NE(d, ds.end());
  EXPECT_NE(d->message.find("model.context_parallel_size is 16 in the job but 8"),
            std::string::npos);
}

TEST(LogChecks, EnvironmentTakesWhatTheLogPrints) {
  ParsedLog log;
  log.world_size = 32;
  log.versions["nccl"] = LogVersion{*Version::parse("2.21.5"), {}};
  Environment given;
  given.world_size = 64;
  Environment env = log_environment(log, given, Framework::kBridge);
  EXPECT_EQ(env.world_size, 64);  // the command line wins
  EXPECT_EQ(env.nccl_version->str(), "2.21.5");
  EXPECT_EQ(log_environment(log, Environment{}, Framework::kMlm).world_size, 32);
}

TEST(LogCatalogs, EveryFailureSignatureNamesARegistryRule) {
  const char* samples[] = {
      "--hierarchical-context-parallel-sizes must be set when a2a+p2p is used in cp comm",
      "Product of hierarchical_context_parallel_sizes [4, 2] (=8) must equal",
      "CP implementation a2a+p2p requires cp_group = [a2a_cp_group, p2p_cp_group]!",
      "Transformer-Engine v1.11.0 must be >= 1.12.0 to supporthierarchical cp commucation.",
      "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1.",
      "The number of attention heads needs to be divisible by CP size!",
      "Context parallelism is only supported by TEDotProductAttention!",
  };
  for (const char* s : samples) {
    std::string id = rule_for_failure(s, "");
    ASSERT_FALSE(id.empty()) << s;
    EXPECT_NE(find_rule(id), nullptr) << id;
  }
  EXPECT_EQ(rule_for_failure("RuntimeError: something else", "x = y"), "");
}

TEST(LogCatalogs, LogChecksAreRegistryRules) {
  // `hcp-plan explain LOG021` and `rules` read these entries; the checks take severity and fix
  // from them.
  int log_rules = 0;
  for (const Rule& rule : rule_registry()) {
    if (!rule.id.starts_with("LOG")) continue;
    ++log_rules;
    EXPECT_EQ(rule.runs_in, "check-log") << rule.id;
    EXPECT_EQ(rule.check, nullptr) << rule.id;
  }
  EXPECT_GE(log_rules, 17);
  const Rule* oom = find_rule("LOG021");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->severity, Severity::kError);
  EXPECT_NE(std::string(oom->fix).find("--memory-limit"), std::string::npos);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

TEST(SpeedCheck, FittedBandComesFromThePlannerFidelityFit) {
  auto recipe = load_recipe_file(std::string(HCP_RECIPES_DIR) + "/llama3_8b_128k.yaml");
  ASSERT_TRUE(recipe.ok());
  LogHardware hw;
  hw.hardware =
      hardware_from_profile(*find_cluster_profile("dgx-h100"), accuracy::shipped_constants());
  hw.label = "dgx-h100";
  auto fitted = predict_run(*recipe, 32, hw, std::nullopt);
  ASSERT_TRUE(fitted.ok()) << fitted.error().str();
  EXPECT_NE(fitted->band.source.find("fitted band of dense, CP>1"), std::string::npos)
      << fitted->band.source;
  EXPECT_LT(fitted->band.low_factor, fitted->band.high_factor);
  auto given = predict_run(*recipe, 32, hw, default_prediction_band(0.1));
  ASSERT_TRUE(given.ok());
  EXPECT_DOUBLE_EQ(given->band.high_factor, 1.1);
  EXPECT_GT(fitted->cp_off_step_s, 0);
  EXPECT_LT(fitted->cp_off_step_s, fitted->estimate.time.step_s);
}

}  // namespace
}  // namespace hcp
