// End-to-end: hcp-plan groups.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::run_cli;
using nlohmann::json;

const std::string kRecipe = "tests/fixtures/layout/hcp16_recipe.yaml";

json parse_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text;
  return j;
}

/// Return the text row of a group kind, split into words ("hcp_L0", "(a2a)", "8", ...).
std::vector<std::string> row_of(const std::string& out, const std::string& kind) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(kind + " ", 0) != 0) continue;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;)
      w.push_back(x);
    return w;
  }
  return {};
}

TEST(GroupsCli, FlagsLayoutTextShowsPlacementPerKind) {
  auto r = run_cli("groups --tp 1 --cp 16 --hcp 8x2 --world-size 32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("world 32 = TP1 x CP16 x PP1 x DP2"), std::string::npos) << r.out;
  // group, (a2a), size, count, cross-node, max nodes, leave NVLink
  auto a2a = row_of(r.out, "hcp_L0");
  ASSERT_GE(a2a.size(), 7u) << r.out;
  EXPECT_EQ(a2a[1], "(a2a)");
  EXPECT_EQ((std::vector<std::string>(a2a.begin() + 2, a2a.begin() + 7)),
            (std::vector<std::string>{"8", "4", "0", "1", "0"}));
  auto p2p = row_of(r.out, "hcp_L1");
  ASSERT_GE(p2p.size(), 7u);
  EXPECT_EQ((std::vector<std::string>(p2p.begin() + 2, p2p.begin() + 7)),
            (std::vector<std::string>{"2", "16", "16", "2", "16"}));
  EXPECT_NE(r.out.find("[0 8] [1 9]"), std::string::npos);
  EXPECT_EQ(r.out.find("warning"), std::string::npos);
}

TEST(GroupsCli, JsonFollowsTheContract) {
  auto r = run_cli("groups --tp 1 --cp 16 --hcp 8,2 --world-size 32 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r.out);
  EXPECT_EQ(j["world_size"], 32);
  EXPECT_EQ(j["order"], "tp-cp-ep-dp-pp");
  for (const char* k : {"tp", "cp", "dp", "pp", "dp_cp", "tp_cp", "ep", "expt_tp", "expt_dp"}) {
    EXPECT_TRUE(j["groups"].contains(k)) << k;
    EXPECT_TRUE(j["placement"].contains(k)) << k;
  }
  std::vector<int> first(16);
  std::iota(first.begin(), first.end(), 0);
  EXPECT_EQ(j["groups"]["cp"][0], json(first));
  ASSERT_EQ(j["hcp"].size(), 2u);
  EXPECT_EQ(j["hcp"][1][0], json({0, 8}));
  EXPECT_EQ(j["placement"]["cp"]["group_size"], 16);
  EXPECT_EQ(j["placement"]["cp"]["cross_node_groups"], 2);
  EXPECT_EQ(j["placement"]["cp"]["max_nodes_spanned"], 2);
  EXPECT_EQ(j["placement"]["hcp_L0"]["cross_node_groups"], 0);
  EXPECT_TRUE(j["warnings"].empty());

  auto bracket = run_cli("groups --tp 1 --cp 16 --hcp '[8,2]' --world-size 32 --format json");
  ASSERT_EQ(bracket.exit_code, 0) << bracket.err;
  EXPECT_EQ(parse_json(bracket.out), j);
}

TEST(GroupsCli, A2aLevelLeavingNvlinkWarnsCp020UnlessTheDomainHoldsIt) {
  auto r = run_cli("groups --tp 2 --cp 8 --hcp 8,1 --world-size 64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: [CP020]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("falls back to cp_comm_type=a2a"), std::string::npos);

  // Same layout on GB200 NVL72: 16 consecutive ranks cross 4-GPU trays but stay in the rack.
  auto nvl =
      run_cli("groups --tp 2 --cp 16 --hcp 8,2 --nodes 16 --cluster gb200-nvl72 --format json");
  ASSERT_EQ(nvl.exit_code, 0) << nvl.err;
  json j = parse_json(nvl.out);
  EXPECT_EQ(j["world_size"], 64);
  EXPECT_EQ(j["gpus_per_node"], 4);
  EXPECT_EQ(j["nvlink_domain"], 72);
  EXPECT_EQ(j["cluster"], "gb200-nvl72");
  EXPECT_GT(j["placement"]["hcp_L0"]["cross_node_groups"], 0);
  EXPECT_EQ(j["placement"]["hcp_L0"]["cross_domain_groups"], 0);
  for (const auto& w : j["warnings"])
    EXPECT_NE(w["id"], "CP020");

  auto pcie = run_cli("groups --cp 2 --hcp 2,1 --world-size 8 --cluster pcie-8gpu");
  ASSERT_EQ(pcie.exit_code, 0) << pcie.err;
  EXPECT_NE(pcie.out.find("[CP020]"), std::string::npos) << pcie.out;
}

// Issue #15: a layout rule says in `groups` what it says in `validate` (one text per rule ID).
TEST(GroupsCli, RejectedLayoutsUseTheRuleText) {
  auto r = run_cli("groups --hcp 8x3 --world-size 24");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("[CP013] Product of hierarchical_context_parallel_sizes [8, 3] (=24) must "
                       "equal context_parallel_size (=1)."),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("np.prod"), std::string::npos) << r.err;
  auto j = run_cli("groups --hcp 8x3 --world-size 24 --format json");
  json doc = parse_json(j.out);
  EXPECT_NE(doc["error"]["message"].get<std::string>().find("Product of"), std::string::npos);
  EXPECT_NE(doc["error"]["upstream_message"].get<std::string>().find("np.prod"), std::string::npos);
}

TEST(GroupsCli, RejectedLayoutsExitOneWithTheRuleId) {
  auto r = run_cli("groups --cp 3 --world-size 32");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("[CP001] world size (32) is not divisible by total_model_size (TP=1 * "
                       "PP=1 * CP=3 = 3)"),
            std::string::npos)
      << r.err;
  auto j = run_cli("groups --cp 16 --hcp 4,2 --world-size 32 --format json");
  EXPECT_EQ(j.exit_code, 1);
  json doc = parse_json(j.out);
  EXPECT_EQ(doc["valid"], false);
  EXPECT_EQ(doc["error"]["id"], "CP013");
  EXPECT_EQ(doc["error"]["key"], "model.hierarchical_context_parallel_sizes");
  auto moe = run_cli("groups --tp 2 --cp 4 --pp 2 --use-tp-pp-dp-mapping --world-size 64");
  EXPECT_EQ(moe.exit_code, 1);
  EXPECT_NE(moe.err.find("[CP005]"), std::string::npos) << moe.err;
}

TEST(GroupsCli, BadInputExitsTwoWithOneLine) {
  const std::string cases[] = {
      "groups --order tp-xx --world-size 8",
      "groups --hcp 8,a --world-size 8",
      "groups --tp 2",
      "groups --world-size 8 --cluster dgx-h10",
      "groups --world-size 8 --nodes 1",
      "groups --tp 0 --world-size 8",
      "groups --world-size 8 --gpus-per-node 0",
      "groups --world-size 8 --order tp-cp-ep-dp-pp --use-tp-pp-dp-mapping",
      "groups no/such/recipe.yaml --world-size 8",
      "groups " + kRecipe + " model.context_parallel_sizee=4 --world-size 32",
      "groups --world-size abc",
  };
  for (const std::string& c : cases) {
    auto r = run_cli(c);
    EXPECT_EQ(r.exit_code, 2) << c << "\n" << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << c;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 3) << c << "\n" << r.err;
  }
  auto typo = run_cli("groups --world-size 8 --tpp 2");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown option '--tpp' (did you mean '--tp'?)"), std::string::npos)
      << typo.err;
  auto near = run_cli("groups --world-size 8 --cluster dgx-h10");
  EXPECT_NE(near.err.find("did you mean 'dgx-h100'"), std::string::npos) << near.err;
}

