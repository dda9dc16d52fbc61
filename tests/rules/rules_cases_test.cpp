// Focused cases of rules CP001–CP049 on recipes built in memory: the derived quantities of
// rules.md §0.3, framework semantics, version boundaries and locations.
#include <gtest/gtest.h>

#include <algorithm>

#include "hcp/rules.h"

namespace hcp {
namespace {

/// A Llama-3-8B-like recipe: 32 layers, 32 heads, 8 KV heads, S=131072, CP16 a2a+p2p [8,2].
Recipe base_recipe() {
  Recipe r;
  r.path = "mem.yaml";
  r.set("model.num_layers", Value::integer(32, {"mem.yaml", 2, 3}));
  r.set("model.num_attention_heads", Value::integer(32, {"mem.yaml", 3, 3}));
  r.set("model.num_query_groups", Value::integer(8, {"mem.yaml", 4, 3}));
  r.set("model.seq_length", Value::integer(131072, {"mem.yaml", 5, 3}));
  r.set("model.tensor_model_parallel_size", Value::integer(1, {"mem.yaml", 6, 3}));
  r.set("model.context_parallel_size", Value::integer(16, {"mem.yaml", 7, 3}));
  r.set("model.cp_comm_type", Value::string("a2a+p2p", {"mem.yaml", 8, 3}));
  r.set("model.hierarchical_context_parallel_sizes",
        Value::list({Value::integer(8), Value::integer(2)}, {"mem.yaml", 9, 3}));
  r.set("dataset.seq_length", Value::integer(131072, {"mem.yaml", 11, 3}));
  r.set("train.global_batch_size", Value::integer(32, {"mem.yaml", 13, 3}));
  r.set("train.micro_batch_size", Value::integer(1, {"mem.yaml", 14, 3}));
  return r;
}

Environment full_env() {
  Environment env;
  env.world_size = 32;
  env.gpus_per_node = 8;
  env.te_version = Version{2, 18, 0, ""};
  env.mcore_version = Version{0, 17, 0, ""};
  return env;
}

std::vector<Diagnostic> findings(const Recipe& r, const Environment& env, std::string_view id) {
  std::vector<Diagnostic> out;
  for (Diagnostic& d : check_rules(r, env)) {
    if (d.id == id) out.push_back(std::move(d));
  }
  return out;
}

bool fires(const Recipe& r, const Environment& env, std::string_view id) {
  return !findings(r, env, id).empty();
}

Value ints(std::vector<int64_t> v) {
  std::vector<Value> items;
  for (int64_t x : v)
    items.push_back(Value::integer(x));
  return Value::list(items);
}

TEST(Cases, BaseRecipeIsClean) {
  auto diagnostics = check_rules(base_recipe(), full_env());
  Summary s = summarize(diagnostics);
  EXPECT_EQ(s.errors + s.warnings, 0);
}

// §1 -----------------------------------------------------------------------------------------

TEST(Cases, CP001CountsTheGtpFactor) {
  Recipe r = base_recipe();
  r.set("model.tensor_model_parallel_size", Value::integer(2));
  r.set("model.context_parallel_size", Value::integer(8));
  r.set("model.hierarchical_context_parallel_sizes", ints({4, 2}));
  EXPECT_FALSE(fires(r, full_env(), "CP001"));
  r.set("model.tensor_parallel_num_weight_shards", Value::integer(8));  // factor 4: 2*8*4 = 64
  auto f = findings(r, full_env(), "CP001");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("= 64"), std::string::npos) << f[0].message;
}

TEST(Cases, CP002FiresOnInMemoryZeroSizes) {
  Recipe r = base_recipe();
  r.set("model.context_parallel_size", Value::integer(0));
  EXPECT_TRUE(fires(r, full_env(), "CP002"));
  r = base_recipe();
  r.set("model.context_parallel_size", Value::string("four"));
  EXPECT_TRUE(fires(r, full_env(), "CP002"));
  EXPECT_FALSE(fires(base_recipe(), full_env(), "CP002"));
}

TEST(Cases, CP003UsesDpThatCpShrinks) {
  Recipe r = base_recipe();
  r.set("train.global_batch_size", Value::integer(6));  // DP = 2: 6 % 2 == 0
  EXPECT_FALSE(fires(r, full_env(), "CP003"));
  r.set("model.context_parallel_size", Value::integer(8));  // DP = 4: 6 % 4 != 0
  r.set("model.hierarchical_context_parallel_sizes", ints({4, 2}));
  EXPECT_TRUE(fires(r, full_env(), "CP003"));
}

TEST(Cases, CP005RankOrderingNeedsEqualDataParallelSizes) {
  Recipe r = base_recipe();
  r.set("model.pipeline_model_parallel_size", Value::integer(2));
  r.set("model.context_parallel_size", Value::integer(8));
  r.set("model.hierarchical_context_parallel_sizes", ints({4, 2}));
  r.set("model.num_moe_experts", Value::integer(8));
  r.set("model.expert_model_parallel_size", Value::integer(2));
  r.set("dist.use_tp_pp_dp_mapping", Value::boolean(true));
  EXPECT_TRUE(fires(r, full_env(), "CP005"));  // TP*CP = 8, ETP*EP = 2
  r.set("model.expert_model_parallel_size", Value::integer(8));
  EXPECT_FALSE(fires(r, full_env(), "CP005"));
}

TEST(Cases, CP006IsAnErrorInBridgeAndAnInfoInMlm) {
  Recipe r = base_recipe();
  r.set("model.sequence_parallel", Value::boolean(true));
  Environment env = full_env();
  auto bridge = findings(r, env, "CP006");
  ASSERT_EQ(bridge.size(), 1u);
  EXPECT_EQ(bridge[0].severity, Severity::kError);
  env.framework = Framework::kMlm;
  auto mlm = findings(r, env, "CP006");
  ASSERT_EQ(mlm.size(), 1u);
  EXPECT_EQ(mlm[0].severity, Severity::kInfo);
  r.set("model.tensor_model_parallel_size", Value::integer(2));
  EXPECT_FALSE(fires(r, env, "CP006"));
}

// §2 -----------------------------------------------------------------------------------------

TEST(Cases, CP010ReportsEachUnknownTypeOnce) {
  Recipe r = base_recipe();
  r.set("model.context_parallel_size", Value::integer(2));
  r.set("model.num_layers", Value::integer(3));
  r.set("model.cp_comm_type", Value::list({Value::string("allgather"), Value::string("ring"),
                                           Value::string("allgather")}));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  auto f = findings(r, full_env(), "CP010");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].message.find("all_gather"), std::string::npos);
}

