// Field schema: lookups, types, did-you-mean, whole-recipe checks.
#include "hcp/schema.h"

#include <gtest/gtest.h>

namespace hcp {
namespace {

TEST(Schema, KnowsTheModelledSections) {
  // Every ConfigContainer section that is a dataclass is generated (all but env_vars, a dict).
  for (const char* s : {"model", "train", "dataset", "dist", "mixed_precision", "ddp", "validation",
                        "optimizer", "logger", "checkpoint", "comm_overlap", "tokenizer"}) {
    EXPECT_TRUE(is_modelled_section(s)) << s;
  }
  EXPECT_FALSE(is_modelled_section("env_vars"));
  EXPECT_EQ(modelled_sections().size(), top_level_sections().size() - 1);
}

TEST(Schema, GeneratedFromEveryProvider) {
  // Provider fields beyond GPTModelProvider (issue 15): the section's fields are the union over
  // every provider class when a recipe names none.
  for (const char* f : {"use_hf_vision_model", "freeze_language_model", "teacher", "kd_config",
                        "attn_logit_softcapping", "linear_num_key_heads", "q_lora_rank"}) {
    EXPECT_NE(find_field("model", f), nullptr) << f;
  }
  // Dataset configs: GPT, SFT (today's and a9497c6's HFDatasetConfig), Energon, ...
  for (const char* f : {"dataset_name", "dataset_dict", "process_example_fn",
                        "packed_sequence_specs", "offline_packing_specs", "blend"}) {
    EXPECT_NE(find_field("dataset", f), nullptr) << f;
  }
  EXPECT_NE(find_field("optimizer", "use_distributed_optimizer"), nullptr);
  EXPECT_EQ(find_field("optimizer", "no_such_optimizer_field"), nullptr);
}

TEST(Schema, ModelSectionHasTheUpstreamFields) {
  EXPECT_GT(field_names("model").size(), 250u);
  const FieldSpec* cp = find_field("model", "context_parallel_size");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->type, FieldType::kInt);
  EXPECT_TRUE(cp->size);
  EXPECT_EQ(cp->default_value, "1");
  EXPECT_EQ(find_field("model", "hierarchical_context_parallel_sizes")->type, FieldType::kIntList);
  EXPECT_EQ(find_field("model", "cp_comm_type")->type, FieldType::kStringList);
  EXPECT_EQ(find_field("model", "sequence_parallel")->type, FieldType::kBool);
  EXPECT_EQ(find_field("model", "hidden_dropout")->type, FieldType::kFloat);
  EXPECT_TRUE(find_field("model", "seq_length")->size);
  EXPECT_EQ(find_field("model", "nonexistent_field"), nullptr);
  EXPECT_NE(find_field("dist", "use_decentralized_pg"), nullptr);
  EXPECT_NE(find_field("ddp", "average_in_collective"), nullptr);
  EXPECT_NE(find_field("validation", "eval_iters"), nullptr);
  EXPECT_NE(find_field("mixed_precision", "fp8_recipe"), nullptr);
  EXPECT_NE(find_field("train", "global_batch_size"), nullptr);
  EXPECT_NE(find_field("dataset", "seq_length"), nullptr);
}

TEST(Schema, TablesAreSortedForLookup) {
  for (const std::string& section : modelled_sections()) {
    std::vector<std::string> names = field_names(section);
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << section;
    for (const std::string& n : names)
      EXPECT_NE(find_field(section, n), nullptr) << n;
  }
}

TEST(Schema, FieldTypeNames) {
  EXPECT_STREQ(field_type_name(FieldType::kInt), "int");
  EXPECT_STREQ(field_type_name(FieldType::kStringList), "string or list of strings");
}

TEST(Schema, CanonicalKeys) {
  EXPECT_EQ(canonical_key("model.transformer.context_parallel_size"),
            "model.context_parallel_size");
  EXPECT_EQ(canonical_key("dataset.sequence_length"), "dataset.seq_length");
  EXPECT_EQ(canonical_key("dataset.sequence_lengths"), "dataset.sequence_lengths");
  EXPECT_EQ(canonical_key("model.seq_length"), "model.seq_length");
}

TEST(Schema, Suggestions) {
  EXPECT_EQ(suggest_key("model.context_paralel_size"), "model.context_parallel_size");
  EXPECT_EQ(suggest_key("modle.num_layers"), "model.num_layers");
  EXPECT_EQ(suggest_key("use_decentralized_pg"), "dist.use_decentralized_pg");
  EXPECT_EQ(suggest_key("model.zzzzzzzzzzzzzzzz"), "");
  EXPECT_EQ(suggest_key("optimizer.lrr"), "optimizer.lr");  // Every dataclass section is known.
  EXPECT_EQ(suggest_key("env_vars.NCCL_ALGOO"), "");        // env_vars is a free dict.
}

TEST(Schema, KeyChecks) {
  Location at{"x.yaml", 3, 4};
  EXPECT_TRUE(check_key_known("model.context_parallel_size", at).ok());
  EXPECT_FALSE(check_key_known("optimizer.anything", at).ok());
  EXPECT_TRUE(check_key_known("env_vars.ANYTHING", at).ok());
  EXPECT_TRUE(check_key_known("model.init_method.std", at).ok());
  Status bad = check_key_known("model.num_layer", at);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().str(),
            "x.yaml:3:4: unknown key 'model.num_layer' (did you mean 'model.num_layers'?)");
  EXPECT_FALSE(check_key_known("nosuchsection", at).ok());
}

