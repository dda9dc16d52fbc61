// End to end, the rest of the command-line contract (issue #16): bench's --option and overrides in
// any order, simulate's warning before a long run, text output within 100 columns (--wide for
// whole lines), `recipes` listing, "-" and "@-" reading standard input once with the size limit
// (Bridge recipes, Megatron-LM configs and argument lists), and the man page's SYNOPSIS and EXIT
// STATUS covering every registered command and exit code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

namespace fs = std::filesystem;

/// Longest line of `text` in code points (UTF-8 continuation bytes not counted).
size_t widest_line(const std::string& text) {
  size_t widest = 0;
  size_t width = 0;
  for (unsigned char c : text) {
    if (c == '\n') {
      widest = std::max(widest, width);
      width = 0;
    } else if ((c & 0xC0) != 0x80) {
      ++width;
    }
  }
  return std::max(widest, width);
}

TEST(ContractMore, BenchOptionAndOverridesInAnyOrder) {
  // Without a GPU bench stops at exit 3, after parsing: both orders parse to the same request.
  auto a = run_cli("bench llama3_8b_128k --option tp=2,cp=4,cp_comm_type=p2p -sl 65536");
  auto b = run_cli("bench --option tp=2,cp=4,cp_comm_type=p2p -sl 65536 llama3_8b_128k");
  EXPECT_EQ(a.exit_code, b.exit_code);
  EXPECT_EQ(a.err, b.err);
  EXPECT_EQ(a.out, b.out);
  // A misspelt override after --option is an unknown key, not part of the option.
  for (const std::string order :
       {"bench llama3_8b_128k --option tp=2,cp=4 model.context_paralel_size=4",
        "bench --option tp=2,cp=4 llama3_8b_128k model.context_paralel_size=4",
        "bench model.context_paralel_size=4 --option tp=2,cp=4 llama3_8b_128k"}) {
    auto r = run_cli(order);
    EXPECT_EQ(r.exit_code, 2) << order;
    EXPECT_NE(r.err.find("did you mean 'model.context_parallel_size'?"), std::string::npos)
        << order << ": " << r.err;
  }
}

TEST(ContractMore, PlanFlagsAndOverridesInAnyOrder) {
  auto a = run_cli("plan llama3_8b_128k -cp 8 --nodes 4 --top 2 --format json");
  auto b = run_cli("plan --nodes 4 -cp 8 --top 2 llama3_8b_128k --format json");
  EXPECT_EQ(a.exit_code, b.exit_code) << a.err << b.err;
  EXPECT_EQ(a.out, b.out);
  ASSERT_FALSE(a.out.empty());
}

TEST(ContractMore, SimulateWarnsBeforeALongRun) {
  // 32K tokens: about an hour of CPU. The warning comes before the work starts; the run is cut
  // short here (timeout) since only the warning matters.
  auto slow =
      run_cli("simulate --seq-length 32768 --heads 8 --head-dim 64 --cp 4 --cp-comm-type p2p",
              "timeout 0.5");
  EXPECT_NE(slow.err.find("warning: simulate will take about"), std::string::npos) << slow.err;
  EXPECT_NE(slow.err.find("S = 32768"), std::string::npos) << slow.err;
  auto quick =
      run_cli("simulate --seq-length 256 --heads 4 --head-dim 16 --cp 2 --cp-comm-type p2p");
  EXPECT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_EQ(quick.err.find("warning"), std::string::npos) << quick.err;
}

TEST(ContractMore, TextFitsHundredColumnsAndWideDoesNotWrap) {
  for (const std::string& command :
       {std::string("plan llama3_8b_128k --nodes 4"),
        std::string("validate llama3_8b_128k --world-size 32 -cp 3")}) {
    SCOPED_TRACE(command);
    auto wrapped = run_cli(command);
    ASSERT_FALSE(wrapped.out.empty()) << wrapped.err;
    EXPECT_LE(widest_line(wrapped.out), 100u) << wrapped.out;
    auto wide = run_cli(command + " --wide");
    EXPECT_EQ(wide.exit_code, wrapped.exit_code);
    EXPECT_GT(widest_line(wide.out), 100u) << "nothing needed wrapping: the test checks nothing";
    EXPECT_LT(std::count(wide.out.begin(), wide.out.end(), '\n'),
              std::count(wrapped.out.begin(), wrapped.out.end(), '\n'));
  }
}

