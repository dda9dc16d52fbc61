// End-to-end: hcp-plan validate, rules and explain — exit codes, text form, JSON shape.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_cli;

const std::string kDefault = "recipes/llama3_8b_128k.yaml";
const std::string kCluster = " --nodes 4 --gpus-per-node 8 --te-version 2.18.0";

int count_lines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(ValidateCli, DefaultRecipeOnFourNodesPassesEveryRule) {
  // Its one warning is CP115: plan's memory model puts its own layout over 80 GB (ValidateMemory).
  CliResult r = run_cli("validate " + kDefault + kCluster);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find(": error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kDefault + ": 0 errors, 1 warning"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(r.out, ": warning: ["), 1) << r.out;
  EXPECT_NE(r.out.find(": warning: [CP115]"), std::string::npos) << r.out;
}

TEST(ValidateCli, ShippedRecipeByName) {
  CliResult r = run_cli("validate llama3_8b_128k" + kCluster);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string summary = "recipes/llama3_8b_128k.yaml: 0 errors, 1 warning, 1 info\n";
  ASSERT_GE(r.out.size(), summary.size()) << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - summary.size()), summary) << r.out;
}

TEST(ValidateCli, ErrorInCompilerFormWithFixAndOverrideLocation) {
  CliResult r = run_cli("validate " + kDefault +
                        " model.hierarchical_context_parallel_sizes=[4,2] --wide" + kCluster);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::regex line(
      R"(<override 1>:1:\d+: error: \[CP013\] Product of hierarchical_context_parallel_sizes \[4, 2\] \(=8\) must equal context_parallel_size \(=16\)\.)");
  EXPECT_TRUE(std::regex_search(r.out, line)) << r.out;
  EXPECT_NE(r.out.find("\n    fix: make the product"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n    note: enforced by bridge, mcore, mlm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kDefault + ": 1 error,"), std::string::npos) << r.out;
}

TEST(ValidateCli, FileLocationsPointAtTheYamlValue) {
  // CP=8 through the shorthand flag leaves the recipe's HCP sizes [8, 2] (line 25) wrong.
  CliResult r = run_cli("validate " + kDefault + " -cp 8" + kCluster);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::regex line(kDefault + R"(:25:\d+: error: \[CP013\])");
  EXPECT_TRUE(std::regex_search(r.out, line)) << r.out;
}

TEST(ValidateCli, ShorthandFlagsAndOverridesPassThrough) {
  CliResult r = run_cli("validate " + kDefault +
                        " -cp 8 model.hierarchical_context_parallel_sizes=[4,2]" + kCluster);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("CP013"), std::string::npos) << r.out;
}

TEST(ValidateCli, ARecipePathWithAnEqualsSignIsTheRecipe) {
  // Hydra's multirun folders ("lr=0.1/...") once read as an override: "nothing to check".
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hcp_eq_" + std::to_string(getpid())) / "run=1";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::string(HCP_SOURCE_DIR) + "/" + kDefault, dir / "m.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string recipe = (dir / "m.yaml").string();
  CliResult r = run_cli("validate '" + recipe + "' model.context_parallel_size=4" + kCluster);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // CP 4 against the recipe's HCP sizes [8, 2]
  EXPECT_NE(r.out.find(recipe + ": 1 error"), std::string::npos) << r.out << r.err;
  // Without a file behind it, the same word stays an override.
  CliResult override_only = run_cli("validate run=1/none.yaml" + kCluster);
  EXPECT_EQ(override_only.exit_code, 2) << override_only.out;
  EXPECT_NE(override_only.err.find("nothing to check"), std::string::npos) << override_only.err;
  std::filesystem::remove_all(dir.parent_path());
}