TEST(Schema, ValueChecks) {
  Location at{"<override 1>", 1, 5};
  EXPECT_TRUE(check_field_value("model.context_parallel_size", Value::integer(4, at)).ok());
  EXPECT_FALSE(check_field_value("model.context_parallel_size", Value::real(4.0, at)).ok());
  EXPECT_FALSE(check_field_value("model.context_parallel_size", Value::integer(0, at)).ok());
  EXPECT_FALSE(check_field_value("model.sequence_parallel", Value::string("yes", at)).ok());
  EXPECT_TRUE(check_field_value("model.cp_comm_type", Value::string("p2p", at)).ok());
  EXPECT_FALSE(check_field_value("model.cp_comm_type", Value::integer(2, at)).ok());
  EXPECT_TRUE(check_field_value("model.init_method", Value::map({}, at)).ok());
  EXPECT_TRUE(check_field_value("mixed_precision", Value::string("bf16_mixed", at)).ok());
  EXPECT_FALSE(check_field_value("model", Value::integer(1, at)).ok());
  EXPECT_FALSE(check_field_value("optimizer.lr", Value::string("x", at)).ok());
  EXPECT_TRUE(check_field_value("env_vars.X", Value::string("x", at)).ok());
  Status s = check_field_value("model.num_layers", Value::integer(-2, at));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().location.column, 5);
  EXPECT_EQ(s.error().key, "model.num_layers");
}

// Bridge applies a null as Python None (omegaconf_utils.py _apply_overrides), so a null is what
// the field's annotation says: fine where upstream declares Optional (None is its default), a
// start-up TypeError where it declares a plain int that Megatron computes with.
TEST(Schema, NullOnlyWhereUpstreamDeclaresOptional) {
  Location at{"r.yaml", 7, 3};
  for (const char* key :
       {"model.tensor_model_parallel_size", "model.pipeline_model_parallel_size",
        "model.context_parallel_size", "model.expert_model_parallel_size", "model.num_layers",
        "model.hidden_size", "model.num_attention_heads", "dataset.seq_length"}) {
    Status s = check_field_value(key, Value::null(at));
    ASSERT_FALSE(s.ok()) << key;
    EXPECT_EQ(s.error().key, key);
    EXPECT_EQ(s.error().location.line, 7) << key;
    EXPECT_NE(s.error().message.find("not Optional"), std::string::npos) << s.error().message;
  }
  for (const char* key : {"model.cp_comm_type", "model.hierarchical_context_parallel_sizes",
                          "model.virtual_pipeline_model_parallel_size",
                          "model.expert_tensor_parallel_size", "model.num_query_groups",
                          "model.kv_channels", "model.ffn_hidden_size", "model.num_moe_experts"}) {
    EXPECT_TRUE(check_field_value(key, Value::null(at)).ok()) << key;
  }
  // The fix names the default where there is a usable one.
  EXPECT_NE(check_field_value("model.context_parallel_size", Value::null(at))
                .error()
                .message.find("keep the default 1"),
            std::string::npos);
  EXPECT_NE(check_field_value("model.num_attention_heads", Value::null(at))
                .error()
                .message.find("set it to a positive integer"),
            std::string::npos);
}

// hcp-plan resolves ${key} references; a resolver is left as the text it was written as. In a
// number field that text is no wrong type but a value hcp-plan cannot know: the message says so.
TEST(Schema, AResolverInANumberFieldIsNamedAsUnevaluated) {
  Location at{"r.yaml", 4, 26};
  for (const char* text : {"${oc.decode:${oc.env:CP,4}}", "${oc.env:CP}", "${now:%H}"}) {
    Status s = check_field_value("model.context_parallel_size", Value::string(text, at));
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.error().message.find("resolver hcp-plan does not evaluate"), std::string::npos)
        << s.error().message;
    EXPECT_EQ(s.error().message.find("wrong type"), std::string::npos) << s.error().message;
    const bool env = std::string(text).starts_with("${oc.env:");
    EXPECT_EQ(s.error().message.find("oc.env gives text") != std::string::npos, env) << text;
  }
  // A string field takes the text as it is; a plain string in a number field is a wrong type.
  EXPECT_TRUE(check_field_value("checkpoint.save", Value::string("${oc.env:DIR}", at)).ok());
  EXPECT_NE(check_field_value("model.context_parallel_size", Value::string("four", at))
                .error()
                .message.find("wrong type"),
            std::string::npos);
}

TEST(Schema, WholeRecipeCheckForOtherLoaders) {
  Recipe r;
  r.set("model.context_parallel_size", Value::integer(2, {"<command line>", 0, 0}));
  EXPECT_TRUE(check_recipe_schema(r).ok());
  r.set("model.tensor_model_parallel_size", Value::string("two", {"args.txt", 4, 1}));
  Status s = check_recipe_schema(r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().location.file, "args.txt");
  r.set("model.tensor_model_parallel_size", Value::integer(2));
  r.set("model.bogus", Value::integer(2));
  EXPECT_TRUE(check_recipe_schema(r).ok());  // A Bridge tree: Bridge skips it, a warning.
  ASSERT_EQ(r.load_notes.size(), 1u);
  EXPECT_EQ(r.load_notes[0].severity(), Severity::kWarning);
  r.load_notes.clear();
  r.targets["model"] = "megatron.bridge.models.gpt_provider.GPTModelProvider";
  EXPECT_FALSE(check_recipe_schema(r).ok());  // A dump: the class rejects it.
}

}  // namespace
}  // namespace hcp
