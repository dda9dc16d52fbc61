// Tests of src/rules/rules_hcp.cpp: each rule fires and stays quiet, with its version boundaries,
// framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

TEST(HcpRules, CP010ReportsEachUnknownTypeOnce) {
  Recipe r = llama_cp16();
  r.set("model.context_parallel_size", Value::integer(2));
  r.set("model.num_layers", Value::integer(3));
  r.set("model.cp_comm_type", Value::list({Value::string("allgather"), Value::string("ring"),
                                           Value::string("allgather")}));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  auto f = findings(r, llama_env(), "CP010");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].message.find("all_gather"), std::string::npos);
}

// Issue #29: open Megatron-LM work adds cp_comm_type swa_p2p. With --mcore-version newer than
// the catalog's (core_v0.19.0) an unknown value is a warning that says so; with that version, an
// older one or none, it stays TE's error.
struct NewerValueCase {
  std::optional<std::pair<int, int>> mcore;
  std::optional<Severity> expected;
};

class Cp010UnderNewerMcore : public ::testing::TestWithParam<NewerValueCase> {};

TEST_P(Cp010UnderNewerMcore, WarnsOnlyPastTheCatalogsVersion) {
  Recipe r = llama_cp16();
  r.set("model.cp_comm_type", Value::string("swa_p2p"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = llama_env();
  env.mcore_version.reset();
  if (GetParam().mcore) set_mcore(env, GetParam().mcore->first, GetParam().mcore->second);
  auto f = findings(r, env, "CP010");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity(), GetParam().expected);
  bool newer = GetParam().expected == Severity::kWarning;
  EXPECT_EQ(f[0].message.find("may have added it") != std::string::npos, newer) << f[0].message;
}

INSTANTIATE_TEST_SUITE_P(
    Versions, Cp010UnderNewerMcore,
    ::testing::Values(NewerValueCase{std::nullopt, Severity::kError},
                      NewerValueCase{std::make_pair(0, 18), Severity::kError},
                      NewerValueCase{std::make_pair(0, 19), Severity::kError},
                      NewerValueCase{std::make_pair(0, 20), Severity::kWarning},
                      NewerValueCase{std::make_pair(1, 0), Severity::kWarning}));

TEST(HcpRules, CP010KnownValuesStayQuietUnderANewerMcore) {
  Recipe r = llama_cp16();
  r.set("model.cp_comm_type", Value::string("a2a"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = llama_env();
  set_mcore(env, 0, 20);
  EXPECT_FALSE(fires(r, env, "CP010"));
}

TEST(HcpRules, CP012IsCheckedEvenWithoutCp) {
  Recipe r = llama_cp16();
  r.set("model.context_parallel_size", Value::integer(1));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  EXPECT_TRUE(fires(r, llama_env(), "CP012"));
  EXPECT_TRUE(fires(r, llama_env(), "CP022"));
}

TEST(HcpRules, CP012FiresForAPerLayerListEntry) {
  Recipe r = llama_cp16();
  std::vector<Value> layers(32, Value::string("p2p"));
  layers[31] = Value::string("a2a+p2p");
  r.set("model.cp_comm_type", Value::list(layers, {"mem.yaml", 8, 3}));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  auto f = findings(r, llama_env(), "CP012");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 8);
  EXPECT_EQ(f[0].key, "model.cp_comm_type");
}

TEST(HcpRules, CP013IsCheckedWhateverTheCommType) {
  Recipe r = llama_cp16();
  r.set("model.cp_comm_type", Value::string("p2p"));
  r.set("model.hierarchical_context_parallel_sizes", L({4, 2}));
  EXPECT_TRUE(fires(r, llama_env(), "CP013"));
  EXPECT_TRUE(fires(r, llama_env(), "CP016"));
}

TEST(HcpRules, CP013LocatesTheHcpValue) {
  Recipe r = llama_cp16();
  r.set("model.hierarchical_context_parallel_sizes",
        Value::list({Value::integer(4), Value::integer(2)}, {"<override 2>", 1, 42}));
  auto f = findings(r, llama_env(), "CP013");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.str(), "<override 2>:1:42");
  EXPECT_EQ(f[0].enforced_by(), (std::vector<std::string>{"bridge", "mcore", "mlm"}));
  EXPECT_FALSE(f[0].fix().empty());
}

TEST(HcpRules, CP015NamesTheEffectiveType) {
  Recipe r = llama_cp16();
  r.set("model.hierarchical_context_parallel_sizes", L({16, 1}));
  r.set("model.num_query_groups", Value::integer(16));
  auto f = findings(r, llama_env(), "CP015");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("plain a2a"), std::string::npos);
}

TEST(HcpRules, CP017OnlyForBridge) {
  Recipe r = llama_cp16();
  r.set("dist.use_decentralized_pg", Value::boolean(true));
  Environment env = llama_env();
  EXPECT_TRUE(fires(r, env, "CP017"));
  env.framework = Framework::kMlm;
  EXPECT_FALSE(fires(r, env, "CP017"));
}