TEST(ValidateCli, JsonShape) {
  CliResult r = run_cli("validate " + kDefault +
                        " model.hierarchical_context_parallel_sizes=[4,2] --format json");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(r.out);
  ASSERT_TRUE(j["diagnostics"].is_array());
  ASSERT_FALSE(j["diagnostics"].empty());
  int errors = 0, warnings = 0, infos = 0;
  bool saw_cp013 = false;
  for (const json& d : j["diagnostics"]) {
    for (const char* key : {"id", "severity", "message", "key", "fix"}) {
      EXPECT_TRUE(d[key].is_string()) << key << " in " << d.dump();
    }
    EXPECT_TRUE(d["location"]["file"].is_string()) << d.dump();
    EXPECT_TRUE(d["location"]["line"].is_number_integer()) << d.dump();
    EXPECT_TRUE(d["location"]["column"].is_number_integer()) << d.dump();
    EXPECT_TRUE(d["enforced_by"].is_array()) << d.dump();
    std::string severity = d["severity"];
    errors += severity == "error";
    warnings += severity == "warning";
    infos += severity == "info";
    if (d["id"] == "CP013") {
      saw_cp013 = true;
      EXPECT_EQ(d["key"], "model.hierarchical_context_parallel_sizes");
      EXPECT_EQ(d["location"]["file"], "<override 1>");
      EXPECT_EQ(d["location"]["line"], 1);
    }
  }
  EXPECT_TRUE(saw_cp013);
  EXPECT_EQ(j["summary"]["errors"], errors);
  EXPECT_EQ(j["summary"]["warnings"], warnings);
  EXPECT_EQ(j["summary"]["infos"], infos);
  EXPECT_EQ(j["framework"], "bridge");
}

TEST(ValidateCli, UnknownInputsGiveOneInfoEach) {
  CliResult r = run_cli("validate " + kDefault);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(count_lines(r.out, "info: [IN001] world size unknown"), 1) << r.out;
  EXPECT_EQ(count_lines(r.out, "info: [IN003] Transformer Engine version unknown"), 1) << r.out;
  EXPECT_EQ(count_lines(r.out, "info: [IN002] GPUs per node unknown"), 1) << r.out;
}

TEST(ValidateCli, StrictFailsOnWarnings) {
  // [8, 2] on 4-GPU nodes: the a2a level leaves the node (CP020 warning), nothing worse.
  std::string args = "validate " + kDefault + " --nodes 8 --gpus-per-node 4 --te-version 2.18.0";
  CliResult lenient = run_cli(args);
  EXPECT_EQ(lenient.exit_code, 0) << lenient.out << lenient.err;
  EXPECT_NE(lenient.out.find("warning: [CP020]"), std::string::npos) << lenient.out;
  CliResult strict = run_cli(args + " --strict");
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
}

TEST(ValidateCli, FrameworkSelectsSemantics) {
  std::string args = "validate " + kDefault + " ++model.sequence_parallel=true --format json";
  json bridge = json::parse(run_cli(args).out);
  json mlm = json::parse(run_cli(args + " --framework mlm").out);
  auto message_of = [](const json& j, const std::string& id) -> std::string {
    for (const json& d : j["diagnostics"]) {
      if (d["id"] == id) return std::string(d["severity"]) + ": " + std::string(d["message"]);
    }
    return "";
  };
  // Both turn sequence parallelism off at TP 1 (an info), each in its own words: Bridge's
  // finalize() (issue #29), the MLM CLI's validate_args.
  EXPECT_EQ(message_of(bridge, "CP006").rfind("info: sequence_parallel is ignored: Bridge's", 0),
            0u)
      << message_of(bridge, "CP006");
  EXPECT_EQ(message_of(mlm, "CP006").rfind("info: Disabling sequence parallelism", 0), 0u)
      << message_of(mlm, "CP006");
  EXPECT_EQ(mlm["framework"], "mlm");
}

