// Tests for layout_of(Recipe) and apply(Layout, Recipe&): the defaults the recipe module decides
// (ETP, VPP, DP), and the round trip layout_of(apply(L)) == L.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// A per-layer cp_comm_type list is priced as its most common type (the first used on a tie), and
// says so; it used to be priced as its last entry.
TEST(LayoutOf, AMixedPerLayerListIsPricedAsItsMostCommonTypeAndSaysSo) {
  struct Case {
    const char* list;
    CpCommType comm;
    bool mixed;
  };
  for (const Case& c : std::vector<Case>{{"[p2p, p2p, p2p, a2a]", CpCommType::kP2p, true},
                                         {"[a2a, p2p, p2p, p2p]", CpCommType::kP2p, true},
                                         {"[a2a, a2a, all_gather, p2p]", CpCommType::kA2a, true},
                                         {"[p2p, a2a]", CpCommType::kP2p, true},
                                         {"[a2a, p2p]", CpCommType::kA2a, true},
                                         {"[a2a, a2a, a2a, a2a]", CpCommType::kA2a, false},
                                         {"a2a", CpCommType::kA2a, false}}) {
    Recipe r = recipe_of(std::string("model:\n  num_layers: 4\n  context_parallel_size: 8\n"
                                     "  cp_comm_type: ") +
                         c.list + "\n");
    Layout l = layout_of(r);
    EXPECT_EQ(l.comm, c.comm) << c.list;
    EXPECT_FALSE(l.windowed_comm) << c.list;
    std::string note = cp_comm_type_pricing_note(r);
    EXPECT_EQ(!note.empty(), c.mixed) << c.list << ": " << note;
  }
  Recipe r = recipe_of("model:\n  cp_comm_type: [p2p, p2p, p2p, a2a]\n");
  EXPECT_EQ(
      cp_comm_type_pricing_note(r),
      "the per-layer cp_comm_type list mixes types (p2p on 3 and a2a on 1 of 4 layers: priced "
      "as p2p on all of them); the cost model prices one type per kind of layer, the most "
      "common");
}

TEST(LayoutOf, SlidingWindowLayersKeepTheirOwnTypeAndOnlyAMixWithinAKindIsNoted) {
  Recipe r = recipe_of("model:\n  cp_comm_type: [a2a, a2a, p2p, a2a]\n");
  const std::vector<bool> windowed = {true, true, false, true};
  Layout l = layout_of(r, windowed);
  EXPECT_EQ(l.comm, CpCommType::kP2p);
  EXPECT_EQ(l.windowed_comm, CpCommType::kA2a);
  EXPECT_EQ(cp_comm_type_pricing_note(r, windowed), "");
  Recipe mixed = recipe_of("model:\n  cp_comm_type: [a2a, p2p, p2p, a2a]\n");
  EXPECT_NE(cp_comm_type_pricing_note(mixed, windowed)
                .find("a2a on 2 and p2p on 1 of 3 sliding-window layers: priced as a2a"),
            std::string::npos)
      << cp_comm_type_pricing_note(mixed, windowed);
}

TEST(RecipeCpCommType, OnlyTheSpellingsTeTakes) {
  for (const char* ok : {"p2p", "all_gather", "a2a", "a2a+p2p"})
    EXPECT_TRUE(recipe_cp_comm_type(ok)) << ok;
  // parse_cp_comm_type's --option aliases are CP010 errors in a recipe, not types to price.
  for (const char* bad : {"allgather", "a2a_p2p", "P2P", "", "banana"})
    EXPECT_FALSE(recipe_cp_comm_type(bad)) << bad;
  Layout l = layout_of(recipe_of("model:\n  cp_comm_type: allgather\n"));
  EXPECT_EQ(l.comm, CpCommType::kP2p);  // unread, as any unknown type (CP010 reports it)
}

TEST(CheckModelSection, ModelMustBeAMappingAndRecomputeGranularityFullOrSelective) {
  struct Case {
    const char* yaml;
    const char* error;  // "" when it passes
  };
  for (const Case& c : std::vector<Case>{
           {"model: null\n", "the recipe has no model section (model is null)"},
           {"train:\n  global_batch_size: 8\n", "the recipe has no model section (no 'model' key)"},
           {"model:\n  recompute_granularity: FULL\n",
            "model.recompute_granularity must be full or selective (or null for none), got 'FULL'"},
           {"model:\n  recompute_granularity: banana\n", "got 'banana'"},
           {"model:\n  recompute_granularity: full\n", ""},
           {"model:\n  recompute_granularity: selective\n", ""},
           {"model:\n  recompute_granularity: null\n", ""},
           {"model:\n  num_layers: 4\n", ""},
       }) {
    Recipe r = recipe_of(c.yaml);
    Status s = check_model_section(r);
    if (std::string(c.error).empty()) {
      EXPECT_TRUE(s) << c.yaml << s.error().str();
      continue;
    }
    ASSERT_FALSE(s) << c.yaml;
    EXPECT_NE(s.error().message.find(c.error), std::string::npos) << s.error().message;
    // apply_overrides checks it, with no overrides too.
    EXPECT_FALSE(apply_overrides(r, {})) << c.yaml;
  }
  Recipe r = recipe_of("model:\n  num_layers: 4\n  recompute_granularity: full\n");
  Status s = apply_overrides(r, {"model.recompute_granularity=FULL"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().location.file, "<override 1>");
  EXPECT_EQ(s.error().key, "model.recompute_granularity");
  Recipe null_model = recipe_of("model:\n  num_layers: 4\n");
  EXPECT_FALSE(apply_overrides(null_model, {"model=null"}));
}

}  // namespace
}  // namespace hcp