TEST(GroupsCli, RecipeLayoutWithOverridesAndLocations) {
  auto r = run_cli("groups " + kRecipe + " --world-size 32 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse_json(r.out);
  EXPECT_EQ(j["cp"], 16);
  EXPECT_EQ(j["hierarchical_context_parallel_sizes"], json({8, 2}));
  EXPECT_EQ(j["groups"]["dp"][0], json({0, 16}));

  auto over = run_cli("groups " + kRecipe + " model.hierarchical_context_parallel_sizes=[4,2] " +
                      "--world-size 32");
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_NE(over.err.find("<override 1>"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("[CP013]"), std::string::npos);

  auto shorthand = run_cli("groups " + kRecipe + " -cp 8 --world-size 32");
  EXPECT_EQ(shorthand.exit_code, 1);
  EXPECT_NE(shorthand.err.find(kRecipe + ":8:"), std::string::npos) << shorthand.err;

  auto flags = run_cli("groups " + kRecipe + " --cp 8 --hcp 4x2 --world-size 32 --format json");
  ASSERT_EQ(flags.exit_code, 0) << flags.err;
  EXPECT_EQ(parse_json(flags.out)["dp"], 4);
}

TEST(GroupsCli, LargeWorldTextStaysShortAndAllListsEveryKind) {
  auto r = run_cli("groups --tp 8 --cp 16 --pp 4 --hcp 2x8 --world-size 16384");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(std::count(r.out.begin(), r.out.end(), '\n'), 40);
  EXPECT_LT(r.out.size(), 8000u);
  EXPECT_TRUE(row_of(r.out, "mp").empty());
  auto all = run_cli("groups --tp 2 --cp 2 --world-size 8 --all --show 1");
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_FALSE(row_of(all.out, "mp").empty());
  EXPECT_FALSE(row_of(all.out, "intra_dist_opt_instance").empty());
  // Every row's size ends under the header's "size", the longest name's row too (23 characters
  // used to push its numbers three columns right).
  std::istringstream lines(all.out);
  size_t size_end = std::string::npos;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("group ", 0) == 0) size_end = line.find(" size") + 5;
    auto w = row_of(line + "\n", line.substr(0, line.find(' ')));
    if (size_end == std::string::npos || w.size() < 2 || line.rfind("  ", 0) == 0) continue;
    if (w[1].find_first_not_of("0123456789") != std::string::npos) continue;  // not a kind row
    ++rows;
    EXPECT_EQ(line.substr(size_end - w[1].size(), w[1].size()), w[1]) << line;
    EXPECT_EQ(line[size_end], ' ') << line;
  }
  EXPECT_GT(rows, 15);
}

TEST(GroupsCli, HybridGroupsAndOutputFile) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("hcp_groups_" + std::to_string(::getpid()) + ".json"))
                         .string();
  auto r = run_cli("groups --cp 2 --world-size 8 --hybrid-cp --format json -o " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  json j = parse_json(hcp::testing::read_whole_file(path));
  std::filesystem::remove(path);
  EXPECT_EQ(j["hybrid_dp_cp"]["4"], json({{0, 1, 2, 3}, {4, 5, 6, 7}}));
  auto odd = run_cli("groups --tp 4 --world-size 12 --hybrid-cp");
  EXPECT_EQ(odd.exit_code, 1);
  EXPECT_NE(odd.err.find("[CP081]"), std::string::npos) << odd.err;
}

}  // namespace
}  // namespace hcp