TEST(ContractMore, RecipesListsShippedRecipesAndClusterProfiles) {
  auto r = run_cli("recipes");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  size_t recipes = 0;
  size_t clusters = 0;
  for (const auto& entry : fs::directory_iterator(HCP_SOURCE_DIR "/recipes")) {
    if (entry.path().extension() != ".yaml") continue;
    ++recipes;
    EXPECT_NE(r.out.find("  " + entry.path().stem().string() + " "), std::string::npos)
        << entry.path();
  }
  for (const auto& entry : fs::directory_iterator(HCP_SOURCE_DIR "/recipes/clusters")) {
    if (entry.path().extension() != ".yaml") continue;
    ++clusters;
    EXPECT_NE(r.out.find("  " + entry.path().stem().string() + " "), std::string::npos)
        << entry.path();
  }
  EXPECT_GE(recipes, 12u);
  EXPECT_GE(clusters, 8u);
  size_t cluster_heading = r.out.find("Cluster profiles");
  ASSERT_NE(cluster_heading, std::string::npos);
  EXPECT_GT(cluster_heading, r.out.find("llama3_8b_128k"));
}

const std::string kMlmConfig = "tests/fixtures/corpus/gpt3_mcore_te_tp2_pp2_cp2.yaml";

TEST(ContractMore, StdinTakesAMegatronLmConfigLikeItsFile) {
  // Before: the config on stdin was read as a Bridge recipe (${TENSORBOARD_PATH} error).
  auto piped = run_cli("validate - --world-size 8 --format json < " + kMlmConfig);
  auto file = run_cli("validate " + kMlmConfig + " --world-size 8 --format json");
  EXPECT_EQ(piped.exit_code, file.exit_code) << piped.err;
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  std::regex summary("\"summary\": \\{[^}]*\\}");
  std::smatch a;
  std::smatch b;
  ASSERT_TRUE(std::regex_search(piped.out, a, summary)) << piped.out;
  ASSERT_TRUE(std::regex_search(file.out, b, summary)) << file.out;
  EXPECT_EQ(a.str(), b.str());
}

TEST(ContractMore, MlmArgsAtDashReadsStdinOnce) {
  auto r = run_cli("validate --mlm-args @- --world-size 2 --format json",
                   "echo '--num-layers 4 --seq-length 4096 --context-parallel-size 2 --bf16' |");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("@<stdin>"), std::string::npos) << r.out;
  auto typo = run_cli("validate --mlm-args @-", "echo '--context-paralel-size 2' |");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("@<stdin>:1:"), std::string::npos) << typo.err;
}

TEST(ContractMore, StdinHasTheRecipeSizeLimit) {
  // 5 MiB through a pipe: refused at the 4 MiB recipe limit, not read whole.
  auto r = run_cli("validate -", "head -c 5242880 /dev/zero | tr '\\0' a |");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("<stdin>: larger than the 4 MiB limit"), std::string::npos) << r.err;
  auto empty = run_cli("validate - < /dev/null");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("standard input is empty"), std::string::npos) << empty.err;
}

// --- The man page: SYNOPSIS and EXIT STATUS ------------------------------------------------------

std::string man_section(const std::string& roff, const std::string& name) {
  size_t start = roff.find(".SH " + name);
  if (start == std::string::npos) return {};
  size_t end = roff.find("\n.SH ", start + 1);
  std::string text = roff.substr(start, end == std::string::npos ? end : end - start);
  text = std::regex_replace(text, std::regex(R"(\\f[BIRP])"), "");
  return std::regex_replace(text, std::regex(R"(\\-)"), "-");
}

TEST(ContractMore, ManSynopsisAndExitStatusCoverEveryCommandAndCode) {
  std::string roff = read_whole_file(HCP_SOURCE_DIR "/man/hcp-plan.1");
  std::string synopsis = man_section(roff, "SYNOPSIS");
  std::string exit_status = man_section(roff, "EXIT STATUS");
  ASSERT_FALSE(synopsis.empty());
  ASSERT_FALSE(exit_status.empty());
  std::vector<std::string> commands = registered_subcommands();
  ASSERT_GE(commands.size(), 14u);
  for (const std::string& command : commands) {
    // ".B hcp-plan plan" or ".B hcp-plan" followed by ".B validate".
    std::regex in_synopsis("\\.B (hcp-plan )?" + command + "\\b");
    EXPECT_TRUE(std::regex_search(synopsis, in_synopsis)) << command << " missing from SYNOPSIS";
    std::regex in_exit("\\b" + command + "\\b");
    EXPECT_TRUE(std::regex_search(exit_status, in_exit)) << command << " missing from EXIT STATUS";
  }
  for (const char* code : {".B 0", ".B 1", ".B 2", ".B 3"})
    EXPECT_NE(exit_status.find(code), std::string::npos) << code;
}

}  // namespace
}  // namespace hcp::testing
