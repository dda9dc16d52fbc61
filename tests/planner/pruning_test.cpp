// The search's shortcuts (rules once per layout, EP / VPP variants priced before the rules, the
// placement shortcut) must not change its answer: every listed option is the best accepted
// variant of its layout, and its numbers are what estimate() says for that layout.
#include <gtest/gtest.h>

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
    // No accepted EP / VPP variant of the same layout is ahead of the listed one.
    for (const Layout& l : all) {
      if (!same_base(l, o.layout)) continue;
      EvaluatedOption other = evaluate_layout(req, *model, l);
      if (other.rejected) continue;
      EXPECT_FALSE(ahead(other.option.estimate, o.estimate))
          << recipe_file << ": " << l.label() << " beats the listed " << o.layout.label();
    }
  }
}

TEST(PlanPruning, ListedDenseOptionsAreTheBestVariantOfTheirLayout) {
  expect_best_variants("llama3_8b_128k.yaml", 64, 4);
}

TEST(PlanPruning, ListedMoeOptionsAreTheBestVariantOfTheirLayout) {
  expect_best_variants("qwen3_30b_a3b_64k.yaml", 64, 4);
  expect_best_variants("mixtral_8x7b_32k.yaml", 32, 2);
}

// A world where most layouts cannot split the global batch (the model cannot price them).
TEST(PlanPruning, ListedOptionsAreTheBestVariantWhereMostCannotBePriced) {
  expect_best_variants("qwen3_30b_a3b_64k.yaml", 2048, 2);
}

}  // namespace
}  // namespace hcp
