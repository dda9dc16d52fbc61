// Tests of src/rules/rules_variants.cpp: each rule fires and stays quiet, with its version
// boundaries, framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

std::vector<RuleCase> variants_cases() {
  return {
      {"CP100",
       [](Recipe& r, Environment&) { r.set("model.experimental_attention_variant", S("dsa")); },
       [](Recipe& r, Environment&) {
         r.set("model.experimental_attention_variant", S("dsa"));
         r.set("model.cp_comm_type", S("allgather"));
       }},
      {"CP101", [](Recipe& r, Environment&) { r.set("model.linear_num_key_heads", I(4)); },
       [](Recipe& r, Environment&) { r.set("model.linear_num_key_heads", I(16)); }},
      {"CP102",
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_layer_pattern", S("M*M*"));
         r.set("model.mamba_num_heads", I(12));
       },
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_layer_pattern", S("M*M*"));
         r.set("model.mamba_num_heads", I(64));
       }},
      {"CP103", [](Recipe& r, Environment&) { r.set("model.batch_invariant_mode", B(true)); },
       [](Recipe& r, Environment&) {
         r.set("model.batch_invariant_mode", B(true));
         r.set("model.context_parallel_size", I(1));
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(Variant, RuleCaseTest, ::testing::ValuesIn(variants_cases()), case_name);

TEST(VariantRules, EveryRuleHasACase) {
  expect_family_covered("variants", variants_cases());
}

TEST(VariantRules, GdnChunkwiseDividesByTpOnly) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.linear_num_key_heads", I(4));
    r.set("model.linear_cp_mode", S("chunkwise"));
  });
  EXPECT_FALSE(has_id(ds, "CP101"));
}

TEST(VariantRules, MambaGroupsFewerThanCpMustDivideIt) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.hybrid_layer_pattern", S("M*"));
    r.set("model.mamba_num_heads", I(64));
    r.set("model.mamba_num_groups", I(6));  // 3 per TP rank, CP=4
  });
  EXPECT_TRUE(has_id(ds, "CP102"));
}

}  // namespace
}  // namespace hcp::test
