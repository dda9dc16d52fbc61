// Tests for layout_of(Recipe) and apply(Layout, Recipe&): the defaults the recipe module decides
// (ETP, VPP, DP), and the round trip layout_of(apply(L)) == L.
#include <gtest/gtest.h>

#include "hcp/recipe.h"

namespace hcp {
namespace {

Recipe recipe_of(const std::string& yaml, Framework framework = Framework::kBridge) {
  auto r = load_recipe_text(yaml, "t.yaml");
  EXPECT_TRUE(r) << r.error().str();
  Recipe recipe = r ? *r : Recipe{};
  recipe.framework = framework;
  return recipe;
}

TEST(DefaultExpertTp, BridgeSetsOneWithExpertParallelism) {
  EXPECT_EQ(default_expert_tp(Framework::kBridge, 8), 1);
}

TEST(DefaultExpertTp, UnsetWithoutExpertParallelismOrOnMegatronLm) {
  EXPECT_FALSE(default_expert_tp(Framework::kBridge, 1).has_value());
  EXPECT_FALSE(default_expert_tp(Framework::kMlm, 8).has_value());
}

TEST(LayoutOf, BridgeEtpDefaultFires) {
  Layout l =
      layout_of(recipe_of("model:\n  tensor_model_parallel_size: 4\n"
                          "  expert_model_parallel_size: 8\n"));
  EXPECT_EQ(l.etp, 1);
  EXPECT_EQ(l.expert_tp(), 1);
}

TEST(LayoutOf, EtpFollowsTpWhenNoDefaultApplies) {
  Layout dense = layout_of(recipe_of("model:\n  tensor_model_parallel_size: 4\n"));
  EXPECT_FALSE(dense.etp.has_value());
  EXPECT_EQ(dense.expert_tp(), 4);
  Layout mlm = layout_of(
      recipe_of("model:\n  tensor_model_parallel_size: 4\n  expert_model_parallel_size: 8\n",
                Framework::kMlm));
  EXPECT_FALSE(mlm.etp.has_value());
  EXPECT_EQ(mlm.expert_tp(), 4);
}

TEST(LayoutOf, ExplicitEtpWins) {
  Layout l =
      layout_of(recipe_of("model:\n  tensor_model_parallel_size: 4\n"
                          "  expert_model_parallel_size: 8\n"
                          "  expert_tensor_parallel_size: 2\n"));
  EXPECT_EQ(l.etp, 2);
}

TEST(LayoutOf, VppUnsetUnlessGiven) {
  Layout none = layout_of(recipe_of("model:\n  pipeline_model_parallel_size: 4\n"));
  EXPECT_FALSE(none.vpp.has_value());
  EXPECT_EQ(none.virtual_stages(), 1);
  Layout given =
      layout_of(recipe_of("model:\n  pipeline_model_parallel_size: 4\n"
                          "  virtual_pipeline_model_parallel_size: 3\n"));
  EXPECT_EQ(given.vpp, 3);
  EXPECT_EQ(given.virtual_stages(), 3);
}

TEST(LayoutOf, DpIsOneUntilAWorldSizeIsKnown) {
  Layout l =
      layout_of(recipe_of("model:\n  tensor_model_parallel_size: 2\n"
                          "  context_parallel_size: 4\n"));
  EXPECT_EQ(l.dp, 1);
  EXPECT_EQ(data_parallel_size(l, 64), 8);
}

TEST(LayoutOf, ReadsCommTypesHcpSequenceParallelAndOrder) {
  Layout l =
      layout_of(recipe_of("model:\n  context_parallel_size: 16\n"
                          "  cp_comm_type: a2a+p2p\n"
                          "  hierarchical_context_parallel_sizes: [8, 2]\n"
                          "  sequence_parallel: true\n"
                          "dist:\n  use_tp_pp_dp_mapping: true\n"));
  EXPECT_EQ(l.comm, CpCommType::kA2aP2p);
  EXPECT_EQ(l.hcp, (std::vector<int64_t>{8, 2}));
  EXPECT_TRUE(l.sequence_parallel);
  EXPECT_EQ(l.order, kTpPpDpRankOrder);
}

TEST(LayoutOf, PerLayerCommTypesSplitIntoFullAndWindowed) {
  Recipe r = recipe_of(
      "model:\n  context_parallel_size: 2\n"
      "  cp_comm_type: [a2a, p2p, a2a, p2p]\n");
  EXPECT_EQ(cp_comm_type_texts(r), (std::vector<std::string>{"a2a", "p2p", "a2a", "p2p"}));
  Layout l = layout_of(r, {true, false, true, false});
  EXPECT_EQ(l.comm, CpCommType::kP2p);
  EXPECT_EQ(l.windowed_comm, CpCommType::kA2a);
}

/// Apply `l` to `r`, then read the layout back.
Layout round_trip(const Layout& l, Recipe r, const std::vector<bool>& windowed = {}) {
  apply(l, r, {}, windowed);
  return layout_of(r, windowed);
}

TEST(ApplyLayout, RoundTrips) {
  Recipe base = recipe_of("model:\n  num_layers: 4\n  tensor_model_parallel_size: 1\n");
  Layout l;
  l.tp = 2;
  l.cp = 16;
  l.pp = 2;
  l.vpp = 2;
  l.ep = 4;
  l.etp = 2;
  l.comm = CpCommType::kA2aP2p;
  l.hcp = {8, 2};
  l.sequence_parallel = true;
  EXPECT_EQ(round_trip(l, base), l);

  Layout windowed;
  windowed.cp = 4;
  windowed.comm = CpCommType::kP2p;
  windowed.windowed_comm = CpCommType::kA2a;
  EXPECT_EQ(round_trip(windowed, base, {true, false, true, false}), windowed);

  Layout bridge_default;  // Bridge's ETP default is not written, and comes back
  bridge_default.ep = 8;
  bridge_default.etp = 1;
  Recipe applied = base;
  apply(bridge_default, applied);
  EXPECT_FALSE(applied.has("model.expert_tensor_parallel_size"));
  EXPECT_EQ(layout_of(applied), bridge_default);
}

TEST(ApplyLayout, ClearsWhatTheLayoutDoesNotUse) {
  Recipe r = recipe_of(
      "model:\n  context_parallel_size: 16\n  cp_comm_type: a2a+p2p\n"
      "  hierarchical_context_parallel_sizes: [8, 2]\n"
      "  pipeline_model_parallel_size: 2\n"
      "  virtual_pipeline_model_parallel_size: 2\n");
  Layout l;  // TP1 CP1 PP1
  apply(l, r);
  EXPECT_FALSE(r.has("model.cp_comm_type"));
  EXPECT_FALSE(r.has("model.hierarchical_context_parallel_sizes"));
  EXPECT_FALSE(r.has("model.virtual_pipeline_model_parallel_size"));
  EXPECT_EQ(layout_of(r), l);
}

}  // namespace
}  // namespace hcp