TEST(Cases, CP012IsCheckedEvenWithoutCp) {
  Recipe r = base_recipe();
  r.set("model.context_parallel_size", Value::integer(1));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  EXPECT_TRUE(fires(r, full_env(), "CP012"));
  EXPECT_TRUE(fires(r, full_env(), "CP022"));
}

TEST(Cases, CP012FiresForAPerLayerListEntry) {
  Recipe r = base_recipe();
  std::vector<Value> layers(32, Value::string("p2p"));
  layers[31] = Value::string("a2a+p2p");
  r.set("model.cp_comm_type", Value::list(layers, {"mem.yaml", 8, 3}));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  auto f = findings(r, full_env(), "CP012");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 8);
  EXPECT_EQ(f[0].key, "model.cp_comm_type");
}

TEST(Cases, CP013IsCheckedWhateverTheCommType) {
  Recipe r = base_recipe();
  r.set("model.cp_comm_type", Value::string("p2p"));
  r.set("model.hierarchical_context_parallel_sizes", ints({4, 2}));
  EXPECT_TRUE(fires(r, full_env(), "CP013"));
  EXPECT_TRUE(fires(r, full_env(), "CP016"));
}

TEST(Cases, CP013LocatesTheHcpValue) {
  Recipe r = base_recipe();
  r.set("model.hierarchical_context_parallel_sizes",
        Value::list({Value::integer(4), Value::integer(2)}, {"<override 2>", 1, 42}));
  auto f = findings(r, full_env(), "CP013");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.str(), "<override 2>:1:42");
  EXPECT_EQ(f[0].enforced_by, (std::vector<std::string>{"bridge", "mcore", "mlm"}));
  EXPECT_FALSE(f[0].fix.empty());
}

TEST(Cases, CP015NamesTheEffectiveType) {
  Recipe r = base_recipe();
  r.set("model.hierarchical_context_parallel_sizes", ints({16, 1}));
  r.set("model.num_query_groups", Value::integer(16));
  auto f = findings(r, full_env(), "CP015");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("plain a2a"), std::string::npos);
}

TEST(Cases, CP017OnlyForBridge) {
  Recipe r = base_recipe();
  r.set("dist.use_decentralized_pg", Value::boolean(true));
  Environment env = full_env();
  EXPECT_TRUE(fires(r, env, "CP017"));
  env.framework = Framework::kMlm;
  EXPECT_FALSE(fires(r, env, "CP017"));
}

TEST(Cases, CP018VersionBoundary) {
  Environment env = full_env();
  env.te_version = Version{1, 11, 9, ""};
  EXPECT_TRUE(fires(base_recipe(), env, "CP018"));
  env.te_version = Version{1, 12, 0, ""};
  EXPECT_FALSE(fires(base_recipe(), env, "CP018"));
}