TEST(HcpRules, CP018VersionBoundary) {
  Environment env = llama_env();
  env.te_version = Version{1, 11, 9, ""};
  EXPECT_TRUE(fires(llama_cp16(), env, "CP018"));
  env.te_version = Version{1, 12, 0, ""};
  EXPECT_FALSE(fires(llama_cp16(), env, "CP018"));
}

// Issue #15 finding 6: MCore's TE >= 1.12 assert sits inside is_te_min_version("1.10.0").
TEST(HcpRules, CP018BelowTe110IsAWarning) {
  Environment env = llama_env();
  env.te_version = Version{1, 9, 0, ""};
  auto f = findings(llama_cp16(), env, "CP018");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity(), Severity::kWarning);
  EXPECT_NE(f[0].message.find("silently runs as p2p"), std::string::npos) << f[0].message;
  EXPECT_FALSE(fires(llama_cp16(), env, "CP019"));  // one finding, one place
  env.te_version = Version{1, 10, 0, ""};
  EXPECT_EQ(findings(llama_cp16(), env, "CP018").at(0).severity(), Severity::kError);
}

// Issue #15 finding 7: cp_comm_type reaches TE only when CP > 1.
TEST(HcpRules, CP010NotCheckedAtCp1) {
  Recipe r = llama_cp16();
  r.set("model.cp_comm_type", Value::string("allgather"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  EXPECT_TRUE(fires(r, llama_env(), "CP010"));
  r.set("model.context_parallel_size", Value::integer(1));
  EXPECT_FALSE(fires(r, llama_env(), "CP010"));
}

TEST(HcpRules, CP019OldTeSilentlyRunsP2p) {
  Recipe r = llama_cp16();
  r.set("model.cp_comm_type", Value::string("all_gather"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  Environment env = llama_env();
  env.te_version = Version{1, 9, 0, ""};
  auto f = findings(r, env, "CP019");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity(), Severity::kWarning);
  env.te_version = Version{1, 10, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP019"));
  env.te_version = Version{0, 9, 0, ""};
  EXPECT_EQ(findings(r, env, "CP019").at(0).severity(), Severity::kError);
}

TEST(HcpRules, CP020UsesTheNvlinkDomainWhenKnown) {
  Environment env = llama_env();
  env.gpus_per_node = 4;
  EXPECT_TRUE(fires(llama_cp16(), env, "CP020"));
  env.nvlink_domain = 72;  // GB200 NVL72: 4-GPU nodes, one NVLink domain of 72
  EXPECT_FALSE(fires(llama_cp16(), env, "CP020"));
  env.nvlink_domain.reset();
  env.gpus_per_node = 8;
  Recipe r = llama_cp16();
  r.set("model.tensor_model_parallel_size", Value::integer(2));  // spans 16 ranks
  EXPECT_TRUE(fires(r, env, "CP020"));
}

// The world size decides whether a non-dividing a2a block actually crosses a domain boundary.
TEST(HcpRules, CP020CountsOnlyBlocksThatCrossADomain) {
  Recipe r = llama_cp16();
  r.set("model.tensor_model_parallel_size", Value::integer(2));  // span TP*HCP[0] = 16
  r.set("train.global_batch_size", Value::integer(2));
  Environment env = llama_env();
  env.nvlink_domain = 72;
  env.world_size = 64;  // blocks 0-15 .. 48-63, all inside the first 72
  EXPECT_FALSE(fires(r, env, "CP020"));
  env.world_size = 160;  // block 64-79 crosses 72
  EXPECT_TRUE(fires(r, env, "CP020"));
}

TEST(HcpRules, CP020StraddlingNodes) {
  Recipe r = llama_cp16();
  r.set("model.context_parallel_size", Value::integer(12));
  r.set("model.hierarchical_context_parallel_sizes", L({6, 2}));
  Environment env = llama_env();
  env.world_size = 48;
  auto f = findings(r, env, "CP020");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("straddle"), std::string::npos) << f[0].message;
}

TEST(HcpRules, CP021OnlyBetweenMcore010And017) {
  Recipe r = llama_cp16();
  r.set("model.cp_comm_type", Value::list(std::vector<Value>(32, Value::string("a2a+p2p"))));
  Environment env = llama_env();
  env.mcore_version = Version{0, 16, 1, ""};
  EXPECT_TRUE(fires(r, env, "CP021"));
  env.mcore_version = Version{0, 9, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP021"));
  env.mcore_version = Version{0, 17, 0, ""};
  EXPECT_FALSE(fires(r, env, "CP021"));
}

TEST(HcpRules, CP023HybridWithHierarchicalSizes) {
  Recipe r = llama_cp16();
  r.set("model.hybrid_context_parallel", Value::boolean(true));
  auto f = findings(r, llama_env(), "CP023");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity(), Severity::kInfo);
  r.set("model.cp_comm_type", Value::string("p2p"));
  r.set("model.hierarchical_context_parallel_sizes", Value::null());
  EXPECT_FALSE(fires(r, llama_env(), "CP023"));
}

}  // namespace
}  // namespace hcp::test