TEST(ValidateCli, OutputFile) {
  std::string path =
      (std::filesystem::temp_directory_path() / ("hcp_validate_" + std::to_string(getpid())))
          .string();
  CliResult r = run_cli("validate " + kDefault + kCluster + " --format json -o '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  json j = json::parse(read_whole_file(path));
  EXPECT_EQ(j["summary"]["errors"], 0);
  std::filesystem::remove(path);
}

struct BadInput {
  const char* args;
  const char* needle;  ///< Part of the one-line error.
};

class ValidateBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ValidateBadInput, ExitsTwoWithOneLine) {
  CliResult r = run_cli(std::string("validate ") + GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("hcp-plan: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(GetParam().needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ValidateBadInput,
    ::testing::Values(BadInput{"recipes/no_such_recipe.yaml", "no_such_recipe"},
                      BadInput{"recipes/llama3_8b_128k.yaml model.context_parallel_size=abc",
                               "<override 1>"},
                      BadInput{"recipes/llama3_8b_128k.yaml model.hierarchical_context_parallel_"
                               "sizes=[8,2",
                               "<override 1>"},
                      BadInput{"recipes/llama3_8b_128k.yaml --world-size 0", "--world-size"},
                      BadInput{"recipes/llama3_8b_128k.yaml --te-version latest", "--te-version"},
                      BadInput{"recipes/llama3_8b_128k.yaml --framework nemo", "--framework"},
                      BadInput{"recipes/llama3_8b_128k.yaml --world-size 16 --nodes 4 "
                               "--gpus-per-node 8",
                               "contradicts"},
                      BadInput{"recipes/llama3_8b_128k.yaml --format yaml", "--format"}));

TEST(ValidateCli, MissingRecipeIsAUsageError) {
  CliResult r = run_cli("validate");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "hcp-plan: error: <command line>: nothing to check: give RECIPE, --mlm-args or "
            "--hf-config\n");
}

// --- rules and explain ----------------------------------------------------------------------

TEST(RulesCli, ListsTheCatalog) {
  CliResult r = run_cli("rules");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CP013  error     hcp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CP040"), std::string::npos);
}

TEST(RulesCli, JsonAndFamilyFilter) {
  CliResult r = run_cli("rules --family heads --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["rules"].size(), 7u) << r.out;
  for (const json& rule : j["rules"])
    EXPECT_EQ(rule["family"], "heads");
  EXPECT_EQ(j["rules"][0]["id"], "CP030");
  EXPECT_EQ(run_cli("rules --family nonsense").exit_code, 2);
}

TEST(ExplainCli, ShowsTheRuleAndRunsBothExamples) {
  CliResult r = run_cli("explain cp013");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  constexpr const char* kFailingExample =
      "Failing example:\n  $ hcp-plan validate llama3_8b_128k "
      "model.hierarchical_context_parallel_sizes=[4,2]";
  for (const char* part :
       {"CP013: product of hierarchical_context_parallel_sizes equals CP", "Severity:    error",
        "Enforced by: bridge, mcore, mlm", "Upstream:    Megatron-LM",
        "Why:", "Fix:", kFailingExample, "  <override 1>:1:", "error: [CP013] Product of",
        "Passing example:", "CP013 is quiet."}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << "missing '" << part << "' in\n" << r.out;
  }
}

TEST(ExplainCli, LoaderGuardedRuleSaysSo) {
  CliResult r = run_cli("explain CP002");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the loader rejects it before any rule runs (exit 2)"), std::string::npos)
      << r.out;
}

TEST(ExplainCli, Json) {
  CliResult r = run_cli("explain CP012 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["id"], "CP012");
  EXPECT_TRUE(j["examples"]["failing"]["fired"].get<bool>()) << r.out;
  EXPECT_FALSE(j["examples"]["passing"]["fired"].get<bool>()) << r.out;
  EXPECT_EQ(j["examples"]["failing"]["diagnostics"][0]["id"], "CP012");
}

// Issue #15: preflight and probe IDs are in the catalog; explain describes their example inputs.
TEST(ExplainCli, PreflightAndProbeRulesAreInTheCatalog) {
  CliResult list = run_cli("rules --family preflight");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("PF201"), std::string::npos) << list.out;
  EXPECT_NE(run_cli("rules --family probe").out.find("TOPO002"), std::string::npos);
  CliResult r = run_cli("explain PF201");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part :
       {"PF201: the node shows the GPUs the launch asks for", "Family:      preflight",
        "Failing example:\n  $ hcp-plan preflight   # on: --gpus-per-node 8", "described, not run",
        "Passing example:"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << "missing '" << part << "' in\n" << r.out;
  }
  EXPECT_EQ(run_cli("explain topo001").exit_code, 0);
}

/// The "OOM by X GiB" of the first row of `plan` output marked as the recipe's own layout.
std::string plan_oom_of_own_layout(const std::string& plan_out) {
  std::smatch m;
  static const std::regex own("your layout;[^\n]*OOM by ([0-9.]+) GiB");
  return std::regex_search(plan_out, m, own) ? m[1].str() : std::string();
}

// Issue #29: the README's default recipe was clean in validate and "OOM by ... GiB" in plan.
// CP115 prices the recipe's own layout with plan's memory model and warns, with plan's figure.
TEST(ValidateMemory, TheReadmeRecipeWarnsWithPlansFigureAndLeastChange) {
  CliResult r = run_cli("validate " + kDefault + kCluster + " --wide");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // a warning, not an error
  EXPECT_NE(r.out.find("warning: [CP115] the recipe's layout TP1 CP16 a2a+p2p [8,2] DP2 does not "
                       "fit in the memory of H100-SXM5-80GB GPUs (dgx-h100, plan's default "
                       "cluster: pass --cluster)"),
            std::string::npos)
      << r.out;
  CliResult plan = run_cli("plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --top 0");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  std::string oom = plan_oom_of_own_layout(plan.out);
  ASSERT_FALSE(oom.empty()) << plan.out;
  EXPECT_NE(r.out.find("OOM by " + oom + " GiB (band "), std::string::npos) << oom << "\n" << r.out;
  // The fix is plan's first least change, word for word.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plan.out, m,
                                std::regex("  - (the same layout with --recompute "
                                           "[a-z]+: [^\n]*)")))
      << plan.out;
  EXPECT_NE(r.out.find("fix: the least change that makes it fit, as `hcp-plan plan` names it: " +
                       m[1].str()),
            std::string::npos)
      << m[1].str() << "\n"
      << r.out;
  EXPECT_NE(r.out.find(kDefault + ": 0 errors, 1 warning, 1 info"), std::string::npos) << r.out;
  // A warning: --fail-on warning fails on it, and it is ignored like any finding.
  EXPECT_EQ(run_cli("validate " + kDefault + kCluster + " --fail-on warning").exit_code, 1);
  CliResult ignored = run_cli("validate " + kDefault + kCluster + " --ignore CP115");
  EXPECT_EQ(ignored.out.find("CP115"), std::string::npos) << ignored.out;
  CliResult json = run_cli("validate " + kDefault + kCluster + " --format json");
  EXPECT_NE(json.out.find("\"CP115\""), std::string::npos) << json.out;
}

TEST(ValidateMemory, QuietWhenTheLayoutFitsOrCannotBePriced) {
  for (const std::string& args :
       {kCluster + " --cluster dgx-h200", kCluster + " model.recompute_granularity=full",
        std::string(" --te-version 2.18.0"), kCluster + " -cp 8 -tp 2 -sl 8192"}) {
    CliResult r = run_cli("validate " + kDefault + args);
    EXPECT_NE(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.out.find("CP115"), std::string::npos) << args << "\n" << r.out;
  }
  // A cluster that does not exist is bad input, said once.
  CliResult bad = run_cli("validate " + kDefault + kCluster + " --cluster dgx-h999");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("dgx-h999"), std::string::npos) << bad.err;
}

TEST(ExplainCli, UnknownIdSuggestsTheClosest) {
  CliResult r = run_cli("explain CP0133");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'CP013'?"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli("explain").exit_code, 2);
}

}  // namespace
}  // namespace hcp
