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
  EXPECT_EQ(bridge[0].severity(), Severity::kError);
  env.framework = Framework::kMlm;
  auto mlm = findings(r, env, "CP006");
  ASSERT_EQ(mlm.size(), 1u);
  EXPECT_EQ(mlm[0].severity(), Severity::kInfo);
  r.set("model.tensor_model_parallel_size", Value::integer(2));
  EXPECT_FALSE(fires(r, env, "CP006"));
}

// Issue #15 finding 16: Bridge's eval batch divisibility and SFT collate multiple with eval CP.
TEST(TopologyRules, CP007EvalBatchAndCollatePaddingWithEvalCp) {
  auto eval = [](int64_t eval_cp, int64_t eval_gbs) {
    return run([=](Recipe& r, Environment& e) {
      r.set("dist.eval_context_parallel_size", I(eval_cp));
      r.set("dist.use_decentralized_pg", B(true));
      r.set("validation.eval_global_batch_size", I(eval_gbs));
      e.world_size = 16;  // TP2: eval CP 2 -> eval DP 4
    });
  };
  auto bad = eval(2, 6);
  EXPECT_TRUE(says(bad, "CP007", "eval_global_batch_size (6)")) << dump(bad);
  EXPECT_FALSE(has_id(eval(2, 8), "CP007")) << dump(eval(2, 8));
  auto sft = [](int64_t seq) {
    return run([=](Recipe& r, Environment&) {
      r.set("dist.eval_context_parallel_size", I(8));
      r.set("dist.use_decentralized_pg", B(true));
      r.set("dataset._target_",
            S("megatron.bridge.data.builders.hf_dataset.DirectHFSFTDatasetConfig"));
      r.set("dataset.seq_length", I(seq));
      r.set("model.seq_length", I(seq));
    });
  };
  // CP4 and eval CP8 with SP on TP2: lcm(8, 16, 8, 16) = 16.
  auto odd = sft(8200);
  EXPECT_TRUE(says(odd, "CP007", "collate padding multiple (16)")) << dump(odd);
  EXPECT_FALSE(has_id(sft(8192), "CP007")) << dump(sft(8192));
}

}  // namespace
}  // namespace hcp::test
