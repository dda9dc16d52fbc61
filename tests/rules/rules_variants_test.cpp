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
      {"CP101",
       [](Recipe& r, Environment&) {
         r.set("model.experimental_attention_variant", S("gdn"));
         r.set("model.linear_num_key_heads", I(4));
       },
       [](Recipe& r, Environment&) {
         r.set("model.experimental_attention_variant", S("gdn"));
         r.set("model.linear_num_key_heads", I(16));
       }},
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
    r.set("model.experimental_attention_variant", S("gated_delta_net"));
    r.set("model.linear_num_key_heads", I(4));
    r.set("model.linear_cp_mode", S("chunkwise"));
  });
  EXPECT_FALSE(has_id(ds, "CP101")) << dump(ds);
  auto headwise = run([](Recipe& r, Environment&) {
    r.set("model.experimental_attention_variant", S("gated_delta_net"));
    r.set("model.linear_num_key_heads", I(4));
    r.set("model.linear_cp_mode", S("headwise"));
  });
  EXPECT_TRUE(has_id(headwise, "CP101"));
}

// Issue #15: every full to_yaml dump carries linear_num_key_heads=16 (the GDN field default);
// upstream checks it only when experimental_attention_variant selects GDN.
TEST(VariantRules, LinearHeadsAreCheckedOnlyForTheGdnVariant) {
  auto dump_fields = [](Recipe& r, Environment&) {
    r.set("model.linear_num_key_heads", I(16));
    r.set("model.linear_num_value_heads", I(32));
    r.set("model.context_parallel_size", I(8));  // TP2 x CP8 = 16 divides; CP16 below does not
  };
  auto llama = run([&](Recipe& r, Environment& e) {
    dump_fields(r, e);
    r.set("model.context_parallel_size", I(16));
    e.world_size = 32;
  });
  EXPECT_FALSE(has_id(llama, "CP101")) << dump(llama);
  for (const char* variant : {"gdn", "gdn2", "gated_delta_net"}) {
    auto gdn = run([&](Recipe& r, Environment& e) {
      dump_fields(r, e);
      r.set("model.context_parallel_size", I(16));
      r.set("model.experimental_attention_variant", S(variant));
      e.world_size = 32;
    });
    EXPECT_TRUE(says(gdn, "CP101", "linear_num_key_heads=16 must be a multiple")) << variant;
  }
  auto dsa = run([&](Recipe& r, Environment& e) {
    dump_fields(r, e);
    r.set("model.context_parallel_size", I(16));
    r.set("model.experimental_attention_variant", S("dsa"));
    e.world_size = 32;
  });
  EXPECT_FALSE(has_id(dsa, "CP101"));
}

// Issue #15 finding 13: GDN has no CP implementation before MCore 0.18.
TEST(VariantRules, GdnWithCpNeedsMcore018) {
  auto at = [](int minor, int64_t cp) {
    return run([minor, cp](Recipe& r, Environment& e) {
      r.set("model.experimental_attention_variant", S("gated_delta_net"));
      r.set("model.linear_num_key_heads", I(16));
      r.set("model.linear_num_value_heads", I(32));
      r.set("model.context_parallel_size", I(cp));
      set_mcore(e, 0, minor);
    });
  };
  auto old = at(17, 4);
  EXPECT_TRUE(says(old, "CP101", "no context-parallel implementation")) << dump(old);
  EXPECT_EQ(severity_of(old, "CP101"), Severity::kError);
  EXPECT_FALSE(has_id(at(18, 4), "CP101"));
  EXPECT_FALSE(has_id(at(17, 1), "CP101"));
}

// Issue #15 finding 8: the batch-invariant CP check arrived in MCore 0.19.
TEST(VariantRules, BatchInvariantCpCheckFromMcore019) {
  auto at = [](int minor) {
    return run([minor](Recipe& r, Environment& e) {
      r.set("model.batch_invariant_mode", B(true));
      set_mcore(e, 0, minor);
    });
  };
  EXPECT_FALSE(has_id(at(18), "CP103"));
  EXPECT_TRUE(has_id(at(19), "CP103"));
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
