// The planner: search space, rule filtering, ranking and reasons on the shipped default recipe.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hcp/planner.h"
#include "model/model_test_support.h"

namespace hcp {
namespace {

Recipe default_recipe(const std::vector<std::string>& overrides = {}) {
  auto r = load_recipe_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  if (!r.ok()) return Recipe{};
  auto st = apply_overrides(*r, overrides);
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().str());
  return *r;
}

Hardware h100() {
  auto p = load_cluster_profile(HCP_RECIPES_DIR "/clusters/dgx-h100.yaml");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().str());
  // The model tests' named constants (fit_start): the seed tests quote ring-overlap and link
  // figures that must not move when the corpus is refitted. What `plan` runs: inputs_test.cpp.
  return p.ok() ? hardware_from_profile(*p, testing::test_constants()) : Hardware{};
}

PlanRequest seed_request(const Recipe& recipe, Recompute recompute = Recompute::kFull) {
  PlanRequest req;
  req.recipe = recipe;
  req.env.world_size = 32;
  req.env.gpus_per_node = 8;
  req.env.nvlink_domain = 8;
  req.hardware = h100();
  req.setup = training_setup_of(recipe);
  req.setup.recompute = recompute;
  req.keep_rejected = true;
  return req;
}

bool same_layout(const Layout& a, const Layout& b) {
  return a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.comm == b.comm &&
         a.windowed_comm == b.windowed_comm && a.hcp_sizes() == b.hcp_sizes();
}

Layout make(int64_t tp, int64_t cp, CommType comm, int64_t a = 1, int64_t p = 1) {
  Layout l;
  l.tp = tp;
  l.cp = cp;
  l.dp = 32 / (tp * cp);
  l.comm = comm;
  l.hcp = {a, p};
  return l;
}

const Layout kA = make(1, 16, CommType::kA2aP2p, 8, 2);
const Layout kB = make(2, 4, CommType::kA2a);
const Layout kC = make(1, 16, CommType::kP2p);

/// Return the rank of a layout in the plan, or -1 when it is not listed.
int rank_of(const PlanResult& plan, const Layout& l) {
  for (size_t i = 0; i < plan.options.size(); ++i) {
    if (same_layout(plan.options[i].layout, l)) return static_cast<int>(i);
  }
  return -1;
}

const PlanOption& option(const PlanResult& plan, const Layout& l) {
  return plan.options.at(static_cast<size_t>(rank_of(plan, l)));
}

TEST(PlannerSeed, ListsTheSeedOptionsWithAAndBWithinFifteenPercent) {
  auto result = plan(seed_request(default_recipe()));
  ASSERT_TRUE(result.ok()) << result.error().str();
  ASSERT_GE(rank_of(*result, kA), 0);
  ASSERT_GE(rank_of(*result, kB), 0);
  ASSERT_GE(rank_of(*result, kC), 0);
  double a = option(*result, kA).estimate.time.step_s;
  double b = option(*result, kB).estimate.time.step_s;
  EXPECT_LT(std::max(a, b) / std::min(a, b), 1.15);
  // Every listed option passed the rules: no error among its diagnostics.
  for (const PlanOption& o : result->options) {
    for (const Diagnostic& d : o.diagnostics)
      EXPECT_NE(d.severity(), Severity::kError) << d.id();
  }
  // Exactly one recommended option, the first that fits.
  int recommended = 0;
  for (const PlanOption& o : result->options)
    recommended += o.recommended;
  EXPECT_EQ(recommended, 1);
  EXPECT_TRUE(result->options.front().recommended);
  EXPECT_FALSE(result->summary.empty());
}

TEST(PlannerSeed, ReasonsQuoteTheRingOverlapInNumbers) {
  auto result = plan(seed_request(default_recipe()));
  ASSERT_TRUE(result.ok());
  const PlanOption& c = option(*result, kC);
  bool hidden = false;
  for (const std::string& r : c.reasons) {
    hidden |= r.find("the ring hides the IB transfer behind attention") != std::string::npos &&
              r.find("ms of compute vs") != std::string::npos;
  }
  EXPECT_TRUE(hidden);
  const PlanOption& b = option(*result, kB);
  bool nvlink = false;
  for (const std::string& r : b.reasons) {
    nvlink |= r.find("a2a keeps every per-layer collective inside one NVLink domain") !=
              std::string::npos;
  }
  EXPECT_TRUE(nvlink);
}

