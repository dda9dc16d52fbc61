// ModelConstants (named constants per GPU generation) and the GPU spec table.
#include <gtest/gtest.h>

#include <algorithm>

#include "hcp/gpu_specs.h"
#include "hcp/model.h"
#include "hcp/model_constants.h"
#include "model_test_support.h"

namespace hcp {
namespace {

TEST(ModelConstants, EnumeratesFittableConstantsPerGeneration) {
  const ModelConstants& c = ModelConstants::fit_start();
  auto fittable = c.names();
  auto all = c.names(true);
  EXPECT_GT(all.size(), fittable.size());
  EXPECT_NE(std::find(fittable.begin(), fittable.end(), "hopper.gemm_eff_bf16"), fittable.end());
  EXPECT_NE(std::find(fittable.begin(), fittable.end(), "blackwell_ultra.gemm_eff_nvfp4"),
            fittable.end());
  // Spec-derived figures are not offered to the fitter.
  EXPECT_EQ(std::find(fittable.begin(), fittable.end(), "hopper.nic_eff"), fittable.end());
  EXPECT_NE(std::find(all.begin(), all.end(), "hopper.nic_eff"), all.end());
  for (const auto& name : all)
    EXPECT_FALSE(c.source(name).empty()) << name << " has no source";
}

TEST(ModelConstants, GetSetByQualifiedNameWithBoundsAndSource) {
  ModelConstants c = ModelConstants::fit_start();
  ASSERT_TRUE(c.get("hopper.gemm_eff_bf16").has_value());
  EXPECT_TRUE(c.set("hopper.gemm_eff_bf16", 0.61, "fitted on rows 1-3"));
  EXPECT_DOUBLE_EQ(*c.get("hopper.gemm_eff_bf16"), 0.61);
  EXPECT_DOUBLE_EQ(c.of(GpuGeneration::kHopper).gemm_eff_bf16, 0.61);
  EXPECT_EQ(c.source("hopper.gemm_eff_bf16"), "fitted on rows 1-3");
  // Other generations keep theirs.
  EXPECT_DOUBLE_EQ(*c.get("blackwell.gemm_eff_bf16"),
                   *ModelConstants::fit_start().get("blackwell.gemm_eff_bf16"));
  EXPECT_FALSE(c.set("hopper.gemm_eff_bf16", 1.5, "out of bounds"));
  EXPECT_FALSE(c.set("hopper.no_such_constant", 0.5, "x"));
  EXPECT_FALSE(c.set("volta.gemm_eff_bf16", 0.5, "x"));
  EXPECT_FALSE(c.get("gemm_eff_bf16").has_value());
  EXPECT_EQ(c.source("nope"), "");
}

TEST(ModelConstants, HardwareTakesTheProfileGenerationsConstants) {
  ModelConstants c = ModelConstants::fit_start();
  ASSERT_TRUE(c.set("hopper.gemm_eff_bf16", 0.5, "test"));
  Hardware hw = hardware_from_profile(testing::dgx_h100(), c);
  EXPECT_EQ(hw.generation, GpuGeneration::kHopper);
  EXPECT_DOUBLE_EQ(hw.gemm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(hw.k.gemm_eff_bf16, 0.5);
  EXPECT_NEAR(hw.fp8_tflops, 2 * hw.peak_tflops, 5);
  EXPECT_EQ(hw.fp4_tflops, 0);
}

TEST(ModelConstants, TheHeaderHoldsNoValues) {
  // GenerationConstants has no initialisers: a value-initialised one is all zero, so every value
  // that runs comes from the shipped fit file (or, in the fitter and model tests, from the
  // catalogue's named starting points).
  GenerationConstants k{};
  for (const ConstantInfo& c : constant_catalog())
    EXPECT_EQ(k.*(c.member), 0.0) << c.name;
  // The catalogue names every member once (35 doubles).
  EXPECT_EQ(constant_catalog().size() * sizeof(double), sizeof(GenerationConstants));
}

TEST(ModelConstants, FitStartingPointsLieInsideTheirRanges) {
  for (const ModelConstants* set : {&ModelConstants::fit_start(), &ModelConstants::priors()}) {
    for (const std::string& q : set->names(true)) {
      const ConstantInfo* info = ModelConstants::info(q);
      ASSERT_NE(info, nullptr) << q;
      EXPECT_LE(info->min, info->max) << q;
      EXPECT_GE(*set->get(q), info->min) << q;
      EXPECT_LE(*set->get(q), info->max) << q;
      EXPECT_FALSE(set->source(q).empty()) << q;
    }
  }
}

TEST(ModelPrecision, ParsesBridgeRecipesAndSummaryLabels) {
  EXPECT_EQ(parse_precision("bf16_mixed"), Precision::kBf16);
  EXPECT_EQ(parse_precision("bf16_with_fp8_delayed_scaling_mixed"), Precision::kFp8Delayed);
  EXPECT_EQ(parse_precision("bf16_with_fp8_current_scaling_mixed"), Precision::kFp8Current);
  EXPECT_EQ(parse_precision("bf16_with_fp8_subchannel_scaling_mixed"), Precision::kFp8Block);
  EXPECT_EQ(parse_precision("bf16_with_mxfp8_mixed"), Precision::kMxfp8);
  EXPECT_EQ(parse_precision("bf16_with_nvfp4_mixed"), Precision::kNvfp4);
  EXPECT_EQ(parse_precision("FP8-CS"), Precision::kFp8Current);
  EXPECT_EQ(parse_precision("FP8-MX"), Precision::kMxfp8);
  EXPECT_EQ(parse_precision("NVFP4"), Precision::kNvfp4);
  EXPECT_EQ(parse_precision("fp8_block"), Precision::kFp8Block);
  EXPECT_FALSE(parse_precision("int4").has_value());
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

TEST(ModelConstants, FitGroupsShareSoftwareConstantsAndBlackwellGemmRates) {
  using G = GpuGeneration;
  // Passes over memory and overlap shares describe the software: one value for every generation.
  for (const char* name : {"elementwise_passes", "cast_passes", "ring_overlap", "ep_overlap",
                           "cuda_graph_overhead", "mamba_eff"}) {
    for (G g : {G::kAmpere, G::kHopper, G::kBlackwell, G::kBlackwellUltra})
      EXPECT_EQ(fit_group(name, g), "all") << name;
  }
  // Blackwell and Blackwell Ultra have the same BF16 and FP8 dense peaks (gpu_specs.cpp): one
  // rate; their FP4 peaks differ, and Hopper keeps its own.
  EXPECT_EQ(fit_group("gemm_eff_bf16", G::kBlackwell), "blackwell_family");
  EXPECT_EQ(fit_group("gemm_eff_bf16", G::kBlackwellUltra), "blackwell_family");
  EXPECT_EQ(fit_group("gemm_eff_mxfp8", G::kBlackwellUltra), "blackwell_family");
  EXPECT_EQ(fit_group("gemm_eff_nvfp4", G::kBlackwellUltra), "blackwell_ultra");
  EXPECT_EQ(fit_group("gemm_eff_bf16", G::kHopper), "hopper");
  // The kernel-shape and host constants of one architecture are one value for both Blackwells.
  for (const char* name :
       {"gemm_half_tokens", "gemm_half_width", "ep_a2a_nvlink_eff", "layer_overhead_s"}) {
    EXPECT_EQ(fit_group(name, G::kBlackwellUltra), "blackwell_family") << name;
    EXPECT_EQ(fit_group(name, G::kHopper), "hopper") << name;
  }
}

TEST(ModelConstants, KernelAndNicMeasurementsAreNotFitted) {
  // Attention rates (cuDNN kernels) and the all-to-all rate across domains (nccl-tests, DeepEP)
  // come from component measurements; fitted, they ended at a bound.
  auto fittable = ModelConstants::fit_start().names();
  // The GPU speed spread is a cluster measurement the corpus cannot see (no two rows differ in
  // GPU count alone).
  for (const char* name :
       {"hopper.attn_fwd_eff", "hopper.attn_bwd_eff", "blackwell.attn_fp8_eff",
        "blackwell.a2a_nic_eff", "hopper.a2a_nic_eff", "hopper.gpu_speed_spread"})
    EXPECT_EQ(std::find(fittable.begin(), fittable.end(), name), fittable.end()) << name;
  EXPECT_NE(std::find(fittable.begin(), fittable.end(), "hopper.ep_a2a_nvlink_eff"),
            fittable.end());
}

TEST(ModelConstants, CpAllToAllIsNotPricedByTheMoeDispatcherFit) {
  // No corpus row runs CP's a2a: its rate is NCCL's all-to-all, never fitted. The MoE
  // dispatcher's rate is fitted on the MoE rows, and only EP dispatch / combine use it.
  auto fittable = ModelConstants::fit_start().names();
  for (const char* name : {"hopper.a2a_nvlink_eff", "blackwell.a2a_nvlink_eff"})
    EXPECT_EQ(std::find(fittable.begin(), fittable.end(), name), fittable.end()) << name;
  for (const char* name : {"hopper.ep_a2a_nvlink_eff", "blackwell.ep_a2a_nvlink_eff"})
    EXPECT_NE(std::find(fittable.begin(), fittable.end(), name), fittable.end()) << name;
}

TEST(ModelConstants, CountedPassesAreNotOfferedToTheFitter) {
  const ModelConstants& c = ModelConstants::fit_start();
  auto fittable = c.names();
  for (const char* name :
       {"hopper.elementwise_passes", "hopper.cast_passes", "hopper.moe_permute_passes"}) {
    EXPECT_EQ(std::find(fittable.begin(), fittable.end(), name), fittable.end()) << name;
    EXPECT_NE(c.source(name).find("counted"), std::string::npos) << name;
  }
  const GenerationConstants& k = c.of(GpuGeneration::kHopper);
  EXPECT_DOUBLE_EQ(k.elementwise_passes, 55);
  EXPECT_DOUBLE_EQ(k.cast_passes, 30);
  EXPECT_DOUBLE_EQ(k.moe_permute_passes, 12);
}

}  // namespace
}  // namespace hcp
