// The search's shortcuts (rules once per layout, EP / VPP variants priced before the rules, the
// placement shortcut) must not change its answer: every listed option is the best accepted
// variant of its layout, and its numbers are what estimate() says for that layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/planner.h"

namespace hcp {
namespace {

bool same_base(const Layout& a, const Layout& b) {
  return a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.dp == b.dp && a.comm == b.comm &&
         a.windowed_comm == b.windowed_comm && a.hcp_sizes() == b.hcp_sizes();
}

bool ahead(const Estimate& a, const Estimate& b) {
  if (a.fits_memory != b.fits_memory) return a.fits_memory;
  return a.time.step_s < b.time.step_s;
}

void expect_best_variants(const std::string& recipe_file, int64_t world, int64_t max_pp) {
  auto recipe = load_recipe_file(HCP_RECIPES_DIR "/" + recipe_file);
  ASSERT_TRUE(recipe.ok()) << recipe.error().str();
  auto profile = load_cluster_profile(HCP_RECIPES_DIR "/clusters/dgx-h100.yaml");
  ASSERT_TRUE(profile.ok());
  PlanRequest req;
  req.recipe = *recipe;
  req.env.world_size = world;
  req.env.gpus_per_node = 8;
  req.env.nvlink_domain = 8;
  req.hardware = hardware_from_profile(*profile, accuracy::shipped_constants());
  req.setup = training_setup_of(*recipe);
  req.max_pp = max_pp;
  auto result = plan(req);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_FALSE(result->options.empty()) << recipe_file;
  // Without --show-rejected the search skips the rules of variants the model cannot price; the
  // answer and the counts must be those of the full path (keep_rejected runs every rule).
  PlanRequest full = req;
  full.keep_rejected = true;
  auto reference = plan(full);
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ(result->rejected_count, reference->rejected_count) << recipe_file;
  EXPECT_EQ(result->pruned_count, reference->pruned_count) << recipe_file;
  ASSERT_EQ(result->options.size(), reference->options.size()) << recipe_file;
  for (size_t i = 0; i < result->options.size(); ++i) {
    EXPECT_EQ(result->options[i].layout.label(), reference->options[i].layout.label());
    EXPECT_DOUBLE_EQ(result->options[i].estimate.time.step_s,
                     reference->options[i].estimate.time.step_s);
  }
  auto model = model_dims_of(*recipe);
  ASSERT_TRUE(model.ok());
  SearchSpace space;
  space.max_pp = std::max(max_pp, result->recipe_layout ? result->recipe_layout->pp : 1);
  for (int64_t ep = 1; model->num_experts > 0 && ep <= model->num_experts; ep *= 2)
    if (model->num_experts % ep == 0) space.ep.push_back(ep);
  space.vpp = {1};
  if (result->recipe_layout && result->recipe_layout->virtual_stages() > 1)
    space.vpp.push_back(result->recipe_layout->virtual_stages());
  if (result->recipe_layout) space.etp = result->recipe_layout->etp;
  std::vector<Layout> all = search_layouts(*model, world, 8, space);
  for (const PlanOption& o : result->options) {
    // The listed numbers are estimate()'s for that layout.
    auto fresh = estimate(*model, o.layout, req.hardware, req.setup);
    ASSERT_TRUE(fresh.ok());
    EXPECT_DOUBLE_EQ(fresh->time.step_s, o.estimate.time.step_s) << o.layout.label();
    EXPECT_EQ(fresh->fits_memory, o.estimate.fits_memory) << o.layout.label();
    if (o.recipe_layout) continue;
    // No accepted EP / VPP variant of the same layout is ahead of the listed one. Only a variant
    // the model prices ahead of it can be one: the rules (most of what evaluate_layout costs)
    // run only on those, and must reject each.
    for (const Layout& l : all) {
      if (!same_base(l, o.layout)) continue;
      auto priced = estimate(*model, l, req.hardware, req.setup);
      if (!priced.ok() || !ahead(*priced, o.estimate)) continue;
      EvaluatedOption other = evaluate_layout(req, *model, l);
      if (other.rejected) continue;
      EXPECT_DOUBLE_EQ(other.option.estimate.time.step_s, priced->time.step_s) << l.label();
      EXPECT_FALSE(ahead(other.option.estimate, o.estimate))
          << recipe_file << ": " << l.label() << " beats the listed " << o.layout.label();
    }
  }
}

TEST(PlanPruning, ListedDenseOptionsAreTheBestVariantOfTheirLayout) {
  expect_best_variants("llama3_8b_128k.yaml", 64, 4);
}

// PP up to 2 gives the VP variants; PP 4 adds layouts, not kinds of variant.
TEST(PlanPruning, ListedMoeOptionsAreTheBestVariantOfTheirLayout) {
  expect_best_variants("qwen3_30b_a3b_64k.yaml", 64, 2);
  expect_best_variants("mixtral_8x7b_32k.yaml", 32, 2);
}

// A world where most layouts cannot split the global batch (the model cannot price them): at
// 2,048 GPUs without PP, most variants are rejected and a few dozen layouts listed.
TEST(PlanPruning, ListedOptionsAreTheBestVariantWhereMostCannotBePriced) {
  expect_best_variants("qwen3_30b_a3b_64k.yaml", 2048, 1);
}

// --- Which rejections prune the other variants of a layout (issue #26) -----------------------
// The rules declare the variant fields they read (Rule::reads); the search prunes the other EP /
// ETP / VP variants of a layout on a rejection only when its rule reads none of the fields they
// differ in.

LayoutFields fields(std::initializer_list<LayoutField> list) {
  return layout_fields(list);
}

TEST(PlanPruning, VariantsDifferInEpEtpAndVpOnly) {
  Layout a;
  a.tp = 2;
  a.cp = 4;
  a.pp = 2;
  a.dp = 2;
  Layout b = a;
  EXPECT_TRUE(differing_variant_fields(a, b).none());
  b.ep = 4;
  EXPECT_EQ(differing_variant_fields(a, b), fields({LayoutField::kEp}));
  b.vpp = 2;
  EXPECT_EQ(differing_variant_fields(a, b), fields({LayoutField::kEp, LayoutField::kVp}));
  b.etp = 1;
  EXPECT_EQ(differing_variant_fields(a, b), variant_fields());
  Layout other_layout = a;
  other_layout.tp = 4;
  other_layout.comm = CpCommType::kA2a;
  EXPECT_TRUE(differing_variant_fields(a, other_layout).none());
}

TEST(PlanPruning, ARejectionByARuleReadingADifferingFieldPrunesNothing) {
  // CP005 (the expert grid) reads EP and ETP; CP112 (torch FSDP2 without EP) reads EP although
  // its finding is about dist.use_torch_fsdp2.
  for (const char* id : {"CP005", "CP112"}) {
    EXPECT_FALSE(rejection_holds_for_every_variant(id, fields({LayoutField::kEp}))) << id;
    EXPECT_FALSE(rejection_holds_for_every_variant(id, variant_fields())) << id;
  }
  EXPECT_FALSE(rejection_holds_for_every_variant("CP005", fields({LayoutField::kEtp})));
  // The cost model's rejections and IDs outside the catalog never prune.
  EXPECT_FALSE(rejection_holds_for_every_variant("model", LayoutFields{}));
  EXPECT_FALSE(rejection_holds_for_every_variant("CP999", LayoutFields{}));
}

TEST(PlanPruning, ARejectionByARuleReadingNoDifferingFieldPrunesTheLayout) {
  // CP001 (world divisible by TP x CP x PP) and CP002 (CP >= 1) read no variant field; CP005 reads
  // no VP, so it prunes the VP variants of a layout.
  for (const char* id : {"CP001", "CP002"}) {
    ASSERT_NE(find_rule(id), nullptr);
    EXPECT_TRUE(find_rule(id)->reads.none()) << id;
    EXPECT_TRUE(rejection_holds_for_every_variant(id, variant_fields())) << id;
  }
  EXPECT_TRUE(rejection_holds_for_every_variant("CP005", fields({LayoutField::kVp})));
}

// End to end: under the Megatron-LM CLI, torch FSDP2 rejects every EP > 1 variant (CP112, a
// finding about dist.use_torch_fsdp2). The EP 1 variant of each layout passes and is listed: a
// search that took CP112's rejection of a faster EP > 1 variant for the layout's dropped them.
TEST(PlanPruning, EveryLayoutWithAnAcceptedVariantIsListed) {
  auto recipe = load_recipe_file(HCP_RECIPES_DIR "/mixtral_8x7b_32k.yaml");
  ASSERT_TRUE(recipe.ok()) << recipe.error().str();
  recipe->set("dist.use_torch_fsdp2", Value::boolean(true));
  recipe->set("model.pipeline_model_parallel_size", Value::integer(1));
  recipe->set("model.virtual_pipeline_model_parallel_size", Value::null());
  auto profile = load_cluster_profile(HCP_RECIPES_DIR "/clusters/dgx-h100.yaml");
  ASSERT_TRUE(profile.ok());
  PlanRequest req;
  req.recipe = *recipe;
  req.env.framework = Framework::kMlm;
  req.env.world_size = 32;
  req.env.gpus_per_node = 8;
  req.env.nvlink_domain = 8;
  req.hardware = hardware_from_profile(*profile, accuracy::shipped_constants());
  req.setup = training_setup_of(*recipe);
  req.max_pp = 1;
  auto result = plan(req);
  ASSERT_TRUE(result.ok()) << result.error().message;
  auto model = model_dims_of(*recipe);
  ASSERT_TRUE(model.ok());
  SearchSpace space;
  for (int64_t ep = 1; ep <= model->num_experts; ep *= 2)
    if (model->num_experts % ep == 0) space.ep.push_back(ep);
  space.etp = result->recipe_layout ? result->recipe_layout->etp : std::nullopt;
  int accepted_layouts = 0;
  int fsdp_rejections = 0;
  for (const Layout& l : search_layouts(*model, 32, 8, space)) {
    EvaluatedOption evaluated = evaluate_layout(req, *model, l);
    if (evaluated.rejected) {
      fsdp_rejections += evaluated.rejected->rule_id == "CP112";
      continue;
    }
    EXPECT_EQ(l.ep, 1) << l.label();
    ++accepted_layouts;
    bool listed = std::any_of(result->options.begin(), result->options.end(),
                              [&](const PlanOption& o) { return same_base(o.layout, l); });
    EXPECT_TRUE(listed) << l.label() << " passes but no variant of its layout is listed";
  }
  EXPECT_GT(accepted_layouts, 0);
  EXPECT_GT(fsdp_rejections, 0);
  EXPECT_EQ(static_cast<int>(result->options.size()), accepted_layouts);
}

}  // namespace
}  // namespace hcp
