// End-to-end: validate --format sarif/junit/github/gcc and several recipes in one run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <regex>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::run_cli;

const std::string kBad = "tests/fixtures/report/bad_hcp.yaml";
const std::string kGood = "recipes/llama3_8b_128k.yaml";
const std::string kCluster = " --nodes 4 --gpus-per-node 8 --te-version 2.18.0";

TEST(FormatsCli, GccLineForTheBadRecipe) {
  CliResult r = run_cli("validate " + kBad + kCluster + " --format gcc");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::regex line(
      kBad +
      R"(:25:\d+: error: Product of hierarchical_context_parallel_sizes \[4, 2\] \(=8\) must equal context_parallel_size \(=16\)\. \[CP013\]\n)");
  EXPECT_TRUE(std::regex_search(r.out, line)) << r.out;
  EXPECT_EQ(r.out.find("fix:"), std::string::npos) << r.out;
}

TEST(FormatsCli, GithubAnnotationForTheBadRecipe) {
  CliResult r = run_cli("validate " + kBad + kCluster + " --format github");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::regex line(
      "::error file=" + kBad +
      R"(,line=25,col=\d+,title=CP013::Product of hierarchical_context_parallel_sizes \[4, 2\] \(=8\) must equal context_parallel_size \(=16\)\.%0Afix: [^\n]*\n)");
  EXPECT_TRUE(std::regex_search(r.out, line)) << r.out;
}

TEST(FormatsCli, SarifResultPointsAtTheYamlLine) {
  CliResult r = run_cli("validate " + kBad + kCluster + " --format sarif");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json log = json::parse(r.out);
  EXPECT_EQ(log["version"], "2.1.0");
  bool found = false;
  for (const json& result : log["runs"][0]["results"]) {
    if (result["ruleId"] != "CP013") continue;
    found = true;
    EXPECT_EQ(result["level"], "error");
    json physical = result["locations"][0]["physicalLocation"];
    EXPECT_EQ(physical["artifactLocation"]["uri"], kBad);
    EXPECT_EQ(physical["region"]["startLine"], 25);
  }
  EXPECT_TRUE(found) << r.out;
  EXPECT_FALSE(log["runs"][0]["tool"]["driver"]["rules"].empty());
}

// The key "é€😀" is 9 bytes and 3 code points: SARIF (columnKind unicodeCodePoints) places CP001
// at code point 120, gcc at byte 126.
TEST(FormatsCli, SarifColumnsCountCodePoints) {
  const std::string recipe = "tests/fixtures/report/multibyte_key.yaml";
  CliResult r = run_cli("validate " + recipe + " --world-size 32 --format sarif -q");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json log = json::parse(r.out);
  EXPECT_EQ(log["runs"][0]["columnKind"], "unicodeCodePoints");
  bool found = false;
  for (const json& result : log["runs"][0]["results"]) {
    if (result["ruleId"] != "CP001") continue;
    found = true;
    json region = result["locations"][0]["physicalLocation"]["region"];
    EXPECT_EQ(region["startLine"], 1);
    EXPECT_EQ(region["startColumn"], 120);
  }
  EXPECT_TRUE(found) << r.out;
  CliResult gcc = run_cli("validate " + recipe + " --world-size 32 --format gcc -q");
  EXPECT_NE(gcc.out.find(recipe + ":1:126: error: "), std::string::npos) << gcc.out;
}

TEST(FormatsCli, SeveralRecipesExitWithTheWorst) {
  CliResult r = run_cli("validate " + kGood + " " + kBad + kCluster + " --format junit");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(r.out.c_str())) << r.out;
  pugi::xml_node good = doc.select_node(("//testsuite[@name='" + kGood + "']").c_str()).node();
  pugi::xml_node bad = doc.select_node(("//testsuite[@name='" + kBad + "']").c_str()).node();
  ASSERT_TRUE(good) << r.out;
  ASSERT_TRUE(bad) << r.out;
  EXPECT_EQ(good.attribute("failures").as_int(), 0);
  EXPECT_GE(bad.attribute("failures").as_int(), 1);
  pugi::xpath_node failure = bad.select_node("testcase/failure[contains(., 'CP013')]");
  EXPECT_TRUE(failure) << r.out;
}

