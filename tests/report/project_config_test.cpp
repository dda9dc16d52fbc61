// .hcp-plan.yaml parsing, per-glob settings, inline suppressions and non-recipe YAML detection.
#include "hcp/project_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hcp/rules.h"

namespace hcp {
namespace {

const char* kConfig =
    "world_size: 32\n"
    "te_version: 2.18.0\n"
    "ignore: [CP064]\n"
    "fail_on: warning\n"
    "files:\n"
    "  \"recipes/llama31_*.yaml\":\n"
    "    nodes: 16\n"
    "    gpus_per_node: 8\n"
    "  \"*405b*\":\n"
    "    nodes: 64\n"
    "    ignore: CP041\n";

TEST(ProjectConfig, ParsesDefaultsGlobsAndThreshold) {
  auto c = parse_project_config(kConfig, "/repo/.hcp-plan.yaml");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->dir, "/repo");
  EXPECT_EQ(c->defaults.options.at("world-size"), "32");
  EXPECT_EQ(c->defaults.options.at("te-version"), "2.18.0");
  EXPECT_EQ(c->defaults.ignore, std::vector<std::string>{"CP064"});
  EXPECT_EQ(c->fail_on, "warning");
  ASSERT_EQ(c->files.size(), 2u);
  EXPECT_EQ(c->files[0].first, "recipes/llama31_*.yaml");
}

TEST(ProjectConfig, GlobLayersReplaceTheShapeAndAddIgnores) {
  auto c = parse_project_config(kConfig, "/repo/.hcp-plan.yaml");
  ASSERT_TRUE(c);
  ProjectSettings plain = settings_for(*c, "/repo/recipes/llama3_8b_128k.yaml");
  EXPECT_EQ(plain.options.at("world-size"), "32");
  EXPECT_EQ(plain.options.count("nodes"), 0u);

  ProjectSettings big = settings_for(*c, "/repo/recipes/llama31_70b_128k.yaml");
  EXPECT_EQ(big.options.count("world-size"), 0u);  // Replaced by the glob's nodes x GPUs.
  EXPECT_EQ(big.options.at("nodes"), "16");
  EXPECT_EQ(big.options.at("gpus-per-node"), "8");
  EXPECT_EQ(big.options.at("te-version"), "2.18.0");

  // Both globs match; the later one wins key by key and its ignores add up.
  ProjectSettings huge = settings_for(*c, "/repo/recipes/llama31_405b_128k.yaml");
  EXPECT_EQ(huge.options.at("nodes"), "64");
  EXPECT_EQ(huge.options.count("gpus-per-node"), 0u);
  EXPECT_EQ(huge.ignore, (std::vector<std::string>{"CP064", "CP041"}));
}

TEST(ProjectConfig, UnknownKeyIsAnErrorWithItsLineAndADidYouMean) {
  auto c = parse_project_config("world_size: 8\nte_verison: 2.18.0\n", "cfg/.hcp-plan.yaml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().location.line, 2);
  EXPECT_NE(c.error().message.find("did you mean 'te_version'"), std::string::npos)
      << c.error().message;
  auto glob = parse_project_config("files:\n  '*':\n    fail_on: error\n", "x");
  EXPECT_FALSE(glob);  // fail_on is top level only.
  EXPECT_FALSE(parse_project_config("fail_on: info\n", "x"));
  EXPECT_FALSE(parse_project_config("world_size: [1\n", "x"));
  EXPECT_FALSE(parse_project_config("ignore: {a: 1}\n", "x"));
}

/// The error of an integer setting `key` written `value` with a leading zero.
std::string leading_zero(const std::string& key, const std::string& value) {
  return key + ": '" + value +
         "' has a leading zero, an octal number in YAML 1.1 (PyYAML) and a decimal one on the "
         "command line; write the number without it";
}

// A setting's bad value is reported at its line in the file, in the option's own words; before,
// the command found it later and said "<command line>: --te-version ...".
TEST(ProjectConfig, ABadSettingValueIsAnErrorAtItsLine) {
  struct Case {
    std::string text;
    int line;
    int column;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"nodes: 2\nte_version: abc\n", 2, 13,
       "te_version: --te-version expects a version X.Y.Z, got 'abc'"},
      {"te_version: \"\"\n", 1, 13, "te_version: an empty value"},
      {"nvlink_domain: 0\n", 1, 16,
       "nvlink_domain: --nvlink-domain expects a positive integer below 2^31, got '0'"},
      {"files:\n  '*':\n    world_size: -8\n", 3, 17,
       "world_size: --world-size expects a positive integer below 2^31, got '-8'"},
      {"cluster: ''\n", 1, 10, "cluster: an empty value"},
      {"framework: bridg\n", 1, 12,
       "framework: --framework expects megatron (the recipe's own semantics), bridge or mlm, got "
       "'bridg' (did you mean 'bridge'?)"},
      // An integer with a leading zero (OnlyAnIntegerWithALeadingZeroIsRefused), quoted or not.
      {"world_size: 040\n", 1, 13, leading_zero("world_size", "040")},
      {"nodes: 02\ngpus_per_node: 8\n", 1, 8, leading_zero("nodes", "02")},
      {"nodes: 2\ngpus_per_node: 08\n", 2, 16, leading_zero("gpus_per_node", "08")},
      {"nvlink_domain: 072\n", 1, 16, leading_zero("nvlink_domain", "072")},
      {"gpu_sm: 090\n", 1, 9, leading_zero("gpu_sm", "090")},
      {"world_size: '040'\n", 1, 13, leading_zero("world_size", "040")},
      {"world_size: 00\n", 1, 13, leading_zero("world_size", "00")},
      {"files:\n  '*':\n    world_size: 016\n", 3, 17, leading_zero("world_size", "016")},
  };
  for (const Case& c : cases) {
    auto parsed = parse_project_config(c.text, "cfg/.hcp-plan.yaml");
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_EQ(parsed.error().location.file, "cfg/.hcp-plan.yaml") << c.text;
    EXPECT_EQ(parsed.error().location.line, c.line) << c.text;
    EXPECT_EQ(parsed.error().location.column, c.column) << c.text;
    EXPECT_EQ(parsed.error().message, c.message) << c.text;
  }
  // Good values pass to the command; megatron (the recipe's own semantics) serves every command,
  // and a cluster is each command's to find.
  auto good = parse_project_config(
      "te_version: 2.18.0\ngpu_sm: 90\nframework: megatron\ncluster: dgx-h100\n", "x");
  ASSERT_TRUE(good) << good.error().str();
  EXPECT_EQ(good->defaults.options.at("framework"), "megatron");
}

// `world_size: 040` was world 32 to groups (CLI11 read the text as octal) and 40 to validate. An
// integer setting with a leading zero is octal in YAML 1.1 (PyYAML) and decimal in YAML 1.2 and
// on the command line: the config refuses it at its line (ABadSettingValueIsAnErrorAtItsLine),
// whoever reads it. Zero itself, numbers without a leading zero and versions with one are fine.
TEST(ProjectConfig, OnlyAnIntegerWithALeadingZeroIsRefused) {
  auto good = parse_project_config(
      "world_size: 40\nnvlink_domain: 8\ngpu_sm: 9.0\nte_version: 2.08.0\nmcore_version: 0.15.0\n",
      "x");
  ASSERT_TRUE(good) << good.error().str();
  EXPECT_EQ(good->defaults.options.at("world-size"), "40");
}

TEST(ProjectConfig, EmptyFileIsAnEmptyConfig) {
  auto c = parse_project_config("", "x/.hcp-plan.yaml");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->defaults.options.empty());
  EXPECT_FALSE(c->fail_on);
}

