// Suppress and configure like a linter (issue 29): rule IDs checked wherever they are named
// (--ignore, suppression comments, the config's ignore:), the comment on the line before a
// finding, the missing-input notes as findings with IDs, and .hcp-plan.yaml read by every command
// that takes its settings.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_cli;

/// A scratch directory with files in it, removed at the end of the test; commands run in it.
struct Scratch {
  fs::path root;
  Scratch() {
    root = fs::temp_directory_path() /
           ("hcp_suppress_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Scratch() { fs::remove_all(root); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(root / name) << text;
  }
  CliResult run(const std::string& args) const {
    return run_cli(args, "cd '" + root.string() + "' && HCP_PLAN_DATA_DIR='" HCP_RECIPES_DIR "'");
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The shipped Gemma 3 recipe (CP064 on its cp_comm_type line) with `comment` inserted as its
/// own line right before that line.
std::string gemma_with_comment_before_comm_type(const std::string& comment) {
  std::string text = read_whole_file(HCP_RECIPES_DIR "/gemma3_1b_32k.yaml");
  size_t at = text.find("  cp_comm_type:");
  EXPECT_NE(at, std::string::npos);
  text.insert(at, comment + "\n");
  return text;
}

TEST(SuppressionCli, UnknownOrMisspelledIgnoredIdIsAnErrorWithADidYouMean) {
  CliResult typo = run_cli("validate gemma3_1b_32k --ignore CP0064");
  EXPECT_EQ(typo.exit_code, 2) << typo.out << typo.err;
  EXPECT_TRUE(contains(typo.err, "--ignore: unknown rule ID 'CP0064' (did you mean 'CP064'?)"))
      << typo.err;
  CliResult unknown = run_cli("validate gemma3_1b_32k --ignore CP999");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "unknown rule ID 'CP999'")) << unknown.err;
}

TEST(SuppressionCli, IgnoredIdsFoldCase) {
  CliResult shown = run_cli("validate gemma3_1b_32k");
  ASSERT_TRUE(contains(shown.out, "[CP064]")) << shown.out;
  CliResult folded = run_cli("validate gemma3_1b_32k --ignore cp064");
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_FALSE(contains(folded.out, "[CP064]")) << folded.out;
}

TEST(SuppressionCli, CommentOnTheLineBeforeTheFindingSuppressesIt) {
  Scratch dir;
  dir.write("before.yaml", gemma_with_comment_before_comm_type("  # hcp-plan: disable=CP064"));
  CliResult r = dir.run("validate before.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(contains(r.out, "[CP064]")) << r.out;
  // An unrelated comment line does not.
  dir.write("other.yaml", gemma_with_comment_before_comm_type("  # all_gather on purpose"));
  EXPECT_TRUE(contains(dir.run("validate other.yaml").out, "[CP064]"));
}

TEST(SuppressionCli, MisspelledIdInASuppressionCommentIsAnErrorAtTheComment) {
  Scratch dir;
  dir.write("typo.yaml", gemma_with_comment_before_comm_type("  # hcp-plan: disable=CP64"));
  CliResult r = dir.run("validate typo.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "typo.yaml:"));
  EXPECT_TRUE(contains(r.err, "unknown rule ID 'CP64' (did you mean 'CP064'?)")) << r.err;
}

TEST(SuppressionCli, MisspelledIdInTheConfigIsAnErrorAtItsLine) {
  Scratch dir;
  dir.write(".hcp-plan.yaml", "world_size: 8\nignore:\n  - CP046\n  - CP0064\n");
  CliResult r = dir.run("validate gemma3_1b_32k");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err,
                       ".hcp-plan.yaml:4:5: ignore: unknown rule ID 'CP0064' (did you "
                       "mean 'CP064'?)"))
      << r.err;
}

TEST(SuppressionCli, MissingInputNotesHaveIdsAndCanBeIgnored) {
  CliResult r = run_cli("validate gemma3_1b_32k --format json");
  ASSERT_TRUE(contains(r.out, "\"IN005\"")) << r.out;
  CliResult text = run_cli("validate gemma3_1b_32k --wide");  // one line at any checkout path
  EXPECT_TRUE(contains(text.out, "info: [IN005] launch environment unknown: skipped CP111"))
      << text.out;
  CliResult ignored = run_cli("validate gemma3_1b_32k --ignore IN005 --ignore IN003");
  EXPECT_FALSE(contains(ignored.out, "launch environment unknown")) << ignored.out;
  EXPECT_FALSE(contains(ignored.out, "Transformer Engine version unknown")) << ignored.out;
  EXPECT_TRUE(contains(run_cli("explain IN005").out, "IN005")) << "IN005 is in the catalog";
}

TEST(SuppressionCli, ConfigStatesTheLaunchEnvironment) {
  Scratch dir;
  // CP > 1 below sm100 needs CUDA_DEVICE_MAX_CONNECTIONS=1: with the config's environment CP111
  // runs (and fires on 8) instead of being skipped.
  dir.write(".hcp-plan.yaml", "env:\n  CUDA_DEVICE_MAX_CONNECTIONS: 8\n");
  CliResult r = dir.run("validate llama3_8b_128k --world-size 16");
  EXPECT_TRUE(contains(r.out, "[CP111]")) << r.out << r.err;  // A warning for a Bridge recipe.
  EXPECT_FALSE(contains(r.out, "launch environment unknown")) << r.out;
  dir.write(".hcp-plan.yaml", "env: [CUDA_DEVICE_MAX_CONNECTIONS=1]\n");
  CliResult ok = dir.run("validate llama3_8b_128k --world-size 16");
  EXPECT_FALSE(contains(ok.out, "[CP111]")) << ok.out;
  EXPECT_FALSE(contains(ok.out, "launch environment unknown")) << ok.out;
}

TEST(ConfigCli, PlanAndCompareReadTheirShapeAndClusterFromTheConfig) {
  Scratch dir;
  CliResult without = dir.run("plan llama3_8b_128k");
  EXPECT_EQ(without.exit_code, 2) << without.err;  // plan needs --nodes.
  dir.write(".hcp-plan.yaml", "nodes: 2\ngpus_per_node: 8\ncluster: dgx-h200\n");
  CliResult plan = dir.run("plan llama3_8b_128k --format json");
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_TRUE(contains(plan.out, "dgx-h200")) << plan.out.substr(0, 400);
  CliResult compare = dir.run("compare llama3_8b_128k --option tp=1,cp=8");
  EXPECT_NE(compare.exit_code, 2) << compare.err;
  EXPECT_TRUE(contains(compare.out, "dgx-h200")) << compare.out;
  // The command line wins.
  EXPECT_TRUE(contains(dir.run("plan llama3_8b_128k --cluster dgx-h100").out, "dgx-h100"));
  EXPECT_EQ(dir.run("plan llama3_8b_128k --no-config").exit_code, 2);
}

TEST(ConfigCli, GroupsAndPreflightReadTheConfig) {
  Scratch dir;
  dir.write(".hcp-plan.yaml", "nodes: 4\ngpus_per_node: 4\n");
  CliResult groups = dir.run("groups --tp 2 --cp 2 --format json");
  EXPECT_EQ(groups.exit_code, 0) << groups.err;
  EXPECT_TRUE(contains(groups.out, "\"world_size\": 16")) << groups.out.substr(0, 400);
  CliResult preflight = dir.run("preflight llama3_8b_128k --nvidia-smi-topo '" HCP_FIXTURES_DIR
                                "/preflight/dgx_h100_healthy.txt' --format json");
  EXPECT_TRUE(contains(preflight.out, "\"nodes\": 4"))
      << preflight.out.substr(0, 600) << preflight.err;
  dir.write(".hcp-plan.yaml", "nodes: many\n");
  CliResult bad = dir.run("groups --tp 2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, ".hcp-plan.yaml:1:8: nodes: --nodes expects a positive integer"))
      << bad.err;
}

TEST(ConfigCli, PlanTakesMcoreVersionAndOnlyMegatronFrameworks) {
  CliResult ok =
      run_cli("plan llama3_8b_128k --nodes 2 --mcore-version 0.15.0 --framework megatron");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  CliResult other = run_cli("plan llama3_8b_128k --nodes 2 --framework deepspeed");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(contains(other.err,
                       "--framework expects megatron (the recipe's own semantics), bridge or mlm, "
                       "got 'deepspeed'"))
      << other.err;
  EXPECT_TRUE(contains(other.err, "Megatron-Core with Transformer Engine")) << other.err;
  CliResult typo = run_cli("compare llama3_8b_128k --option tp=1,cp=8 --framework megatorn");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(contains(typo.err, "(did you mean 'megatron'?)")) << typo.err;
  CliResult version = run_cli("plan llama3_8b_128k --nodes 2 --mcore-version banana");
  EXPECT_EQ(version.exit_code, 2) << version.err;
}

}  // namespace
}  // namespace hcp
