// Tests of src/rules/rules_sequence.cpp: each rule fires and stays quiet, with its version
// boundaries, framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

TEST(SequenceRules, CP040FallsBackToDatasetSeqLength) {
  Recipe r = llama_cp16();
  r.root.get("model")->erase("seq_length");
  r.set("dataset.seq_length", Value::integer(131000, {"mem.yaml", 11, 3}));
  auto f = findings(r, llama_env(), "CP040");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "dataset.seq_length");
}

TEST(SequenceRules, CP041SuggestsTheLcm) {
  Recipe r = llama_cp16();
  r.set("model.tensor_model_parallel_size", Value::integer(4));
  r.set("model.sequence_parallel", Value::boolean(true));
  r.set("model.seq_length", Value::integer(131104));
  r.set("dataset.seq_length", Value::integer(131104));
  auto f = findings(r, llama_env(), "CP041");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].fix().find("lcm(2*CP, TP*CP) = 64"), std::string::npos) << f[0].fix();
}

TEST(SequenceRules, CP045AndCP046ForPackedFinetuning) {
  Recipe r = llama_cp16();
  r.set("dataset.enable_offline_packing", Value::boolean(true));
  r.set("dataset.offline_packing_specs.pad_seq_to_mult", Value::integer(32));
  r.set("ddp.average_in_collective", Value::boolean(true));
  r.set("train.micro_batch_size", Value::integer(2));
  EXPECT_EQ(findings(r, llama_env(), "CP045").size(), 2u);  // per-token loss and averaging
  EXPECT_TRUE(fires(r, llama_env(), "CP046"));
  EXPECT_FALSE(fires(r, llama_env(), "CP043"));
  r.set("model.calculate_per_token_loss", Value::boolean(true));
  r.set("ddp.average_in_collective", Value::boolean(false));
  r.set("train.micro_batch_size", Value::integer(1));
  EXPECT_FALSE(fires(r, llama_env(), "CP045"));
  EXPECT_FALSE(fires(r, llama_env(), "CP046"));
}

TEST(SequenceRules, CP043DefaultPaddingIsOne) {
  Recipe r = llama_cp16();
  r.set("dataset.enable_offline_packing", Value::boolean(true));
  auto f = findings(r, llama_env(), "CP043");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("multiple of 1"), std::string::npos) << f[0].message;
}

TEST(SequenceRules, CP048CountsMicroBatchTokens) {
  Recipe r = llama_cp16();
  r.set("model.fp8", Value::string("hybrid"));
  r.set("model.seq_length", Value::integer(131136));
  r.set("dataset.seq_length", Value::integer(131136));
  EXPECT_TRUE(fires(r, llama_env(), "CP048"));  // 8196 tokens per rank
  r.set("train.micro_batch_size", Value::integer(2));
  EXPECT_FALSE(fires(r, llama_env(), "CP048"));  // 16392
}

TEST(SequenceRules, PackedRulesNeedVersionsOrSayTheySkipped) {
  Recipe r = llama_cp16();
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

// Issue #15: Megatron-LM asserts max_position_embeddings >= seq_length.
TEST(SequenceRules, CP053SeqLengthAboveMaxPositionsUnderMlm) {
  Recipe r = llama_cp16();
  r.set("model.max_position_embeddings", Value::integer(65536));
  Environment env = llama_env();
  EXPECT_FALSE(fires(r, env, "CP053"));  // Bridge: no such check
  env.framework = Framework::kMlm;
  auto f = findings(r, env, "CP053");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("(65536) must be greater than or equal to seq_length (131072)"),
            std::string::npos)
      << f[0].message;
  r.set("model.max_position_embeddings", Value::integer(131072));
  EXPECT_FALSE(fires(r, env, "CP053"));
}

}  // namespace
}  // namespace hcp::test
