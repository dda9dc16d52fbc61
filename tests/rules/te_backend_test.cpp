// Tests of src/rules/te_backend.cpp: the TE attention-backend model the CP050-CP074 rules read
// (which settings turn FlashAttention and FusedAttention off, and the comm types TE runs).
#include "../../src/rules/te_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rule_test_util.h"

namespace hcp::test {
namespace {

using rules::backend_filters;
using rules::BackendFilters;

bool contains(const std::vector<std::string>& v, const std::string& item) {
  return std::find(v.begin(), v.end(), item) != v.end();
}

BackendFilters filters_of(const Recipe& recipe, const Environment& env, Version te) {
  return backend_filters(RuleContext{recipe, env}, te);
}

TEST(TeBackend, CleanConfigurationKeepsBothBackends) {
  Recipe recipe = gqa_cp4();
  Environment env = gqa_env();
  BackendFilters f = filters_of(recipe, env, *env.te_version);
  EXPECT_TRUE(f.flash_off.empty());
  EXPECT_TRUE(f.fused_off.empty());
  EXPECT_TRUE(rules::te_attention_with_cp(recipe));
  EXPECT_EQ(rules::backend(recipe), "auto");
}

TEST(TeBackend, AttentionBackendChoiceTurnsTheOtherOff) {
  Recipe recipe = gqa_cp4();
  Environment env = gqa_env();
  recipe.set("model.attention_backend", S("fused"));
  EXPECT_TRUE(
      contains(filters_of(recipe, env, *env.te_version).flash_off, "attention_backend=fused"));
  recipe.set("model.attention_backend", S("unfused"));
  BackendFilters f = filters_of(recipe, env, *env.te_version);
  EXPECT_TRUE(contains(f.flash_off, "attention_backend=unfused"));
  EXPECT_TRUE(contains(f.fused_off, "attention_backend=unfused"));
}

TEST(TeBackend, OldGpuTurnsBothOff) {
  Recipe recipe = gqa_cp4();
  Environment env = gqa_env();
  env.gpu_sm = 75;
  BackendFilters f = filters_of(recipe, env, *env.te_version);
  EXPECT_TRUE(contains(f.flash_off, "GPU below sm80"));
  EXPECT_TRUE(contains(f.fused_off, "GPU below sm80"));
}

TEST(TeBackend, Fp8AttentionNeedsFusedAndNotTheCustomRecipe) {
  Recipe recipe = gqa_cp4();
  recipe.set("model.fp8_dot_product_attention", B(true));
  EXPECT_TRUE(rules::fp8_attention(recipe));
  EXPECT_EQ(rules::fp8_recipe_of(recipe), "delayed");
  EXPECT_EQ(rules::fused_required_key(recipe), "model.fp8_dot_product_attention");
  recipe.set("model.fp8_recipe", S("custom"));
  EXPECT_FALSE(rules::fp8_attention(recipe));
}

TEST(TeBackend, SlidingWindowLayersAndTheirCommTypes) {
  Recipe recipe = gqa_cp4();
  EXPECT_FALSE(rules::is_swa_layer(recipe, 1));
  recipe.set("model.window_size", L({4095, 0}));
  recipe.set("model.window_attn_skip_freq", I(2));
  EXPECT_TRUE(rules::is_swa_layer(recipe, 1));
  EXPECT_FALSE(rules::is_swa_layer(recipe, 2));
  EXPECT_EQ(rules::swa_comm_types(recipe), std::vector<std::string>{"p2p"});
  Environment env = gqa_env();
  EXPECT_TRUE(
      contains(filters_of(recipe, env, *env.te_version).fused_off, "sliding window with p2p"));
  EXPECT_FALSE(contains(filters_of(recipe, env, Version{2, 14, 0, {}}).fused_off,
                        "sliding window with p2p"));
}

TEST(TeBackend, DegenerateHierarchicalSizesRunPlainComm) {
  Recipe recipe = llama_cp16();
  EXPECT_EQ(rules::effective_comm(recipe, "a2a+p2p"), "a2a+p2p");
  recipe.set("model.hierarchical_context_parallel_sizes", L({1, 16}));
  EXPECT_EQ(rules::effective_comm(recipe, "a2a+p2p"), "p2p");
  recipe.set("model.hierarchical_context_parallel_sizes", L({16, 1}));
  EXPECT_EQ(rules::effective_comm(recipe, "a2a+p2p"), "a2a");
  EXPECT_EQ(rules::distinct_comm_types(recipe), std::vector<std::string>{"a2a"});
  EXPECT_EQ(rules::configured_comm_types(recipe), std::vector<std::string>{"a2a+p2p"});
}

TEST(TeBackend, ActivationPrecisionNamesItsKey) {
  Recipe recipe = gqa_cp4();
  std::string key;
  recipe.set("model.bf16", B(true));
  EXPECT_EQ(rules::activation_precision(recipe, key), "half");
  EXPECT_EQ(key, "model.bf16");
  recipe.set("model.bf16", B(false));
  recipe.set("model.fp16", B(false));
  EXPECT_EQ(rules::activation_precision(recipe, key), "fp32");
}

}  // namespace
}  // namespace hcp::test