TEST(ProjectConfig, FoundUpwardFromTheStartDirectory) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("hcp_cfg_" + std::to_string(getpid()));
  fs::create_directories(root / "a" / "b");
  EXPECT_FALSE(find_project_config((root / "a" / "b").string()).has_value() &&
               find_project_config((root / "a" / "b").string())->find(root.string()) == 0);
  std::ofstream(root / kProjectConfigName) << "world_size: 8\n";
  auto found = find_project_config((root / "a" / "b").string());
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, (root / kProjectConfigName).string());
  fs::remove_all(root);
}

TEST(Suppressions, LeadingCommentDisablesForTheWholeFileTrailingForItsLine) {
  InlineSuppressions s = scan_suppressions(
      "# hcp-plan: disable=CP064\n"
      "---\n"
      "model:\n"
      "  context_parallel_size: 2  # hcp-plan: disable=CP013,CP020\n"
      "  # hcp-plan: disable=CP099\n");
  EXPECT_EQ(s.whole_file, (std::set<std::string>{"CP064"}));
  EXPECT_EQ(s.by_line.at(4), (std::set<std::string>{"CP013", "CP020"}));
  EXPECT_EQ(s.by_line.size(), 1u);  // A comment line with nothing after it disables nothing.
  EXPECT_EQ(s.named.at("CP099"), 5);
  EXPECT_TRUE(scan_suppressions("model: {}  # disable=CP064\n").by_line.empty());
}

