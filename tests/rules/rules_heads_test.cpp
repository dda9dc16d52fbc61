// Tests of src/rules/rules_heads.cpp: each rule fires and stays quiet, with its version boundaries,
// framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

TEST(HeadsRules, CP031DivisorNeedsMcore016) {
  Recipe r = llama_cp16();
  r.set("model.num_query_groups", Value::integer(2));
  r.set("model.tensor_model_parallel_size", Value::integer(8));
  r.set("model.context_parallel_size", Value::integer(2));
  r.set("model.cp_comm_type", Value::string("p2p"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = llama_env();
  env.world_size = 16;
  env.mcore_version = Version{0, 15, 3, ""};
  EXPECT_TRUE(fires(r, env, "CP031"));
  env.mcore_version = Version{0, 16, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP031"));
  env.mcore_version.reset();
  auto all = check_rules(r, env);
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const Diagnostic& d) {
    return d.message.find("assumed MCore >= 0.16 for CP031") != std::string::npos;
  }));
}

TEST(HeadsRules, CP032KvHeadsAreReplicatedBelowTp) {
  // G = 2 < TP = 8: Hkv_loc = 1, so a2a is impossible for any CP > 1 (rules.md §0.3).
  Recipe r = llama_cp16();
  r.set("model.num_query_groups", Value::integer(2));
  r.set("model.tensor_model_parallel_size", Value::integer(8));
  r.set("model.context_parallel_size", Value::integer(2));
  r.set("model.cp_comm_type", Value::string("a2a"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = llama_env();
  env.world_size = 16;
  auto f = findings(r, env, "CP032");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("num_heads_kv = 1"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].key, "model.num_query_groups");
  r.set("model.num_query_groups", Value::integer(16));  // Hkv_loc = 2
  EXPECT_FALSE(fires(r, env, "CP032"));
}

TEST(HeadsRules, CP033A2aLevelBeyondKvHeadsPerTpRank) {
  Recipe r = llama_cp16();
  r.set("model.tensor_model_parallel_size", Value::integer(2));  // Hkv_loc = 4 < HCP[0] = 8
  auto f = findings(r, llama_env(), "CP033");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("num_heads_kv = 4"), std::string::npos) << f[0].message;
  r.set("model.hierarchical_context_parallel_sizes", L({4, 4}));
  EXPECT_FALSE(fires(r, llama_env(), "CP033"));
}

TEST(HeadsRules, CP034BecomesAnErrorWhenFusedAttentionIsRequired) {
  Recipe r = llama_cp16();
  r.set("model.num_query_groups", Value::integer(1));
  r.set("model.hierarchical_context_parallel_sizes", L({1, 16}));
  Environment env = llama_env();
  EXPECT_EQ(findings(r, env, "CP034").at(0).severity(), Severity::kWarning);
  r.set("model.attention_backend", Value::string("fused"));
  EXPECT_EQ(findings(r, env, "CP034").at(0).severity(), Severity::kError);
  env.te_version = Version{2, 14, 0, ""};  // the filter arrived in TE 2.15
  EXPECT_FALSE(fires(r, env, "CP034"));
}

TEST(HeadsRules, CP035ChecksEveryPowerOfTwoGroup) {
  Recipe r = llama_cp16();
  r.set("model.hybrid_context_parallel", Value::boolean(true));
  r.set("model.cp_comm_type", Value::string("a2a"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  r.set("model.context_parallel_size", Value::integer(4));
  Environment env = llama_env();
  env.world_size = 8;  // DP*CP = 8: groups of 2, 4, 8 and Hkv_loc = 8
  EXPECT_FALSE(fires(r, env, "CP035"));
  env.world_size = 16;  // groups up to 16
  EXPECT_TRUE(fires(r, env, "CP035"));
}

// CP116: GQA needs the heads divisible by the query groups, whatever the layout (TE
// dot_product_attention.py:741-743; MCore divides by G itself below TP, attention.py:353-379).
TEST(HeadsRules, CP116HeadsMustBeAMultipleOfTheQueryGroups) {
  struct Case {
    const char* name;
    std::optional<int64_t> groups;  // nullopt: unset (= heads)
    int64_t tp;
    bool fires;
  };
  for (const Case& c : std::vector<Case>{
           {"3 groups of 32 heads", 3, 1, true},
           {"3 groups below TP 8 (MCore divides by G)", 3, 8, true},
           {"more groups (64) than heads (32)", 64, 1, true},
           {"5 groups, TP 1", 5, 1, true},
           {"8 groups", 8, 1, false},
           {"1 group (MQA)", 1, 1, false},
           {"32 groups (MHA)", 32, 1, false},
           {"2 groups below TP 8", 2, 8, false},
           {"unset: one per head", std::nullopt, 1, false},
       }) {
    Recipe r = llama_cp16();
    r.set("model.cp_comm_type", S("p2p"));
    r.set("model.hierarchical_context_parallel_sizes", Value::null());
    r.set("model.tensor_model_parallel_size", I(c.tp));
    if (c.groups) {
      r.set("model.num_query_groups", Value::integer(*c.groups, {"mem.yaml", 4, 3}));
    } else {
      r.set("model.num_query_groups", Value::null());
    }
    auto f = findings(r, llama_env(), "CP116");
    ASSERT_EQ(f.size(), c.fires ? 1u : 0u) << c.name << "\n" << dump(check_rules(r, llama_env()));
    // The model alone decides it: plan and compare stop on model_error() before any layout.
    EXPECT_EQ(model_error(r).has_value(), c.fires) << c.name;
    if (!c.fires) continue;
    EXPECT_EQ(f[0].severity(), Severity::kError) << c.name;
    EXPECT_EQ(f[0].key, "model.num_query_groups") << c.name;
    EXPECT_EQ(f[0].location.line, 4) << c.name;
    EXPECT_EQ(model_error(r)->message.rfind("[CP116] num_attention_heads (32) must be a multiple "
                                            "of num_query_groups (" +
                                                std::to_string(*c.groups) + ")",
                                            0),
              0u)
        << model_error(r)->message;
    EXPECT_EQ(model_error(r)->location.line, 4) << c.name;
  }
}

TEST(HeadsRules, CP116IsTheOnlyWholeModelRuleAndLayoutRulesDoNotStopPlan) {
  // A layout-dependent error (CP030: heads not divisible by TP 3) is not a model error.
  Recipe r = llama_cp16();
  r.set("model.tensor_model_parallel_size", I(3));
  EXPECT_TRUE(fires(r, llama_env(), "CP030"));
  EXPECT_FALSE(model_error(r));
  for (const Rule& rule : rule_registry())
    EXPECT_EQ(rule.whole_model, rule.id == "CP116") << rule.id;
}

}  // namespace
}  // namespace hcp::test
