// groups and simulate JSON contracts and simulate's text, formatted without the CLI (issue 16,
// point 11).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "hcp/layout_report.h"

namespace hcp {
namespace {

using nlohmann::json;

TEST(GroupsJson, LayoutGroupsPlacementAndWarnings) {
  GroupOptions config;
  config.world_size = 16;
  config.layout.tp = 2;
  config.layout.cp = 4;
  auto groups = build_groups(config);
  ASSERT_TRUE(groups) << groups.error().str();
  std::string text = format_groups_json(*groups, NodeShape{8, 8}, "dgx-h100",
                                        {{"CP020", "a2a leaves the domain"}, {"", "note"}});
  json j = json::parse(text);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["world_size"], 16);
  EXPECT_EQ(j["dp"], 2);
  EXPECT_EQ(j["cluster"], "dgx-h100");
  EXPECT_EQ(j["groups"]["cp"][0], json({0, 2, 4, 6}));
  EXPECT_EQ(j["placement"]["cp"]["group_size"], 4);
  EXPECT_EQ(j["placement"]["dp"]["cross_node_groups"], 8);  // DP pairs rank r with r + 8.
  EXPECT_EQ(j["warnings"][0]["id"], "CP020");
  EXPECT_EQ(j["warnings"][1]["id"], "");
  // One line per group kind: the "cp" line holds every CP group.
  EXPECT_NE(text.find("\n  \"cp\": [[0,2,4,6],[1,3,5,7]"), std::string::npos) << text;
  EXPECT_EQ(json::parse(format_groups_json(*groups, NodeShape{8, 8}, "", {})).count("cluster"), 0u);
}

TEST(GroupsJson, RejectedLayoutNamesTheRuleAndTheLine) {
  LayoutError e;
  e.kind = LayoutError::Kind::kRejected;
  e.rule_id = "CP001";
  e.message = "world size 12 is not divisible by TP*PP*CP = 8";
  e.key = "model.context_parallel_size";
  e.exception = "RuntimeError";
  json j = json::parse(format_groups_invalid_json(e, Location{"r.yaml", 7, 3}));
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["error"]["id"], "CP001");
  EXPECT_EQ(j["error"]["location"]["line"], 7);
  EXPECT_EQ(j["error"]["upstream_exception"], "RuntimeError");
}

TEST(SimulateJson, BytesPerRankAndVerdict) {
  CpSimOptions o;
  o.shape = {64, 4, 4, 8, true};
  o.cp = 2;
  CpSimResult r;
  r.max_abs_error = 1e-6;
  r.comm_bytes_per_rank = {100, 120};
  r.a2a_bytes_per_rank = {0, 0};
  r.ring_bytes_per_rank = {100, 120};
  r.rank_chunks = {{0, 3}, {1, 2}};
  json j = json::parse(format_simulate_json(r, o, 1e-3, false));
  EXPECT_EQ(j["comm_bytes_per_rank"]["1"], 120);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["cp_comm_type"], "p2p");
  EXPECT_EQ(j["rank_chunks"][0], json({0, 3}));
  EXPECT_EQ(j["seq_length"], 64);
}

TEST(SimulateText, ProblemChunksErrorAndBytes) {
  CpSimOptions o;
  o.shape = {64, 4, 4, 8, true};
  o.cp = 2;
  CpSimResult r;
  r.max_abs_error = 1e-2;
  r.comm_bytes_per_rank = {100, 120};
  r.rank_chunks = {{0, 3}, {1, 2}};
  std::string text = format_simulate_text(r, o, 1e-3);
  EXPECT_EQ(text.rfind("simulate: S=64 heads=4 kv_heads=4 head_dim=8 causal cp=2", 0), 0u) << text;
  EXPECT_NE(text.find("chunks (of 4): rank 0: 0,3; rank 1: 1,2"), std::string::npos) << text;
  EXPECT_NE(text.find("(tolerance 1.00e-03): WRONG"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 1: 120"), std::string::npos) << text;
  EXPECT_NE(text.find("(MISMATCH)"), std::string::npos) << text;
}

}  // namespace
}  // namespace hcp