TEST(Suppressions, CommentLineBeforeAFindingDisablesItsLine) {
  // ShellCheck / hadolint placement: the comment line applies to the next line with content.
  InlineSuppressions s = scan_suppressions(
      "model:\n"
      "  # hcp-plan: disable=CP012\n"
      "\n"
      "  # why: a2a+p2p is set by the launcher\n"
      "  cp_comm_type: a2a+p2p\n"
      "  # hcp-plan disable=CP064\n"
      "  context_parallel_size: 2\n");
  EXPECT_TRUE(s.whole_file.empty());
  EXPECT_EQ(s.by_line.at(5), (std::set<std::string>{"CP012"}));
  EXPECT_EQ(s.by_line.at(7), (std::set<std::string>{"CP064"}));  // Also spelled without ':'.
  EXPECT_EQ(s.by_line.size(), 2u);
}

TEST(Suppressions, RuleIdsAreCheckedAgainstTheCatalog) {
  EXPECT_EQ(*catalog_rule_id("CP064", {}, "--ignore"), "CP064");
  EXPECT_EQ(*catalog_rule_id("cp064", {}, "--ignore"), "CP064");  // Case is folded.
  EXPECT_EQ(*catalog_rule_id("log022", {}, "--ignore"), "LOG022");
  auto unknown = catalog_rule_id("CP1111", Location{"r.yaml", 3, 0}, "ignore");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().str(),
            "r.yaml:3: ignore: unknown rule ID 'CP1111' (did you mean 'CP111'?)");
  EXPECT_FALSE(catalog_rule_id("CP999", {}, "--ignore").ok());
  auto far = catalog_rule_id("shellcheck", {}, "--ignore");
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().message.find("`hcp-plan rules --format ids` lists them"),
            std::string::npos);

  InlineSuppressions s = scan_suppressions("model:\n  # hcp-plan: disable=cp012\n  x: 1\n");
  ASSERT_TRUE(canonicalize_suppressions(s, "r.yaml").ok());
  EXPECT_EQ(s.by_line.at(3), (std::set<std::string>{"CP012"}));
  InlineSuppressions typo = scan_suppressions("model: {}  # hcp-plan: disable=CP0012\n");
  Status bad = canonicalize_suppressions(typo, "r.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().str(),
            "r.yaml:1: hcp-plan: disable=: unknown rule ID 'CP0012' (did you mean 'CP012'?)");
}

TEST(ProjectConfig, IgnoreWithAnUnknownRuleIdIsAnError) {
  auto config = parse_project_config("world_size: 8\nignore: [CP064, CP0064]\n", "c.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().str(),
            "c.yaml:2:17: ignore: unknown rule ID 'CP0064' (did you mean 'CP064'?)");
  auto folded = parse_project_config("ignore: cp064\n", "c.yaml");
  ASSERT_TRUE(folded.ok()) << folded.error().str();
  EXPECT_EQ(folded->defaults.ignore, (std::vector<std::string>{"CP064"}));
}

