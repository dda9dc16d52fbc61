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

// Issue #29: Bridge's TransformerConfig.finalize() turns sequence_parallel off when TP <= 1
// (Megatron-Bridge 067f987d models/transformer_config.py:175-176) before MCore's check could
// raise, so the run trains without SP in both frameworks: an info, never an error.
TEST(TopologyRules, CP006IsAnInfoInBridgeAndMlmBecauseBothTurnSpOff) {
  Recipe r = llama_cp16();
  r.set("model.sequence_parallel", Value::boolean(true));
  Environment env = llama_env();
  auto bridge = findings(r, env, "CP006");
  ASSERT_EQ(bridge.size(), 1u);
  EXPECT_EQ(bridge[0].severity(), Severity::kInfo);
  EXPECT_NE(bridge[0].message.find("transformer_config.py:175-176"), std::string::npos)
      << bridge[0].message;
  env.framework = Framework::kMlm;
  auto mlm = findings(r, env, "CP006");
  ASSERT_EQ(mlm.size(), 1u);
  EXPECT_EQ(mlm[0].severity(), Severity::kInfo);
  EXPECT_EQ(mlm[0].fix(), "drop --sequence-parallel (SP is off without it), or use TP > 1");
  r.set("model.tensor_model_parallel_size", Value::integer(2));
  EXPECT_FALSE(fires(r, env, "CP006"));
}

// Issue #29: the pipeline split asserts (MCore transformer_block.py:127-178).
struct SplitCase {
  const char* name;
  int64_t layers;
  int64_t pp;
  std::optional<int64_t> vp;
  std::optional<int64_t> first;
  std::optional<int64_t> last;
  bool account_embedding;
  bool cp008;
  bool cp009;
};

class PipelineSplitRules : public ::testing::TestWithParam<SplitCase> {};

TEST_P(PipelineSplitRules, FireAsMcoreAsserts) {
  const SplitCase& c = GetParam();
  Recipe r = llama_cp16();
  r.set("model.num_layers", Value::integer(c.layers));
  r.set("model.pipeline_model_parallel_size", Value::integer(c.pp));
  if (c.vp) r.set("model.virtual_pipeline_model_parallel_size", Value::integer(*c.vp));
  if (c.first) r.set("model.num_layers_in_first_pipeline_stage", Value::integer(*c.first));
  if (c.last) r.set("model.num_layers_in_last_pipeline_stage", Value::integer(*c.last));
  if (c.account_embedding) {
    r.set("model.account_for_embedding_in_pipeline_split", Value::boolean(true));
  }
  Environment env = llama_env();
  env.world_size.reset();  // The split does not depend on the world.
  EXPECT_EQ(fires(r, env, "CP008"), c.cp008) << c.name;
  EXPECT_EQ(fires(r, env, "CP009"), c.cp009) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PipelineSplitRules,
    ::testing::Values(
        SplitCase{"12 layers on PP 8", 12, 8, {}, {}, {}, false, true, false},
        SplitCase{"16 layers on PP 8", 16, 8, {}, {}, {}, false, false, false},
        SplitCase{"PP 1 takes any count", 13, 1, {}, {}, {}, false, false, false},
        SplitCase{"31 + embedding on PP 4", 31, 4, {}, {}, {}, true, false, false},
        SplitCase{"32 + embedding on PP 4", 32, 4, {}, {}, {}, true, true, false},
        SplitCase{"32 on PP 4, VP 3", 32, 4, 3, {}, {}, false, false, true},
        SplitCase{"32 on PP 4, VP 2", 32, 4, 2, {}, {}, false, false, false},
        SplitCase{"30 on PP 4, VP 3: CP008 only", 30, 4, 3, {}, {}, false, true, false},
        SplitCase{"uneven 30 = 6 + 3*8", 30, 4, {}, 6, {}, false, false, false},
        SplitCase{"uneven 30 = 5 + 19 over 2 + 6", 30, 4, {}, 5, 6, false, true, false},
        SplitCase{"uneven 30 = 4 + 2*11 + 4", 30, 4, {}, 4, 4, false, false, false},
        SplitCase{"uneven first 0", 30, 4, {}, 0, {}, false, true, false},
        SplitCase{"uneven PP 2, layers left over", 30, 2, {}, 10, 10, false, true, false},
        SplitCase{"uneven first 3 with VP 2", 30, 4, 2, 3, {}, false, false, true},
        SplitCase{"uneven 4 + 2*12 + 4 with VP 2", 32, 4, 2, 4, 4, false, false, false},
        SplitCase{"uneven middle 2*11 with VP 2", 30, 4, 2, 4, 4, false, false, true}));

TEST(TopologyRules, CP008SkipsAnExplicitLayoutAndHybridPatterns) {
  Recipe r = llama_cp16();
  r.set("model.num_layers", Value::integer(12));
  r.set("model.pipeline_model_parallel_size", Value::integer(8));
  EXPECT_TRUE(fires(r, llama_env(), "CP008"));
  Recipe laid_out = r;
  laid_out.set("model.pipeline_model_parallel_layout", Value::string("Et|t|t|t|t|t|t|t*5L"));
  EXPECT_FALSE(fires(laid_out, llama_env(), "CP008"));
  r.set("model.hybrid_layer_pattern", Value::string("M*M*M*M*M*M*"));
  EXPECT_FALSE(fires(r, llama_env(), "CP008"));
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
