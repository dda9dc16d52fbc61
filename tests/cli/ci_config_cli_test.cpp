// CI across a repository of recipes (issue 16, points 3 and 4): the README's .hcp-plan.yaml on a
// copy of the shipped recipes, inline suppressions, --ignore / --fail-on / --quiet, and the
// pre-commit hook run by pre-commit itself on a repository with non-recipe YAML.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_cli;

/// A temporary repository directory, removed at the end of the test.
struct Repo {
  fs::path root;
  Repo() {
    root = fs::temp_directory_path() /
           ("hcp_ci_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root / "recipes");
  }
  ~Repo() { fs::remove_all(root); }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((root / name).parent_path());
    std::ofstream(root / name) << text;
  }
  void copy_shipped_recipes() const {
    for (const auto& entry : fs::directory_iterator(HCP_RECIPES_DIR)) {
      if (entry.path().extension() == ".yaml")
        fs::copy_file(entry.path(), root / "recipes" / entry.path().filename());
    }
  }
  /// `hcp-plan ARGS` run from the repository's root.
  CliResult run(const std::string& args) const {
    return run_cli(args, "cd '" + root.string() + "' && ");
  }
};

/// The ```yaml block of the README that starts with "# .hcp-plan.yaml".
std::string readme_config() {
  std::string readme = read_whole_file(HCP_SOURCE_DIR "/README.md");
  size_t start = readme.find("```yaml\n# .hcp-plan.yaml");
  EXPECT_NE(start, std::string::npos) << "README has no .hcp-plan.yaml block";
  if (start == std::string::npos) return "";
  start += std::string("```yaml\n").size();
  return readme.substr(start, readme.find("```", start) - start);
}