TEST(ProjectConfig, LaunchEnvironmentAndClusterAreSettings) {
  auto map = parse_project_config(
      "cluster: gb200-nvl72\nenv:\n  CUDA_DEVICE_MAX_CONNECTIONS: 1\n  NVTE_FUSED_ATTN: 0\n",
      "c.yaml");
  ASSERT_TRUE(map.ok()) << map.error().str();
  EXPECT_EQ(map->defaults.options.at("cluster"), "gb200-nvl72");
  EXPECT_EQ(map->defaults.env,
            (std::vector<std::string>{"CUDA_DEVICE_MAX_CONNECTIONS=1", "NVTE_FUSED_ATTN=0"}));
  auto list = parse_project_config(
      "env: [NCCL_IB_HCA=mlx5]\nfiles:\n  \"a*.yaml\": {env: {X: 1}}\n", "c.yaml");
  ASSERT_TRUE(list.ok()) << list.error().str();
  EXPECT_EQ(settings_for(*list, "a1.yaml").env,
            (std::vector<std::string>{"NCCL_IB_HCA=mlx5", "X=1"}));
  EXPECT_FALSE(parse_project_config("env: [NCCL_IB_HCA]\n", "c.yaml").ok());
  EXPECT_FALSE(parse_project_config("env: mlx5\n", "c.yaml").ok());
}

/// A finding of rule `id` (a load error without one when `id` is empty) at `file`:`line`.
Diagnostic found_at(const std::string& id, const std::string& file, int line) {
  Diagnostic d =
      id.empty() ? Diagnostic::note(Severity::kError, "load error") : finding(id, "", "m");
  d.location = Location{file, line, 1};
  return d;
}

TEST(Suppressions, DropOnlyWhatIsSuppressed) {
  InlineSuppressions s;
  s.whole_file = {"CP064"};
  s.by_line[4] = {"CP013"};
  std::vector<Diagnostic> ds = {
      found_at("CP064", "r.yaml", 9), found_at("CP013", "r.yaml", 4),
      found_at("CP013", "r.yaml", 5), found_at("CP013", "<override 1>", 4),
      found_at("CP020", "r.yaml", 1), found_at("", "r.yaml", 4),
      found_at("CP041", "r.yaml", 2)};
  EXPECT_EQ(drop_suppressed(ds, {"CP041"}, s, "r.yaml"), 3u);
  ASSERT_EQ(ds.size(), 4u);
  EXPECT_EQ(ds[0].location.line, 5);
  EXPECT_EQ(ds[1].location.file, "<override 1>");
  EXPECT_EQ(ds[2].id(), "CP020");
  EXPECT_EQ(ds[3].id(), "");  // Load errors are never suppressed.
}

TEST(NonRecipeYaml, RecognisesCommonRepositoryFiles) {
  EXPECT_EQ(non_recipe_yaml_kind("repos:\n  - repo: x\n", "a/.pre-commit-config.yaml"),
            "a pre-commit config");
  EXPECT_EQ(non_recipe_yaml_kind("repos: []\n", "ci/hooks.yaml"), "a pre-commit config");
  EXPECT_EQ(non_recipe_yaml_kind("- id: x\n", ".pre-commit-hooks.yaml"), "a pre-commit hook list");
  EXPECT_EQ(non_recipe_yaml_kind("name: CI\non: [push]\njobs: {}\n", "w.yml"),
            "a GitHub Actions workflow");
  EXPECT_EQ(non_recipe_yaml_kind("version: 2\nupdates: []\n", ".github/dependabot.yml"),
            "a file under .github/");
  EXPECT_EQ(non_recipe_yaml_kind("apiVersion: v1\nkind: Pod\n", "pod.yaml"),
            "a Kubernetes manifest");
  EXPECT_EQ(non_recipe_yaml_kind("world_size: 8\n", "x/.hcp-plan.yaml"),
            "the hcp-plan project config");
}

TEST(NonRecipeYaml, RecipesAndTyposAreNeverSkipped) {
  EXPECT_FALSE(non_recipe_yaml_kind("model:\n  tensor_model_parallel_size: 2\n", "r.yaml"));
  EXPECT_FALSE(non_recipe_yaml_kind("modle:\n  tensor_model_parallel_size: 2\n", "r.yaml"));
  EXPECT_FALSE(non_recipe_yaml_kind("MODEL_ARGS:\n  --num-layers: 2\n", "c.yaml"));
  EXPECT_FALSE(non_recipe_yaml_kind("model: {}\njobs: {}\non: push\n", "r.yaml"));
  EXPECT_FALSE(non_recipe_yaml_kind("model: [1\n", "r.yaml"));
}

}  // namespace
}  // namespace hcp
