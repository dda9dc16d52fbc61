// HF config.json -> recipe model dims (bridge.md §5 mapping and family extras).
#include "hcp/hf_config.h"

#include <gtest/gtest.h>

#include <string>

namespace hcp {
namespace {

std::string fixture(const std::string& name) {
  return std::string(HCP_FIXTURES_DIR) + "/hf/" + name;
}

Recipe from(const std::string& name) {
  Recipe r;
  Status st = apply_hf_config(r, fixture(name));
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().str());
  return r;
}

TEST(HfConfig, LlamaBaseMapping) {
  Recipe r = from("llama3_1_8b.json");
  EXPECT_EQ(r.get_int("model.num_layers"), 32);
  EXPECT_EQ(r.get_int("model.hidden_size"), 4096);
  EXPECT_EQ(r.get_int("model.ffn_hidden_size"), 14336);
  EXPECT_EQ(r.get_int("model.num_attention_heads"), 32);
  EXPECT_EQ(r.get_int("model.num_query_groups"), 8);
  EXPECT_EQ(r.get_int("model.vocab_size"), 128256);
  EXPECT_EQ(r.get_int("model.seq_length"), 131072) << "max_position_embeddings -> seq_length";
  EXPECT_EQ(r.get_int("dataset.seq_length"), 131072);
  EXPECT_FALSE(r.has("model.window_size"));
  Location at = r.where("model.num_query_groups");
  EXPECT_EQ(at.file, fixture("llama3_1_8b.json"));
  EXPECT_EQ(at.line, 16);
  EXPECT_EQ(at.column, 26);
}

TEST(HfConfig, RecipeSequenceLengthIsKept) {
  Recipe r;
  r.set("model.seq_length", Value::integer(8192));
  r.set("model.num_query_groups", Value::integer(1));
  ASSERT_TRUE(apply_hf_config(r, fixture("llama3_1_8b.json")).ok());
  EXPECT_EQ(r.get_int("model.seq_length"), 8192);
  EXPECT_EQ(r.get_int("model.num_query_groups"), 8) << "architecture fields replace the recipe's";
}

TEST(HfConfig, GptOssSlidingWindowAndSinks) {
  Recipe r = from("gpt_oss_20b.json");
  EXPECT_EQ(r.get_int_list("model.window_size"), (std::vector<int64_t>{127, 0}));
  EXPECT_EQ(r.get_int("model.window_attn_skip_freq"), 2);
  EXPECT_EQ(r.get_string("model.softmax_type"), "learnable");
  EXPECT_EQ(r.get_int("model.kv_channels"), 64);
  EXPECT_EQ(r.get_int("model.num_moe_experts"), 32);
  EXPECT_EQ(r.get_int("model.moe_router_topk"), 4);
}

TEST(HfConfig, DeepSeekMla) {
  Recipe r = from("deepseek_v3.json");
  EXPECT_EQ(r.get_bool("model.multi_latent_attention"), true);
  EXPECT_EQ(r.get_int("model.qk_head_dim"), 128);
  EXPECT_EQ(r.get_int("model.qk_pos_emb_head_dim"), 64);
  EXPECT_EQ(r.get_int("model.v_head_dim"), 128);
  EXPECT_EQ(r.get_int("model.kv_lora_rank"), 512);
  EXPECT_EQ(r.get_int("model.num_moe_experts"), 256);
  EXPECT_EQ(r.get_int("model.mtp_num_layers"), 1);
  EXPECT_EQ(r.get_int("model.moe_ffn_hidden_size"), 2048);
}

TEST(HfConfig, MhaWithoutKvHeadsDefaultsGroupsToHeads) {
  Recipe r;
  ASSERT_TRUE(
      apply_hf_config_text(
          r, R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4})", "mha.json")
          .ok());
  EXPECT_EQ(r.get_int("model.num_query_groups"), 4);
}

TEST(HfConfig, TextConfigOfVlms) {
  Recipe r;
  ASSERT_TRUE(apply_hf_config_text(r,
                                   R"({"model_type": "gemma3", "text_config": {
      "model_type": "gemma3_text", "num_hidden_layers": 62, "hidden_size": 5376,
      "num_attention_heads": 32, "num_key_value_heads": 16, "sliding_window": 1024,
      "sliding_window_pattern": 6}})",
                                   "gemma3.json")
                  .ok());
  EXPECT_EQ(r.get_int("model.num_layers"), 62);
  EXPECT_EQ(r.get_int_list("model.window_size"), (std::vector<int64_t>{1024, 0}));
  EXPECT_EQ(r.get_int("model.window_attn_skip_freq"), 6);
}

TEST(HfConfig, QwenSlidingWindowOnlyWhenEnabled) {
  Recipe r;
  ASSERT_TRUE(apply_hf_config_text(r, R"({"model_type": "qwen2", "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "sliding_window": 4096,
      "use_sliding_window": false})",
                                   "qwen.json")
                  .ok());
  EXPECT_FALSE(r.has("model.window_size"));
}