TEST(PlannerSeed, APartlyHiddenRingSaysSoWhenAttentionOutlastsTheTransfer) {
  // The corpus may show that a ring hides only part of its transfer even when attention per
  // step outlasts it (ring_overlap < 1): the reason must not claim it "cannot hide" it.
  PlanRequest req = seed_request(default_recipe());
  req.hardware.k.ring_overlap = 0.5;
  auto result = plan(req);
  ASSERT_TRUE(result.ok()) << result.error().str();
  const PlanOption& c = option(*result, kC);
  ASSERT_GT(c.estimate.time.ring_step_compute_s, c.estimate.time.ring_step_transfer_s);
  ASSERT_GT(c.estimate.time.cp_ring_exposed_s, 0.005 * c.estimate.time.step_s);
  bool part = false;
  for (const std::string& s : c.reasons) {
    part |= s.find("the ring hides only 50% of the IB transfer behind attention") !=
                std::string::npos &&
            s.find("of transfer per ring step") != std::string::npos &&
            s.find("exposed per training step") != std::string::npos;
    EXPECT_EQ(s.find("cannot hide"), std::string::npos) << s;
  }
  EXPECT_TRUE(part);
}

TEST(PlannerSeed, FlatRingFallsBehindAt32K) {
  Recipe r = default_recipe({"dataset.seq_length=32768", "model.seq_length=32768"});
  auto result = plan(seed_request(r, Recompute::kNone));
  ASSERT_TRUE(result.ok()) << result.error().str();
  ASSERT_GE(rank_of(*result, kA), 0);
  ASSERT_GE(rank_of(*result, kC), 0);
  EXPECT_LT(rank_of(*result, kA), rank_of(*result, kC));
  const PlanOption& c = option(*result, kC);
  EXPECT_GT(c.estimate.time.cp_ring_exposed_s, 0.0);
  bool cannot = false;
  for (const std::string& s : c.reasons)
    cannot |= s.find("cannot hide") != std::string::npos;
  EXPECT_TRUE(cannot);
}

TEST(PlannerCalibration, SlowNicsPushTheFlatRingDown) {
  Recipe r = default_recipe();
  PlanRequest fast = seed_request(r);
  PlanRequest slow = seed_request(r);
  auto cal = load_calibration(HCP_FIXTURES_DIR "/model/slow_nic_calibration.json");
  ASSERT_TRUE(cal.ok()) << cal.error().str();
  apply_calibration(slow.hardware, *cal, "slow_nic_calibration.json");
  auto p_fast = plan(fast);
  auto p_slow = plan(slow);
  ASSERT_TRUE(p_fast.ok() && p_slow.ok());
  EXPECT_GT(rank_of(*p_slow, kC), rank_of(*p_fast, kC));
  EXPECT_LT(rank_of(*p_slow, kA), rank_of(*p_slow, kC));
}

TEST(PlannerRules, RejectedCandidatesNameTheRule) {
  auto result = plan(seed_request(default_recipe()));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->rejected_count, static_cast<int64_t>(result->rejected.size()));
  EXPECT_EQ(result->candidates,
            result->rejected_count + static_cast<int64_t>(result->options.size()));
  // TP1 CP16 a2a: 8 KV heads cannot be scattered over 16 ranks.
  Layout a2a16 = make(1, 16, CommType::kA2a);
  auto it = std::find_if(result->rejected.begin(), result->rejected.end(),
                         [&](const RejectedOption& r) { return same_layout(r.layout, a2a16); });
  ASSERT_NE(it, result->rejected.end());
  EXPECT_FALSE(it->rule_id.empty());
  EXPECT_NE(it->rule_id, "model");
  EXPECT_EQ(rank_of(*result, a2a16), -1);
}