TEST(Cases, CP019OldTeSilentlyRunsP2p) {
  Recipe r = base_recipe();
  r.set("model.cp_comm_type", Value::string("all_gather"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = full_env();
  env.te_version = Version{1, 9, 0, ""};
  auto f = findings(r, env, "CP019");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  env.te_version = Version{1, 10, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP019"));
  env.te_version = Version{0, 9, 0, ""};
  EXPECT_EQ(findings(r, env, "CP019").at(0).severity, Severity::kError);
}

TEST(Cases, CP020UsesTheNvlinkDomainWhenKnown) {
  Environment env = full_env();
  env.gpus_per_node = 4;
  EXPECT_TRUE(fires(base_recipe(), env, "CP020"));
  env.nvlink_domain = 72;  // GB200 NVL72: 4-GPU nodes, one NVLink domain of 72
  EXPECT_FALSE(fires(base_recipe(), env, "CP020"));
  env.nvlink_domain.reset();
  env.gpus_per_node = 8;
  Recipe r = base_recipe();
  r.set("model.tensor_model_parallel_size", Value::integer(2));  // spans 16 ranks
  EXPECT_TRUE(fires(r, env, "CP020"));
}

TEST(Cases, CP020StraddlingNodes) {
  Recipe r = base_recipe();
  r.set("model.context_parallel_size", Value::integer(12));
  r.set("model.hierarchical_context_parallel_sizes", ints({6, 2}));
  Environment env = full_env();
  env.world_size = 48;
  auto f = findings(r, env, "CP020");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("straddle"), std::string::npos) << f[0].message;
}

TEST(Cases, CP021OnlyBetweenMcore010And017) {
  Recipe r = base_recipe();
  r.set("model.cp_comm_type", Value::list(std::vector<Value>(32, Value::string("a2a+p2p"))));
  Environment env = full_env();
  env.mcore_version = Version{0, 16, 1, ""};
  EXPECT_TRUE(fires(r, env, "CP021"));
  env.mcore_version = Version{0, 9, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP021"));
  env.mcore_version = Version{0, 17, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP021"));
}

TEST(Cases, CP023HybridWithHierarchicalSizes) {
  Recipe r = base_recipe();
  r.set("model.hybrid_context_parallel", Value::boolean(true));
  auto f = findings(r, full_env(), "CP023");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  r.set("model.cp_comm_type", Value::string("p2p"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  EXPECT_FALSE(fires(r, full_env(), "CP023"));
}

// §3 -----------------------------------------------------------------------------------------

TEST(Cases, CP031DivisorNeedsMcore016) {
  Recipe r = base_recipe();
  r.set("model.num_query_groups", Value::integer(2));
  r.set("model.tensor_model_parallel_size", Value::integer(8));
  r.set("model.context_parallel_size", Value::integer(2));
  r.set("model.cp_comm_type", Value::string("p2p"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = full_env();
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

TEST(Cases, CP032KvHeadsAreReplicatedBelowTp) {
  // G = 2 < TP = 8: Hkv_loc = 1, so a2a is impossible for any CP > 1 (rules.md §0.3).
  Recipe r = base_recipe();
  r.set("model.num_query_groups", Value::integer(2));
  r.set("model.tensor_model_parallel_size", Value::integer(8));
  r.set("model.context_parallel_size", Value::integer(2));
  r.set("model.cp_comm_type", Value::string("a2a"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = full_env();
  env.world_size = 16;
  auto f = findings(r, env, "CP032");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("num_heads_kv = 1"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].key, "model.num_query_groups");
  r.set("model.num_query_groups", Value::integer(16));  // Hkv_loc = 2
  EXPECT_FALSE(fires(r, env, "CP032"));
}

TEST(Cases, CP033A2aLevelBeyondKvHeadsPerTpRank) {
  Recipe r = base_recipe();
  r.set("model.tensor_model_parallel_size", Value::integer(2));  // Hkv_loc = 4 < HCP[0] = 8
  auto f = findings(r, full_env(), "CP033");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("num_heads_kv = 4"), std::string::npos) << f[0].message;
  r.set("model.hierarchical_context_parallel_sizes", ints({4, 4}));
  EXPECT_FALSE(fires(r, full_env(), "CP033"));
}

TEST(Cases, CP034BecomesAnErrorWhenFusedAttentionIsRequired) {
  Recipe r = base_recipe();
  r.set("model.num_query_groups", Value::integer(1));
  r.set("model.hierarchical_context_parallel_sizes", ints({1, 16}));
  Environment env = full_env();
  EXPECT_EQ(findings(r, env, "CP034").at(0).severity, Severity::kWarning);
  r.set("model.attention_backend", Value::string("fused"));
  EXPECT_EQ(findings(r, env, "CP034").at(0).severity, Severity::kError);
  env.te_version = Version{2, 14, 0, ""};  // the filter arrived in TE 2.15
  EXPECT_FALSE(fires(r, env, "CP034"));
}

TEST(Cases, CP035ChecksEveryPowerOfTwoGroup) {
  Recipe r = base_recipe();
  r.set("model.hybrid_context_parallel", Value::boolean(true));
  r.set("model.cp_comm_type", Value::string("a2a"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  r.set("model.context_parallel_size", Value::integer(4));
  Environment env = full_env();
  env.world_size = 8;  // DP*CP = 8: groups of 2, 4, 8 and Hkv_loc = 8
  EXPECT_FALSE(fires(r, env, "CP035"));
  env.world_size = 16;  // groups up to 16
  EXPECT_TRUE(fires(r, env, "CP035"));
}

// §4 -----------------------------------------------------------------------------------------

TEST(Cases, CP040FallsBackToDatasetSeqLength) {
  Recipe r = base_recipe();
  r.root.get("model")->erase("seq_length");
  r.set("dataset.seq_length", Value::integer(131000, {"mem.yaml", 11, 3}));
  auto f = findings(r, full_env(), "CP040");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "dataset.seq_length");
}

TEST(Cases, CP041SuggestsTheLcm) {
  Recipe r = base_recipe();
  r.set("model.tensor_model_parallel_size", Value::integer(4));
  r.set("model.sequence_parallel", Value::boolean(true));
  r.set("model.seq_length", Value::integer(131104));
  r.set("dataset.seq_length", Value::integer(131104));
  auto f = findings(r, full_env(), "CP041");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].fix.find("lcm(2*CP, TP*CP) = 64"), std::string::npos) << f[0].fix;
}

TEST(Cases, CP045AndCP046ForPackedFinetuning) {
  Recipe r = base_recipe();
  r.set("dataset.enable_offline_packing", Value::boolean(true));
  r.set("dataset.offline_packing_specs.pad_seq_to_mult", Value::integer(32));
  r.set("ddp.average_in_collective", Value::boolean(true));
  r.set("train.micro_batch_size", Value::integer(2));
  EXPECT_EQ(findings(r, full_env(), "CP045").size(), 2u);  // per-token loss and averaging
  EXPECT_TRUE(fires(r, full_env(), "CP046"));
  EXPECT_FALSE(fires(r, full_env(), "CP043"));
  r.set("model.calculate_per_token_loss", Value::boolean(true));
  r.set("ddp.average_in_collective", Value::boolean(false));
  r.set("train.micro_batch_size", Value::integer(1));
  EXPECT_FALSE(fires(r, full_env(), "CP045"));
  EXPECT_FALSE(fires(r, full_env(), "CP046"));
}

TEST(Cases, CP043DefaultPaddingIsOne) {
  Recipe r = base_recipe();
  r.set("dataset.enable_offline_packing", Value::boolean(true));
  auto f = findings(r, full_env(), "CP043");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("multiple of 1"), std::string::npos) << f[0].message;
}

TEST(Cases, CP048CountsMicroBatchTokens) {
  Recipe r = base_recipe();
  r.set("model.fp8", Value::string("hybrid"));
  r.set("model.seq_length", Value::integer(131136));
  r.set("dataset.seq_length", Value::integer(131136));
  EXPECT_TRUE(fires(r, full_env(), "CP048"));  // 8196 tokens per rank
  r.set("train.micro_batch_size", Value::integer(2));
  EXPECT_FALSE(fires(r, full_env(), "CP048"));  // 16392
}

TEST(Cases, PackedRulesNeedVersionsOrSayTheySkipped) {
  Recipe r = base_recipe();
  r.set("dataset.enable_offline_packing", Value::boolean(true));
  r.set("model.apply_rope_fusion", Value::boolean(true));
  Environment env;
  env.world_size = 32;
  auto all = check_rules(r, env);
  auto info = std::find_if(all.begin(), all.end(), [](const Diagnostic& d) {
    return d.message.rfind("Transformer Engine version unknown", 0) == 0;
  });
  ASSERT_NE(info, all.end());
  EXPECT_NE(info->message.find("CP044"), std::string::npos) << info->message;
  EXPECT_NE(info->message.find("CP049"), std::string::npos) << info->message;
  env.te_version = Version{1, 9, 0, ""};
  env.mcore_version = Version{0, 17, 0, ""};
  EXPECT_TRUE(fires(r, env, "CP044"));
  EXPECT_TRUE(fires(r, env, "CP047"));
  EXPECT_TRUE(fires(r, env, "CP049"));
}

}  // namespace
}  // namespace hcp