TEST(FormatsCli, OverridesApplyToEveryRecipe) {
  // -cp 8 leaves the shipped [8, 2] wrong and makes the fixture's [4, 2] right.
  CliResult r = run_cli("validate " + kGood + " -cp 8 " + kBad + kCluster + " --format gcc");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(kGood + ":25:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kBad + ":25:"), std::string::npos) << r.out;
}

TEST(FormatsCli, ShippedNamesAndJsonRecipes) {
  CliResult r = run_cli("validate llama3_8b_128k " + kBad + kCluster + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;  // One shape for one or many recipes (schema_version 2).
  const json& recipes = j["recipes"];
  ASSERT_EQ(recipes.size(), 2u);
  EXPECT_EQ(recipes[0]["summary"]["errors"], 0);
  EXPECT_EQ(recipes[1]["recipe"], kBad);
  EXPECT_GE(recipes[1]["summary"]["errors"].get<int>(), 1);
  EXPECT_EQ(j["summary"]["errors"], recipes[1]["summary"]["errors"]);
}

TEST(FormatsCli, MissingRecipeIsBadInputButOthersAreReported) {
  CliResult r = run_cli("validate " + kBad + " no_such_recipe.yaml" + kCluster + " --format gcc");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no_such_recipe"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[CP013]"), std::string::npos) << r.out;
}

TEST(FormatsCli, CleanRecipesExitZero) {
  CliResult r = run_cli("validate " + kGood + " llama3_8b_128k" + kCluster + " --format github");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("::error"), std::string::npos) << r.out;
}

TEST(FormatsCli, UnknownFormatIsUsageError) {
  CliResult r = run_cli("validate " + kGood + " --format checkstyle");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "hcp-plan: error: <command line>: --format: expects text, json, sarif, junit, github "
            "or gcc, got 'checkstyle'\n");
}

TEST(PreCommitHooks, DeclaresTheValidateHook) {
  YAML::Node hooks = YAML::LoadFile(HCP_SOURCE_DIR "/.pre-commit-hooks.yaml");
  ASSERT_TRUE(hooks.IsSequence());
  ASSERT_EQ(hooks.size(), 1u);
  YAML::Node hook = hooks[0];
  EXPECT_EQ(hook["id"].as<std::string>(), "hcp-plan-validate");
  // A script of this repository (it finds or builds the binary), not a command on PATH.
  EXPECT_EQ(hook["language"].as<std::string>(), "script");
  std::string entry = hook["entry"].as<std::string>();
  EXPECT_EQ(access((HCP_SOURCE_DIR "/" + entry).c_str(), X_OK), 0) << entry;
  EXPECT_TRUE(hook["pass_filenames"].as<bool>());
  std::regex files(hook["files"].as<std::string>());
  EXPECT_TRUE(std::regex_search("recipes/a.yaml", files));
  EXPECT_TRUE(std::regex_search("b.yml", files));
  EXPECT_FALSE(std::regex_search("c.json", files));
}

TEST(PreCommitHooks, HookCommandValidatesSeveralFiles) {
  // What pre-commit runs: the entry, its args, then the staged file names.
  YAML::Node hook = YAML::LoadFile(HCP_SOURCE_DIR "/.pre-commit-hooks.yaml")[0];
  std::string args;
  for (const YAML::Node& arg : hook["args"])
    args += " " + arg.as<std::string>();
  std::string entry = hook["entry"].as<std::string>();
  CliResult r = testing::run_shell("cd '" HCP_SOURCE_DIR "' && HCP_PLAN_BIN='" HCP_BINARY "' ./" +
                                   entry + args + " " + kGood + " " + kBad + kCluster);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(kBad + ":25:"), std::string::npos) << r.out;
}

// Issue #28: repeated findings fold after 10 of a kind, on stderr and in every format, while the
// summary counts them all (30 unknown Megatron-LM flags: 10 lines and one fold).
TEST(FormatsCli, RepeatedLoadErrorsFoldOnStderrAndInJson) {
  std::string flags = "--num-layers 2";
  for (int i = 1; i <= 30; ++i)
    flags += " --no-such-flag-" + std::to_string(i) + " 1";
  CliResult text = run_cli("validate --mlm-args '" + flags + "'");
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_EQ(std::count(text.err.begin(), text.err.end(), '\n'), 11) << text.err;
  EXPECT_NE(text.err.find("'--no-such-flag-10'"), std::string::npos) << text.err;
  EXPECT_EQ(text.err.find("'--no-such-flag-11'"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("... and 20 more errors like the above"), std::string::npos) << text.err;
  CliResult j = run_cli("validate --mlm-args '" + flags + "' --format json");
  EXPECT_EQ(j.exit_code, 2);
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["diagnostics"].size(), 11u);
  EXPECT_EQ(doc["summary"]["errors"], 30);
  // At 10 nothing folds.
  std::string ten = "--num-layers 2";
  for (int i = 1; i <= 10; ++i)
    ten += " --no-such-flag-" + std::to_string(i) + " 1";
  CliResult at_limit = run_cli("validate --mlm-args '" + ten + "'");
  EXPECT_EQ(std::count(at_limit.err.begin(), at_limit.err.end(), '\n'), 10) << at_limit.err;
  EXPECT_EQ(at_limit.err.find("more errors"), std::string::npos) << at_limit.err;
}

}  // namespace
}  // namespace hcp