TEST(PlannerRules, NoRecomputeLeavesAOutOfMemory) {
  auto result = plan(seed_request(default_recipe(), Recompute::kNone));
  ASSERT_TRUE(result.ok());
  const PlanOption& a = option(*result, kA);
  EXPECT_FALSE(a.estimate.fits_memory);
  // Options that fit come first.
  bool seen_oom = false;
  for (const PlanOption& o : result->options) {
    if (!o.estimate.fits_memory) seen_oom = true;
    if (seen_oom) {
      EXPECT_FALSE(o.estimate.fits_memory);
    }
  }
  EXPECT_TRUE(result->options.front().estimate.fits_memory);
}

TEST(PlannerSearch, EnumeratesEveryHierarchicalFactorizationOnce) {
  ModelDims m;
  m.num_layers = 2;
  auto layouts = enumerate_layouts(m, 32, 8, 1);
  std::set<std::string> labels;
  for (const Layout& l : layouts) {
    EXPECT_LE(l.tp, 8);
    EXPECT_EQ(l.world(), 32);
    EXPECT_TRUE(labels.insert(l.label()).second) << "duplicate " << l.label();
  }
  EXPECT_TRUE(labels.count("TP1 CP16 a2a+p2p [8,2] DP2"));
  EXPECT_TRUE(labels.count("TP1 CP16 a2a+p2p [2,8] DP2"));
  EXPECT_TRUE(labels.count("TP1 CP16 a2a+p2p [4,4] DP2"));
  EXPECT_FALSE(labels.count("TP1 CP16 a2a+p2p [1,16] DP2"));
  EXPECT_TRUE(labels.count("TP8 CP1 DP4"));
  EXPECT_FALSE(labels.count("TP16 CP2 p2p DP1"));  // TP beyond the NVLink domain
  auto with_pp = enumerate_layouts(m, 32, 8, 2);
  EXPECT_GT(with_pp.size(), layouts.size());
}

TEST(PlannerSearch, SlidingWindowModelsGetPerLayerTypes) {
  auto r = load_recipe_file(HCP_RECIPES_DIR "/gemma3_1b_32k.yaml");
  ASSERT_TRUE(r.ok()) << r.error().str();
  auto dims = model_dims_of(*r);
  ASSERT_TRUE(dims.ok()) << dims.error().str();
  ASSERT_GT(dims->windowed_layers(), 0);
  PlanRequest req = seed_request(*r, Recompute::kNone);
  req.env.world_size = 8;
  auto result = plan(req);
  ASSERT_TRUE(result.ok()) << result.error().str();
  bool mixed = false;
  for (const PlanOption& o : result->options) {
    if (o.layout.cp == 1) continue;
    CommType windowed = o.layout.windowed_comm.value_or(o.layout.comm);
    EXPECT_TRUE(windowed == CommType::kA2a || windowed == CommType::kAllGather) << o.layout.label();
    mixed |= o.layout.windowed_comm.has_value();
  }
  EXPECT_TRUE(mixed);
}

TEST(PlannerRecipe, LayoutRoundTripsThroughTheRecipe) {
  Recipe r = default_recipe();
  auto a = layout_on(r, 32);
  ASSERT_TRUE(a.ok()) << a.error().str();
  EXPECT_TRUE(same_layout(*a, kA));
  EXPECT_EQ(a->dp, 2);
  Recipe b = recipe_with_layout(r, kB);
  EXPECT_EQ(b.get_int("model.tensor_model_parallel_size"), 2);
  EXPECT_EQ(b.get_string("model.cp_comm_type"), "a2a");
  EXPECT_EQ(b.get_bool("model.sequence_parallel"), true);
  EXPECT_FALSE(b.has("model.hierarchical_context_parallel_sizes"));
  auto back = layout_on(b, 32);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(same_layout(*back, kB));
  EXPECT_FALSE(layout_on(r, 24).ok());  // 24 is not divisible by CP16
}

TEST(PlannerErrors, NeedsAWorldSize) {
  PlanRequest req = seed_request(default_recipe());
  req.env.world_size.reset();
  EXPECT_FALSE(plan(req).ok());
}

}  // namespace
}  // namespace hcp
