// Shell completion (completions/): the bash function run in a bash subprocess with COMP_WORDS /
// COMP_CWORD set, its candidates checked against what each subcommand accepts; the zsh and fish
// files syntax-checked with `zsh -n` / `fish -n` where those shells are installed.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using testing::CliResult;
using testing::run_cli;
using testing::run_shell;

/// The directory of the built binary, put first on PATH so the completion calls this build.
std::string binary_dir() {
  std::string binary = HCP_BINARY;
  return binary.substr(0, binary.rfind('/'));
}

/// Complete the command line `words` (the last word is the one being completed) with the bash
/// completion and return the candidates.
std::set<std::string> bash_candidates(const std::vector<std::string>& words) {
  std::string array;
  for (const std::string& w : words)
    array += " '" + w + "'";
  std::string script = "shopt -s extglob; source '" HCP_SOURCE_DIR
                       "/completions/hcp-plan.bash'; COMP_WORDS=(" +
                       array + "); COMP_CWORD=" + std::to_string(words.size() - 1) +
                       "; _hcp_plan; printf '%s\\n' \"${COMPREPLY[@]}\"";
  CliResult r = run_shell(
      "cd '" HCP_SOURCE_DIR "' && PATH='" + binary_dir() +
      "':\"$PATH\" HCP_PLAN_DATA_DIR=recipes bash --norc --noprofile -c \"$(cat <<'EOS'\n" +
      script + "\nEOS\n)\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

TEST(CompletionBash, FormatsAreWhatEachSubcommandAccepts) {
  EXPECT_EQ(bash_candidates({"hcp-plan", "plan", "--format", ""}),
            (std::set<std::string>{"text", "json", "html"}));
  EXPECT_EQ(bash_candidates({"hcp-plan", "validate", "--format", ""}),
            (std::set<std::string>{"text", "json", "sarif", "junit", "github", "gcc"}));
  EXPECT_EQ(bash_candidates({"hcp-plan", "rules", "--format", ""}),
            (std::set<std::string>{"text", "json", "ids"}));
  EXPECT_EQ(bash_candidates({"hcp-plan", "check-log", "--fail-on", ""}),
            (std::set<std::string>{"error", "warning"}));
  // megatron (the recipe's own semantics) is a framework every command takes.
  for (const char* command : {"plan", "compare", "validate", "preflight"}) {
    EXPECT_EQ(bash_candidates({"hcp-plan", command, "--framework", ""}),
              (std::set<std::string>{"megatron", "bridge", "mlm"}))
        << command;
  }
}

TEST(CompletionBash, RuleIdsOfEveryFamilyComeFromTheRegistry) {
  std::set<std::string> ids = lines_of(run_cli("rules --format ids").out);
  ASSERT_GT(ids.size(), 100u);
  for (const char* family_member : {"CP064", "LOG022", "PF101", "TOPO001", "IN005"})
    EXPECT_EQ(ids.count(family_member), 1u) << family_member;
  EXPECT_EQ(bash_candidates({"hcp-plan", "validate", "--ignore", ""}), ids);
  EXPECT_EQ(bash_candidates({"hcp-plan", "explain", "LOG02"}),
            (std::set<std::string>{"LOG020", "LOG021", "LOG022", "LOG023", "LOG024", "LOG025"}));
}

TEST(CompletionBash, RecipesClustersAndOptions) {
  std::set<std::string> clusters = bash_candidates({"hcp-plan", "plan", "--cluster", "dgx-h"});
  EXPECT_EQ(clusters, (std::set<std::string>{"dgx-h100", "dgx-h200"}));
  std::set<std::string> recipes = bash_candidates({"hcp-plan", "validate", "llama3_8b"});
  EXPECT_EQ(recipes.count("llama3_8b_128k"), 1u);
  std::set<std::string> options = bash_candidates({"hcp-plan", "check-log", "--ig"});
  EXPECT_EQ(options, (std::set<std::string>{"--ignore"}));
  // plan takes no --fail-on: it is not offered.
  EXPECT_TRUE(bash_candidates({"hcp-plan", "plan", "--fail"}).empty());
}

TEST(CompletionOtherShells, ZshAndFishFilesParse) {
  CliResult zsh = run_shell("command -v zsh");
  if (zsh.exit_code != 0) {
    GTEST_SKIP() << "zsh is not installed (apt package zsh): _hcp-plan not checked";
  }
  CliResult z = run_shell("zsh -n '" HCP_SOURCE_DIR "/completions/_hcp-plan'");
  EXPECT_EQ(z.exit_code, 0) << z.err;
  CliResult fish = run_shell("command -v fish");
  if (fish.exit_code != 0) {
    GTEST_SKIP() << "fish is not installed (apt package fish): hcp-plan.fish not checked";
  }
  CliResult f = run_shell("fish -n '" HCP_SOURCE_DIR "/completions/hcp-plan.fish'");
  EXPECT_EQ(f.exit_code, 0) << f.err;
}

TEST(CompletionOtherShells, FishOffersTheSubcommandsFormats) {
  if (run_shell("command -v fish").exit_code != 0) {
    GTEST_SKIP() << "fish is not installed (apt package fish)";
  }
  CliResult r = run_shell("cd '" HCP_SOURCE_DIR "' && PATH='" + binary_dir() +
                          "':\"$PATH\" fish --no-config -c \"source completions/hcp-plan.fish; "
                          "complete -C 'hcp-plan plan --format '\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> got;
  for (const std::string& line : lines_of(r.out))
    got.insert(line.substr(0, line.find('\t')));
  EXPECT_EQ(got, (std::set<std::string>{"text", "json", "html"})) << r.out;
}

}  // namespace
}  // namespace hcp