TEST(HfConfig, BadInputs) {
  Recipe r;
  EXPECT_FALSE(apply_hf_config(r, "/nonexistent/config.json").ok());
  auto malformed = apply_hf_config_text(r, "{\"num_hidden_layers\": ", "bad.json");
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().message.find("malformed JSON"), std::string::npos);
  EXPECT_FALSE(apply_hf_config_text(r, "[1, 2]", "list.json").ok());
  auto missing = apply_hf_config_text(r, R"({"hidden_size": 64})", "partial.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("num_hidden_layers"), std::string::npos);
  auto typed = apply_hf_config_text(
      r, "{\"num_hidden_layers\": \"two\", \"hidden_size\": 64, \"num_attention_heads\": 4}",
      "typed.json");
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.error().key, "num_hidden_layers");
  EXPECT_EQ(typed.error().location.line, 1);
  Recipe zero;
  EXPECT_FALSE(apply_hf_config_text(
                   zero, R"({"num_hidden_layers": 0, "hidden_size": 64, "num_attention_heads": 4})",
                   "zero.json")
                   .ok());
}

// transformers passes a null to the model's config class as None; the three fields that size
// the model cannot be None (LlamaConfig divides hidden_size by num_attention_heads). A null where
// the class has a default of its own (num_key_value_heads: the heads) is kept.
TEST(HfConfig, NullSizeFieldsAreErrorsAtTheirLine) {
  for (const char* field : {"num_hidden_layers", "hidden_size", "num_attention_heads"}) {
    std::string text = R"({
 "num_hidden_layers": 2,
 "hidden_size": 64,
 "num_attention_heads": 4,
 "num_key_value_heads": null
})";
    const std::string quoted = std::string("\"") + field + "\": ";
    const size_t at = text.find(quoted) + quoted.size();
    text.replace(at, text.find_first_of(",\n", at) - at, "null");
    Recipe r;
    Status st = apply_hf_config_text(r, text, "null.json");
    ASSERT_FALSE(st.ok()) << field;
    EXPECT_EQ(st.error().key, field);
    EXPECT_GT(st.error().location.line, 1) << field;
    EXPECT_NE(st.error().message.find("is null"), std::string::npos) << st.error().message;
  }
  Recipe kept;
  Status st =
      apply_hf_config_text(kept,
                           R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
          "num_key_value_heads": null})",
                           "kv_null.json");
  ASSERT_TRUE(st.ok()) << st.error().str();
  EXPECT_EQ(kept.get_int("model.num_query_groups"), 4);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

Recipe from_real(const std::string& name) {
  Recipe r;
  Status st = apply_hf_config(r, std::string(HCP_FIXTURES_DIR) + "/real/hf/" + name);
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().str());
  return r;
}

TEST(HfConfigReal, WindowBeyondThePositionsNeverSlides) {
  // Phi-3.5-mini and Phi-4-mini: sliding_window 262144 over 131072 positions.
  for (const char* name : {"phi3_5_mini_instruct.json", "phi4_mini_instruct.json"}) {
    Recipe r = from_real(name);
    EXPECT_FALSE(r.has("model.window_size")) << name;
    EXPECT_EQ(r.get_int("model.seq_length"), 131072) << name;
  }
}

TEST(HfConfigReal, DsaConfigsAreRecognised) {
  Recipe v32 = from_real("deepseek_v3_2.json");
  EXPECT_EQ(v32.get_string("model.experimental_attention_variant"), "dsa");
  EXPECT_EQ(v32.get_int("model.dsa_indexer_topk"), 2048);
  EXPECT_EQ(v32.get_int("model.dsa_indexer_n_heads"), 64);
  EXPECT_EQ(v32.get_int("model.dsa_indexer_head_dim"), 128);
  EXPECT_EQ(v32.get_bool("model.multi_latent_attention"), true);
  Recipe glm = from_real("glm5.json");
  EXPECT_EQ(glm.get_string("model.experimental_attention_variant"), "dsa");
  EXPECT_EQ(glm.get_int("model.dsa_indexer_n_heads"), 32);
}