TEST(CiConfigCli, ReadmeConfigPassesEveryShippedRecipe) {
  Repo repo;
  repo.copy_shipped_recipes();
  repo.write(".hcp-plan.yaml", readme_config());
  CliResult r = repo.run("validate recipes/*.yaml --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["errors"], 0) << r.out;
  EXPECT_GE(j["recipes"].size(), 12u);
  // The README's CI lines in text and SARIF form pass as well.
  EXPECT_EQ(repo.run("validate recipes/*.yaml --format sarif -o hcp.sarif").exit_code, 0);
  EXPECT_TRUE(fs::exists(repo.root / "hcp.sarif"));
}

TEST(CiConfigCli, WithoutTheConfigOneWorldSizeFailsTheBigRecipes) {
  Repo repo;
  repo.copy_shipped_recipes();
  CliResult r = repo.run("validate recipes/*.yaml --world-size 32 --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = json::parse(r.out);
  EXPECT_GT(j["summary"]["errors"], 0) << r.out;
}

TEST(CiConfigCli, PerGlobWorldSizeAndCommandLineWins) {
  Repo repo;
  fs::copy_file(HCP_RECIPES_DIR "/llama31_70b_128k.yaml", repo.root / "recipes/big.yaml");
  fs::copy_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml", repo.root / "recipes/small.yaml");
  repo.write(".hcp-plan.yaml",
             "world_size: 32\nte_version: 2.18.0\nfiles:\n  big.yaml:\n    nodes: 16\n"
             "    gpus_per_node: 8\n");
  CliResult both = repo.run("validate recipes/big.yaml recipes/small.yaml");
  EXPECT_EQ(both.exit_code, 0) << both.out << both.err;
  EXPECT_NE(both.out.find("recipes/big.yaml: 0 errors"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("recipes/small.yaml: 0 errors"), std::string::npos) << both.out;
  // Found upward from a subdirectory too.
  CliResult sub =
      run_cli("validate big.yaml small.yaml", "cd '" + (repo.root / "recipes").string() + "' && ");
  EXPECT_EQ(sub.exit_code, 0) << sub.out << sub.err;
  EXPECT_NE(sub.out.find("big.yaml: 0 errors"), std::string::npos) << sub.out;
  // The command line's shape replaces the config's.
  CliResult shape = repo.run("validate recipes/big.yaml --world-size 32");
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_NE(shape.out.find("error: ["), std::string::npos) << shape.out;
  CliResult no_config = repo.run("validate recipes/big.yaml --no-config --world-size 128");
  EXPECT_EQ(no_config.exit_code, 0) << no_config.out << no_config.err;
  EXPECT_NE(no_config.out.find("recipes/big.yaml: 0 errors"), std::string::npos) << no_config.out;
}

TEST(CiConfigCli, BadConfigIsBadInputWithItsLine) {
  Repo repo;
  fs::copy_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml", repo.root / "recipes/a.yaml");
  repo.write(".hcp-plan.yaml", "world_size: 32\nwold_size: 8\n");
  CliResult r = repo.run("validate recipes/a.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(".hcp-plan.yaml:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'world_size'"), std::string::npos) << r.err;
}

// validate once ignored an unknown `cluster:` in the config (its memory check ran on plan's
// default), where --cluster, plan, groups and check-log refused it.
TEST(CiConfigCli, AnUnknownClusterInTheConfigIsBadInputForValidate) {
  Repo repo;
  fs::copy_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml", repo.root / "recipes/a.yaml");
  repo.write(".hcp-plan.yaml", "world_size: 32\ncluster: nope\n");
  CliResult r = repo.run("validate recipes/a.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find(".hcp-plan.yaml: cluster: unknown cluster profile 'nope'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  repo.write(".hcp-plan.yaml", "world_size: 32\ncluster: dgx-b200\n");
  CliResult known = repo.run("validate recipes/a.yaml");
  EXPECT_NE(known.exit_code, 2) << known.err;
}

// One config serves validate and plan: `framework: megatron` (plan's word for the recipe's own
// semantics) means the same to validate, whose JSON then names the recipe's framework; a value no
// command takes is an error at its line. Before, validate said "<command line>: --framework
// expects bridge or mlm, got 'megatron'" for a config plan accepted.
TEST(CiConfigCli, FrameworkMegatronServesValidateAndPlan) {
  Repo repo;
  repo.copy_shipped_recipes();
  repo.write(".hcp-plan.yaml", "world_size: 32\nframework: megatron\n");
  CliResult v = repo.run("validate recipes/llama3_8b_128k.yaml --format json");
  EXPECT_NE(v.exit_code, 2) << v.err;
  EXPECT_EQ(json::parse(v.out)["framework"], "bridge") << v.out;
  CliResult p = repo.run("plan llama3_8b_128k --nodes 4 --gpus-per-node 8");
  EXPECT_EQ(p.exit_code, 0) << p.err;
  repo.write(".hcp-plan.yaml", "world_size: 32\nframework: nemo\n");
  for (const char* command : {"validate recipes/llama3_8b_128k.yaml",
                              "plan llama3_8b_128k --nodes 4 --gpus-per-node 8"}) {
    CliResult bad = repo.run(command);
    EXPECT_EQ(bad.exit_code, 2) << command;
    EXPECT_NE(bad.err.find(".hcp-plan.yaml:2:12: framework:"), std::string::npos) << bad.err;
  }
}

// `world_size: 040` was world 32 to groups (its --world-size option took the text, and CLI11 reads
// a leading zero as octal) and 40 to validate: every command now says the same, that the
// config's integer is ambiguous, at its line.
TEST(CiConfigCli, ALeadingZeroIntegerIsOneErrorForEveryCommand) {
  Repo repo;
  repo.write("w.yaml", "world_size: 040\n");
  const std::string recipe = " " HCP_RECIPES_DIR "/llama3_8b_128k.yaml --config w.yaml";
  for (const char* command : {"validate", "groups", "preflight", "plan", "compare"}) {
    CliResult r = repo.run(command + recipe);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out << r.err;
    EXPECT_EQ(r.err.rfind("hcp-plan: error: w.yaml:1:13: world_size: '040' has a leading zero", 0),
              0u)
        << command << "\n"
        << r.err;
  }
}

TEST(CiConfigCli, InlineSuppressionAtTheTopSilencesTheFile) {
  Repo repo;
  const std::string gemma = read_whole_file(HCP_RECIPES_DIR "/gemma3_1b_32k.yaml");
  repo.write("recipes/plain.yaml", gemma);
  repo.write("recipes/quiet.yaml", "# hcp-plan: disable=CP064\n" + gemma);
  const std::string args = " --world-size 8 --te-version 2.18.0 --format json --no-config";
  json plain = json::parse(repo.run("validate recipes/plain.yaml" + args).out);
  EXPECT_NE(plain.dump().find("CP064"), std::string::npos) << plain.dump();
  EXPECT_EQ(repo.run("validate recipes/plain.yaml --fail-on warning" + args).exit_code, 1);
  CliResult quiet = repo.run("validate recipes/quiet.yaml --fail-on warning" + args);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("CP064"), std::string::npos) << quiet.out;
  // --ignore does the same from the command line; --strict is --fail-on warning.
  EXPECT_EQ(repo.run("validate recipes/plain.yaml --strict --ignore CP064" + args).exit_code, 0);
}

TEST(CiConfigCli, InlineSuppressionOnTheLineOnly) {
  Repo repo;
  repo.write("recipes/r.yaml",
             read_whole_file(HCP_SOURCE_DIR "/tests/fixtures/report/bad_hcp.yaml"));
  const std::string args = " --nodes 4 --gpus-per-node 8 --te-version 2.18.0 --no-config";
  CliResult before = repo.run("validate recipes/r.yaml --format gcc" + args);
  ASSERT_EQ(before.exit_code, 1);
  ASSERT_NE(before.out.find("r.yaml:25:"), std::string::npos) << before.out;
  // Put the suppression on line 25 (where CP013 is located).
  std::string text = read_whole_file((repo.root / "recipes/r.yaml").string());
  size_t line_start = 0;
  for (int i = 1; i < 25; ++i)
    line_start = text.find('\n', line_start) + 1;
  size_t eol = text.find('\n', line_start);
  text.insert(eol, "  # hcp-plan: disable=CP013");
  repo.write("recipes/r.yaml", text);
  CliResult after = repo.run("validate recipes/r.yaml --format gcc" + args);
  EXPECT_EQ(after.out.find("[CP013]"), std::string::npos) << after.out;
}

TEST(CiConfigCli, QuietDropsInfosAndFailOnComesFromTheConfig) {
  Repo repo;
  repo.write("recipes/g.yaml", read_whole_file(HCP_RECIPES_DIR "/gemma3_1b_32k.yaml"));
  repo.write(".hcp-plan.yaml", "world_size: 8\nte_version: 2.18.0\nfail_on: warning\n");
  CliResult loud = repo.run("validate recipes/g.yaml --format json");
  EXPECT_EQ(loud.exit_code, 1) << loud.out;  // CP064 is a warning; the config fails on it.
  json all = json::parse(loud.out);
  CliResult quiet = repo.run("validate recipes/g.yaml --quiet --format json");
  json some = json::parse(quiet.out);
  EXPECT_GT(all["summary"]["infos"].get<int>(), 0) << loud.out;
  EXPECT_EQ(some["summary"]["infos"], 0);
  EXPECT_EQ(some["summary"]["warnings"], all["summary"]["warnings"]);
  EXPECT_EQ(repo.run("validate recipes/g.yaml --fail-on error").exit_code, 0);
}

TEST(CiConfigCli, NonRecipeYamlIsSkippedWithANote) {
  Repo repo;
  repo.write("recipes/a.yaml", read_whole_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml"));
  repo.write(".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: []\n");
  repo.write(".github/workflows/ci.yml", "name: CI\non: [push]\njobs:\n  a: {}\n");
  CliResult r = repo.run(
      "validate .pre-commit-config.yaml .github/workflows/ci.yml recipes/a.yaml --world-size 32 "
      "--te-version 2.18.0 --format gcc");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("unknown section"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".pre-commit-config.yaml: skipped, not a recipe (a pre-commit config)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ci.yml: skipped, not a recipe (a GitHub Actions workflow)"),
            std::string::npos)
      << r.err;
}

/// pre-commit itself runs this repository's hook (try-repo uses the working tree as it is).
TEST(CiConfigCli, PreCommitRunsTheHookOnAnOrdinaryRepository) {
  if (std::system("pre-commit --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "pre-commit is not installed (make test-deps installs it where apt has it)";
  if (std::system("git --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  Repo repo;
  repo.write("recipes/a.yaml", read_whole_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml"));
  repo.write(".hcp-plan.yaml", "world_size: 32\nte_version: 2.18.0\n");
  repo.write(".pre-commit-config.yaml", "repos: []\n");
  repo.write(".github/workflows/ci.yml", "name: CI\non: [push]\njobs:\n  a: {}\n");
  const std::string bin_dir = fs::path(HCP_BINARY).parent_path().string();
  const std::string home = (repo.root / ".cache").string();
  const std::string setup = "cd '" + repo.root.string() +
                            "' && git init -q . && git add -A && "
                            "git -c user.name=t -c user.email=t@t commit -qm init && ";
  const std::string env = "PATH='" + bin_dir + "':\"$PATH\" PRE_COMMIT_HOME='" + home +
                          "' GIT_CONFIG_GLOBAL=/dev/null ";
  auto run = [&](const std::string& extra) {
    std::string command = setup + extra + env +
                          "pre-commit try-repo '" HCP_SOURCE_DIR
                          "' hcp-plan-validate --all-files 2>&1";
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    size_t n = 0;
    while (pipe && (n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
      out.append(buffer, n);
    int status = pipe ? pclose(pipe) : -1;
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
  };
  auto [code, out] = run("");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("Passed"), std::string::npos) << out;
  EXPECT_EQ(out.find("unknown section"), std::string::npos) << out;

  // A broken recipe fails the hook with its line.
  repo.write("recipes/b.yaml",
             "model:\n  context_parallel_size: 7\n  tensor_model_parallel_size: 1\n");
  fs::remove_all(repo.root / ".git");
  auto [bad_code, bad_out] = run("");
  EXPECT_NE(bad_code, 0) << bad_out;
  EXPECT_NE(bad_out.find("recipes/b.yaml:2:"), std::string::npos) << bad_out;
}

}  // namespace
}  // namespace hcp
