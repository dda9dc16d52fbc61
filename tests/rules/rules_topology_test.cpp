// Tests of src/rules/rules_topology.cpp: each rule fires and stays quiet, with its version
// boundaries, framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

TEST(TopologyRules, CP001CountsTheGtpFactor) {
  Recipe r = llama_cp16();
  r.set("model.tensor_model_parallel_size", Value::integer(2));
  r.set("model.context_parallel_size", Value::integer(8));
  r.set("model.hierarchical_context_parallel_sizes", L({4, 2}));
  EXPECT_FALSE(fires(r, llama_env(), "CP001"));
  r.set("model.tensor_parallel_num_weight_shards", Value::integer(8));  // factor 4: 2*8*4 = 64
  auto f = findings(r, llama_env(), "CP001");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("= 64"), std::string::npos) << f[0].message;
}

TEST(TopologyRules, CP002FiresOnInMemoryZeroSizes) {
  Recipe r = llama_cp16();
  r.set("model.context_parallel_size", Value::integer(0));
  EXPECT_TRUE(fires(r, llama_env(), "CP002"));
  r = llama_cp16();
  r.set("model.context_parallel_size", Value::string("four"));
  EXPECT_TRUE(fires(r, llama_env(), "CP002"));
  EXPECT_FALSE(fires(llama_cp16(), llama_env(), "CP002"));
}

TEST(TopologyRules, CP003UsesDpThatCpShrinks) {
  Recipe r = llama_cp16();
  r.set("train.global_batch_size", Value::integer(6));  // DP = 2: 6 % 2 == 0
  EXPECT_FALSE(fires(r, llama_env(), "CP003"));
  r.set("model.context_parallel_size", Value::integer(8));  // DP = 4: 6 % 4 != 0
  r.set("model.hierarchical_context_parallel_sizes", L({4, 2}));
  EXPECT_TRUE(fires(r, llama_env(), "CP003"));
}

TEST(TopologyRules, CP005RankOrderingNeedsEqualDataParallelSizes) {
  Recipe r = llama_cp16();
  r.set("model.pipeline_model_parallel_size", Value::integer(2));
  r.set("model.context_parallel_size", Value::integer(8));
  r.set("model.hierarchical_context_parallel_sizes", L({4, 2}));
  r.set("model.num_moe_experts", Value::integer(8));
  r.set("model.expert_model_parallel_size", Value::integer(2));
  r.set("dist.use_tp_pp_dp_mapping", Value::boolean(true));
  EXPECT_TRUE(fires(r, llama_env(), "CP005"));  // TP*CP = 8, ETP*EP = 2
  r.set("model.expert_model_parallel_size", Value::integer(8));
  EXPECT_FALSE(fires(r, llama_env(), "CP005"));
}

TEST(TopologyRules, CP006IsAnErrorInBridgeAndAnInfoInMlm) {
  Recipe r = llama_cp16();
  r.set("model.sequence_parallel", Value::boolean(true));
  Environment env = llama_env();
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

}  // namespace
}  // namespace hcp::test
