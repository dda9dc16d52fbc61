// memory_fit_finding (CP115): the recipe's own layout against the GPU's memory, as plan prices it.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "hcp/mlm_args.h"
#include "hcp/planner.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

/// plan's request for a shipped recipe on `nodes` x 8 GPUs of `cluster`, with overrides.
PlanRequest request_for(const std::string& recipe, int64_t nodes, const std::string& cluster,
                        std::vector<std::string> overrides = {}) {
  PlanInputs in;
  in.recipe = HCP_RECIPES_DIR "/" + recipe + ".yaml";
  in.overrides = std::move(overrides);
  in.nodes = nodes;
  in.cluster = cluster;
  auto prepared = prepare_plan(in);
  EXPECT_TRUE(prepared) << prepared.error().str();
  return prepared->request;
}

TEST(MemoryFit, TheReadmeRecipeDoesNotFitOnH100AndFullRecomputeIsPlansLeastChange) {
  // README: plan lists the recipe's own TP1 CP16 a2a+p2p [8,2] DP2 as "OOM by ... GiB" on 4 x 8
  // H100 and names "the same layout with --recompute full" first among the changes that fit.
  PlanRequest request = request_for("llama3_8b_128k", 4, "dgx-h100");
  auto own = layout_on(request.recipe, 32);
  ASSERT_TRUE(own);
  auto model = model_dims_of(request.recipe);
  ASSERT_TRUE(model);
  auto e = estimate(*model, *own, request.hardware, request.setup);
  ASSERT_TRUE(e);
  ASSERT_FALSE(e->fits_memory);
  std::optional<std::string> least = recompute_that_fits(*model, request, *own);
  ASSERT_TRUE(least);

  std::optional<Diagnostic> d = memory_fit_finding(request, "dgx-h100");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id(), "CP115");
  EXPECT_EQ(d->severity(), Severity::kWarning);
  EXPECT_EQ(d->key, "model.context_parallel_size");
  EXPECT_GT(d->location.line, 0);
  // The model's own figures, as plan prints them, and the band around them.
  EXPECT_NE(d->message.find(own->label()), std::string::npos) << d->message;
  EXPECT_NE(d->message.find(format_fixed(e->memory_gib(), 1) + " of 80 GiB per GPU, OOM by " +
                            format_fixed(e->memory_gib() - 80, 1) + " GiB"),
            std::string::npos)
      << d->message;
  double reserved = e->memory.reserved / (1024.0 * 1024.0 * 1024.0);
  double held = e->memory_gib() - reserved;
  EXPECT_NE(d->message.find("band " + format_fixed(held * 0.8 + reserved, 1) + "-" +
                            format_fixed(held * 1.2 + reserved, 1) + " GiB"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->fix().find(*least), std::string::npos) << d->fix();
  EXPECT_NE(d->fix().find("as `hcp-plan plan` names it"), std::string::npos) << d->fix();
}

TEST(MemoryFit, AMegatronLmInputGetsTheFixInMegatronLmFlagNames) {
  // Llama-3-8B-sized Megatron-LM arguments at 32K on 8 GPUs without recompute: full recompute fits.
  auto config = load_mlm_args(
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 32768 "
      "--max-position-embeddings 32768 --micro-batch-size 1 --global-batch-size 8");
  ASSERT_TRUE(config) << config.error().str();
  PlanInputs in;
  in.loaded = config->sections.front().recipe;
  in.nodes = 1;
  auto prepared = prepare_plan(in);
  ASSERT_TRUE(prepared) << prepared.error().str();
  std::optional<Diagnostic> d = memory_fit_finding(prepared->request, "dgx-h100");
  ASSERT_TRUE(d);
  EXPECT_NE(d->fix().find("--recompute-granularity"), std::string::npos) << d->fix();
  EXPECT_EQ(d->fix().find("model.recompute_granularity"), std::string::npos) << d->fix();
}

TEST(MemoryFit, QuietWhenTheLayoutFits) {
  // The same layout with full recompute, or on 141 GB H200s: plan's model says it fits.
  EXPECT_FALSE(memory_fit_finding(
      request_for("llama3_8b_128k", 4, "dgx-h100", {"model.recompute_granularity=full"}),
      "dgx-h100"));
  EXPECT_FALSE(memory_fit_finding(request_for("llama3_8b_128k", 4, "dgx-h200"), "dgx-h200"));
  // And a small model on its own layout.
  EXPECT_FALSE(memory_fit_finding(request_for("llama32_1b_128k", 4, "dgx-h100"), "dgx-h100"));
}

TEST(MemoryFit, QuietWhenTheWorldSizeIsUnknownOrTheLayoutCannotBePriced) {
  PlanRequest request = request_for("llama3_8b_128k", 4, "dgx-h100");
  PlanRequest no_world = request;
  no_world.env.world_size.reset();
  EXPECT_FALSE(memory_fit_finding(no_world, "dgx-h100"));
  // CP 16 does not divide 24 GPUs: the layout rules report that, not the memory check.
  PlanRequest uneven = request;
  uneven.env.world_size = 24;
  EXPECT_FALSE(memory_fit_finding(uneven, "dgx-h100"));
}

TEST(MemoryFit, WithoutARecomputeThatFitsTheFixPointsToPlansNearestLayout) {
  // 405B on one 8-GPU node: no recompute brings the weights and optimizer under 80 GiB.
  PlanRequest request =
      request_for("llama31_405b_128k", 1, "dgx-h100",
                  {"model.tensor_model_parallel_size=8", "model.context_parallel_size=1",
                   "model.pipeline_model_parallel_size=1"});
  auto own = layout_on(request.recipe, 8);
  ASSERT_TRUE(own) << own.error().str();
  auto model = model_dims_of(request.recipe);
  ASSERT_TRUE(model);
  ASSERT_FALSE(recompute_that_fits(*model, request, *own));
  std::optional<Diagnostic> d = memory_fit_finding(request, "dgx-h100");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("even its low edge is over the limit"), std::string::npos)
      << d->message;
  EXPECT_NE(d->fix().find("names the nearest layout that fits"), std::string::npos) << d->fix();
}

// CP115 prices a per-layer cp_comm_type list that mixes types as its most common type, and says so.
TEST(MemoryFit, AMixedPerLayerCommListSaysWhichTypeItPriced) {
  std::string list = "model.cp_comm_type=[";
  for (int i = 0; i < 32; ++i)
    list += std::string(i == 0 ? "" : ",") + (i == 31 ? "a2a" : "p2p");
  PlanRequest request = request_for("llama3_8b_128k", 4, "dgx-h100",
                                    {list + "]", "model.hierarchical_context_parallel_sizes=null"});
  request.env.world_size = 32;
  std::optional<Diagnostic> d = memory_fit_finding(request, "dgx-h100");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("TP1 CP16 p2p DP2"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("(p2p on 31 and a2a on 1 of 32 layers: priced as p2p on all of them)"),
            std::string::npos)
      << d->message;
  PlanRequest uniform =
      request_for("llama3_8b_128k", 4, "dgx-h100",
                  {"model.cp_comm_type=p2p", "model.hierarchical_context_parallel_sizes=null"});
  uniform.env.world_size = 32;
  std::optional<Diagnostic> plain = memory_fit_finding(uniform, "dgx-h100");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->message.find("mixes types"), std::string::npos) << plain->message;
}

}  // namespace
}  // namespace hcp