TEST(HfConfigReal, WholeConfigsLoad) {
  // Whole config.json files of the Hub (SOURCES.md): the dims Megatron takes from them.
  Recipe llama = from_real("llama3_1_8b.json");
  EXPECT_EQ(llama.get_int("model.num_layers"), 32);
  EXPECT_EQ(llama.get_int("model.num_attention_heads"), 32);
  EXPECT_EQ(llama.get_int("model.num_query_groups"), 8);
  EXPECT_EQ(llama.get_int("model.seq_length"), 131072);
  Recipe q25 = from_real("qwen2_5_7b.json");
  EXPECT_EQ(q25.get_int("model.num_attention_heads"), 28);
  EXPECT_EQ(q25.get_int("model.num_query_groups"), 4);
  // sliding_window 131072 with use_sliding_window false: full attention.
  for (const char* name : {"qwen2_5_7b.json", "qwen2_5_14b.json"}) {
    EXPECT_FALSE(from_real(name).has("model.window_size")) << name;
  }
  Recipe q3 = from_real("qwen3_8b.json");
  EXPECT_EQ(q3.get_int("model.kv_channels"), 128);
  EXPECT_EQ(q3.get_int("model.seq_length"), 40960);
  Recipe moe = from_real("qwen3_30b_a3b.json");
  EXPECT_EQ(moe.get_int("model.num_moe_experts"), 128);
  EXPECT_EQ(moe.get_int("model.num_query_groups"), 4);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

/// Every number hcp-plan reads from an HF config goes through the checked range of its field:
/// each hostile class is an error naming the field at its line, never a value.
TEST(HfConfig, HostileNumbersOfEveryFieldClassAreErrorsNamingTheField) {
  const char* fields[] = {
      "num_hidden_layers",         // a size: 1 to 2^31 - 1
      "max_position_embeddings",   // a size
      "q_lora_rank",               // a count: 0 to 2^31 - 1
      "num_nextn_predict_layers",  // a count
      "sliding_window",            // a count (0: none)
      "index_topk",                // a count
      "attention_dropout",         // a probability: 0 to 1
  };
  // JSON has no NaN or inf literal, and 1e400 is a parse error (HfConfig.BadInputs).
  const char* values[] = {"5e-324",
                          "1e-320",
                          "-7",
                          "-1",
                          "9223372036854775807",
                          "9223372036854775808",
                          "18446744073709551616",
                          "-9223372036854775808",
                          "1234567890123456789",
                          "1e300",
                          "2.5"};
  for (const char* field : fields) {
    for (const char* value : values) {
      const std::string json =
          "{\"hidden_size\": 64, \"num_attention_heads\": 4,\n" +
          std::string(std::string(field) == "num_hidden_layers" ? ""
                                                                : "\"num_hidden_layers\": 2,\n") +
          "\"" + field + "\": " + value + "}\n";
      Recipe r;
      Status st = apply_hf_config_text(r, json, "config.json");
      const std::string what = std::string(field) + " = " + value;
      ASSERT_FALSE(st.ok()) << what;
      EXPECT_EQ(st.error().location.file, "config.json") << what;
      EXPECT_GE(st.error().location.line, 2) << what << ": " << st.error().str();
      EXPECT_NE(st.error().message.find(field), std::string::npos) << st.error().str();
    }
  }
}

TEST(HfConfig, NumbersAtTheEdgesOfTheirRangesAreKept) {
  Recipe r;
  Status st = apply_hf_config_text(r, R"({"num_hidden_layers": 2147483647, "hidden_size": 64,
      "num_attention_heads": 4, "q_lora_rank": 0, "attention_dropout": 1.0})",
                                   "edge.json");
  ASSERT_TRUE(st.ok()) << st.error().str();
  EXPECT_EQ(r.get_int("model.num_layers"), 2147483647);
  EXPECT_EQ(r.get_double("model.attention_dropout"), 1.0);
  Recipe zero;
  st = apply_hf_config_text(zero, R"({"num_hidden_layers": 2, "hidden_size": 64,
      "num_attention_heads": 4, "attention_dropout": 0.0})",
                            "zero.json");
  ASSERT_TRUE(st.ok()) << st.error().str();
  EXPECT_EQ(zero.get_double("model.attention_dropout"), 0.0);
  Recipe over;
  st = apply_hf_config_text(over, R"({"num_hidden_layers": 2, "hidden_size": 64,
      "num_attention_heads": 4, "attention_dropout": 1.5})",
                            "over.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().str(),
            "over.json:2:54: HF config field 'attention_dropout': '1.5' is above the physical "
            "range [1e-12, 1] probability");
}

}  // namespace
struct IntegerLiteral {
  const char* written;
  const char* message;  ///< What the error says after "HF config field 'hidden_size'".
};

TEST(HfConfig, IntegerFieldsQuoteTheValueAsWrittenAndNameOverflow) {
  const IntegerLiteral cases[] = {
      {"\"eight\"", " must be an integer, got \"eight\""},
      {"4096.5", " must be an integer, got 4096.5"},
      {"4e3", " must be an integer, got 4e3"},  // JSON re-prints it as 4000.0
      {"true", " must be an integer, got true"},
      {"40960000000000000000", ": '40960000000000000000' overflows a 64-bit integer"},
      {"-40960000000000000000", ": '-40960000000000000000' overflows a 64-bit integer"},
      {"18446744073709551615", ": '18446744073709551615' overflows a 64-bit integer"},
      {"9223372036854775807", ": '9223372036854775807' is above the physical range"},
  };
  for (const auto& c : cases) {
    Recipe r;
    const std::string text = std::string(
                                 "{\"num_hidden_layers\": 2, \"num_attention_heads\": 2,\n"
                                 " \"hidden_size\": ") +
                             c.written + "}";
    Status st = apply_hf_config_text(r, text, "config.json");
    ASSERT_FALSE(st.ok()) << c.written;
    EXPECT_EQ(st.error().str().rfind(
                  "config.json:2:17: HF config field 'hidden_size'" + std::string(c.message), 0),
              0u)
        << st.error().str();
  }
}

}  // namespace hcp
