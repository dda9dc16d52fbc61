// apply_overrides: struct-mode semantics, shorthand flags, schema checks, sequence-length sync.
#include <gtest/gtest.h>

#include "hcp/recipe.h"
#include "hcp/schema.h"

namespace hcp {
namespace {

const char* kBase =
    "model:\n  context_parallel_size: 2\n  seq_length: 8192\n  cp_comm_type: null\n"
    "  hierarchical_context_parallel_sizes: [2, 1]\ndataset:\n  seq_length: 8192\n"
    "train:\n  global_batch_size: 8\noptimizer:\n  lr: 0.001\nenv_vars:\n  A: 1\n";

Recipe base() {
  Result<Recipe> r = load_recipe_text(kBase, "base.yaml");
  EXPECT_TRUE(r.ok()) << r.error().str();
  return *r;
}

Recipe apply_ok(const std::vector<std::string>& args) {
  Recipe r = base();
  Status s = apply_overrides(r, args);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().str());
  return r;
}

Error apply_error(const std::vector<std::string>& args) {
  Recipe r = base();
  Status s = apply_overrides(r, args);
  EXPECT_FALSE(s.ok());
  return s.ok() ? Error{} : s.error();
}

TEST(ApplyOverrides, ChangeExistingKeyAndLocation) {
  Recipe r = apply_ok({"train.global_batch_size=16", "model.context_parallel_size=4"});
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 4);
  Location at = r.where("model.context_parallel_size");
  EXPECT_EQ(at.str(), "<override 2>:1:29");
  EXPECT_EQ(r.where("train.global_batch_size").file, "<override 1>");
}

TEST(ApplyOverrides, ChangeKnownFieldAbsentFromPartialRecipe) {
  // The real ConfigContainer has every dataclass field, so k=v works on a known field.
  Recipe r = apply_ok({"model.tensor_model_parallel_size=2", "optimizer.weight_decay=0.1"});
  EXPECT_EQ(r.get_int("model.tensor_model_parallel_size"), 2);
  EXPECT_DOUBLE_EQ(*r.get_double("optimizer.weight_decay"), 0.1);
}

TEST(ApplyOverrides, ChangeNullKeySets) {
  Recipe r =
      apply_ok({"model.cp_comm_type=a2a+p2p", "model.hierarchical_context_parallel_sizes=[2,1]"});
  EXPECT_EQ(r.get_string("model.cp_comm_type"), "a2a+p2p");
}

TEST(ApplyOverrides, ListReplacedWhole) {
  Recipe r = apply_ok(
      {"model.context_parallel_size=4", "model.hierarchical_context_parallel_sizes=[2,2]"});
  EXPECT_EQ(r.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{2, 2}));
}

TEST(ApplyOverrides, ChangeMissingDictKeyNeedsPlus) {
  Error e = apply_error({"env_vars.B=2"});
  EXPECT_EQ(e.message,
            "Could not override 'env_vars.B'. To append to your config use +env_vars.B=2");
  EXPECT_EQ(e.location.file, "<override 1>");
  Recipe r = apply_ok({"+env_vars.B=2"});
  EXPECT_EQ(r.get_int("env_vars.B"), 2);
}

TEST(ApplyOverrides, DictMergeUnderStruct) {
  Recipe r = apply_ok({"env_vars={A:5}"});
  EXPECT_EQ(r.get_int("env_vars.A"), 5);
  Error e = apply_error({"env_vars={B:2}"});
  EXPECT_NE(e.message.find("Could not override 'env_vars'"), std::string::npos) << e.message;
  Recipe forced = apply_ok({"++env_vars={B:2}"});
  EXPECT_EQ(forced.get_int("env_vars.A"), 1);
  EXPECT_EQ(forced.get_int("env_vars.B"), 2);
}

TEST(ApplyOverrides, AddOnExistingKeyIsAnError) {
  Error e = apply_error({"+model.context_parallel_size=3"});
  EXPECT_NE(e.message.find("Could not append to config. An item is already at "
                           "'model.context_parallel_size'"),
            std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find("'++model.context_parallel_size=3'"), std::string::npos);
}

TEST(ApplyOverrides, AddOnFieldWithNonNullUpstreamDefaultIsAnError) {
  // tensor_model_parallel_size defaults to 1 upstream, so Bridge's config holds it.
  Error e = apply_error({"+model.tensor_model_parallel_size=2"});
  EXPECT_NE(e.message.find("already at"), std::string::npos) << e.message;
}

TEST(ApplyOverrides, AddOnNullOrAbsentKeyWorks) {
  Recipe r = apply_ok({"+model.cp_comm_type=p2p", "+model.expert_tensor_parallel_size=1"});
  EXPECT_EQ(r.get_string("model.cp_comm_type"), "p2p");
  EXPECT_EQ(r.get_int("model.expert_tensor_parallel_size"), 1);
}

// Hydra's +KEY=VALUE goes through OmegaConf.update(force_add=True), which replaces a null parent
// with a map (Bridge's gpt-oss model cards pass +dataset.offline_packing_specs.pad_seq_to_mult=8
// after a dataset whose offline_packing_specs is None); KEY=VALUE without + through that null
// parent is Hydra's "Could not override" under Bridge's struct flag.
const char* kNullSpecs =
    "model:\n  context_parallel_size: 2\n  seq_length: 8192\ndataset:\n  seq_length: 8192\n"
    "  enable_offline_packing: true\n  offline_packing_specs: null\ncomm_overlap: null\n";

Status apply_to_null_specs(const std::vector<std::string>& args, Recipe& r) {
  Result<Recipe> loaded = load_recipe_text(kNullSpecs, "null_specs.yaml");
  EXPECT_TRUE(loaded.ok()) << loaded.error().str();
  r = *loaded;
  return apply_overrides(r, args);
}

TEST(ApplyOverrides, AddThroughNullParentMakesAMap) {
  for (const char* arg : {"+dataset.offline_packing_specs.pad_seq_to_mult=8",
                          "++dataset.offline_packing_specs.pad_seq_to_mult=8"}) {
    Recipe r;
    Status s = apply_to_null_specs({arg}, r);
    ASSERT_TRUE(s.ok()) << arg << ": " << s.error().str();
    EXPECT_EQ(r.get_int("dataset.offline_packing_specs.pad_seq_to_mult"), 8) << arg;
  }
  Recipe section;
  ASSERT_TRUE(apply_to_null_specs({"+comm_overlap.tp_comm_overlap=false"}, section).ok());
  EXPECT_EQ(section.get_bool("comm_overlap.tp_comm_overlap"), false);
}

TEST(ApplyOverrides, ChangeThroughNullParentIsHydrasError) {
  Recipe r;
  Status s = apply_to_null_specs({"dataset.offline_packing_specs.pad_seq_to_mult=8"}, r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "Could not override 'dataset.offline_packing_specs.pad_seq_to_mult'. To append to "
            "your config use +dataset.offline_packing_specs.pad_seq_to_mult=8");
  Recipe section;
  Status null_section = apply_to_null_specs({"comm_overlap.tp_comm_overlap=false"}, section);
  ASSERT_FALSE(null_section.ok());
  EXPECT_EQ(null_section.error().message,
            "Could not override 'comm_overlap.tp_comm_overlap'. To append to your config use "
            "+comm_overlap.tp_comm_overlap=false");
  // Deleting through the null parent: nothing is there (Hydra: "does not exist").
  Recipe del;
  Status gone = apply_to_null_specs({"~dataset.offline_packing_specs.pad_seq_to_mult"}, del);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().message,
            "Could not delete from config. 'dataset.offline_packing_specs.pad_seq_to_mult' does "
            "not exist.");
}

TEST(ApplyOverrides, AddListOnExistingReplaces) {
  Recipe r = apply_ok({"+model.hierarchical_context_parallel_sizes=[1,2]"});
  EXPECT_EQ(r.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{1, 2}));
}

TEST(ApplyOverrides, ForceAddAlwaysSets) {
  Recipe r = apply_ok({"++model.context_parallel_size=1", "++model.tensor_model_parallel_size=2"});
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 1);
  EXPECT_EQ(r.get_int("model.tensor_model_parallel_size"), 2);
}

TEST(ApplyOverrides, DeleteChecksExistenceAndIsANoOp) {
  Recipe r = apply_ok({"~model.context_parallel_size"});
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 2);  // Bridge keeps the dataclass value.
  Error null_key = apply_error({"~model.cp_comm_type"});
  EXPECT_EQ(null_key.message, "Could not delete from config. 'model.cp_comm_type' does not exist.");
  Error missing = apply_error({"~optimizer.foo"});
  EXPECT_NE(missing.message.find("optimizer.foo"), std::string::npos) << missing.message;
}

TEST(ApplyOverrides, DeleteWithValueMustMatch) {
  apply_ok({"~model.context_parallel_size=2"});
  Error e = apply_error({"~model.context_parallel_size=4"});
  EXPECT_EQ(e.message,
            "Could not delete from config. The value of 'model.context_parallel_size' is 2 and "
            "not 4.");
}

TEST(ApplyOverrides, UnknownKeyGetsDidYouMean) {
  Error e = apply_error({"model.contex_parallel_size=4"});
  EXPECT_EQ(e.message,
            "Could not override 'model.contex_parallel_size': no such key (did you mean "
            "'model.context_parallel_size'?)");
  EXPECT_EQ(e.location.file, "<override 1>");
  // +key adds it to Bridge's OmegaConf tree, then _apply_overrides skips it (omegaconf_utils.py
  // 470-474 @ 067f987d): the override sets nothing, and as a near miss of a real key (issue #29)
  // that is an error finding, not a load error.
  Recipe plus = apply_ok({"+model.contex_parallel_size=4"});
  ASSERT_EQ(plus.load_notes.size(), 1u);
  EXPECT_EQ(plus.load_notes[0].severity(), Severity::kError);
  EXPECT_EQ(plus.load_notes[0].location.file, "<override 1>");
  EXPECT_NE(plus.load_notes[0].message.find("did you mean 'model.context_parallel_size'"),
            std::string::npos);
  EXPECT_EQ(plus.get_int("model.context_parallel_size"),
            base().get_int("model.context_parallel_size"));
  Error section = apply_error({"modelx.a=1"});
  EXPECT_NE(section.message.find("unknown section 'modelx'"), std::string::npos);
  EXPECT_NE(section.message.find("did you mean 'model.a'"), std::string::npos) << section.message;
  Error bare = apply_error({"context_parallel_size=4"});
  EXPECT_NE(bare.message.find("did you mean 'model.context_parallel_size'"), std::string::npos)
      << bare.message;
}

TEST(ApplyOverrides, TypeCheckedAgainstSchema) {
  Error e = apply_error({"model.context_parallel_size=abc"});
  EXPECT_EQ(e.str(),
            "<override 1>:1:29: wrong type for 'model.context_parallel_size': expected int, got "
            "string \"abc\"");
  EXPECT_NE(apply_error({"model.context_parallel_size=2.0"}).message.find("got float"),
            std::string::npos);
  // An int is accepted for a bool (Python truthiness, as Bridge's dataclasses take it); a word
  // is not.
  apply_ok({"model.sequence_parallel=1"});
  EXPECT_NE(apply_error({"model.sequence_parallel=maybe"}).message.find("expected bool"),
            std::string::npos);
  EXPECT_NE(apply_error({"model.hierarchical_context_parallel_sizes=[a,b]"})
                .message.find("expected list of ints"),
            std::string::npos);
  apply_ok({"model.hidden_dropout=0"});  // An int is fine where a float is expected.
  apply_ok({"model.cp_comm_type=[p2p,a2a]"});
}

TEST(ApplyOverrides, BadSizesAreErrors) {
  EXPECT_NE(apply_error({"model.context_parallel_size=0"}).message.find("positive"),
            std::string::npos);
  EXPECT_NE(apply_error({"-cp", "-1"}).message.find("positive"), std::string::npos);
  EXPECT_NE(apply_error({"model.context_parallel_size=2147483648"}).message.find("2^31"),
            std::string::npos);
  EXPECT_NE(
      apply_error({"model.context_parallel_size=9223372036854775808"}).message.find("64 bits"),
      std::string::npos);
}

TEST(ApplyOverrides, ShorthandFlagsComeFirst) {
  // A trailing KEY=VALUE beats the convenience flag, wherever the flag is written.
  Recipe r = apply_ok({"model.context_parallel_size=8", "-cp", "4"});
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 8);
  EXPECT_EQ(r.where("model.context_parallel_size").file, "<override 1>");
}

TEST(ApplyOverrides, EveryShorthandFlag) {
  Recipe r =
      apply_ok({"-tp", "2", "-pp", "2", "-cp", "4", "-vp", "2", "-ep", "2", "-etp", "1", "-gb",
                "64", "-mb", "2", "-ms", "10", "model.hierarchical_context_parallel_sizes=[2,2]"});
  EXPECT_EQ(r.get_int("model.tensor_model_parallel_size"), 2);
  EXPECT_EQ(r.get_int("model.pipeline_model_parallel_size"), 2);
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 4);
  EXPECT_EQ(r.get_int("model.virtual_pipeline_model_parallel_size"), 2);
  EXPECT_EQ(r.get_int("model.expert_model_parallel_size"), 2);
  EXPECT_EQ(r.get_int("model.expert_tensor_parallel_size"), 1);
  EXPECT_EQ(r.get_int("train.global_batch_size"), 64);
  EXPECT_EQ(r.get_int("train.micro_batch_size"), 2);
  EXPECT_EQ(r.get_int("train.train_iters"), 10);
  EXPECT_EQ(r.where("model.pipeline_model_parallel_size").file, "<override 2>");
}

TEST(ApplyOverrides, LongFormsAndInlineValues) {
  Recipe r = apply_ok({"--context_parallel_size", "4", "--seq_length=16384", "--lr", "1e-4",
                       "--save_dir", "/tmp/x", "model.hierarchical_context_parallel_sizes=[4,1]"});
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 4);
  EXPECT_EQ(r.get_int("dataset.seq_length"), 16384);
  EXPECT_DOUBLE_EQ(*r.get_double("optimizer.lr"), 1e-4);
  EXPECT_EQ(r.get_string("checkpoint.save"), "/tmp/x");
}

TEST(ApplyOverrides, FlagErrors) {
  EXPECT_EQ(apply_error({"-cp"}).message, "argument -cp: expected one argument");
  EXPECT_EQ(apply_error({"-cp", "abc"}).message, "argument -cp: invalid int value: 'abc'");
  EXPECT_EQ(apply_error({"-cp", "2.0"}).message, "argument -cp: invalid int value: '2.0'");
  EXPECT_EQ(apply_error({"--lr", "fast"}).message, "argument --lr: invalid float value: 'fast'");
  EXPECT_EQ(apply_error({"-xyz", "1"}).message, "Unknown option: -xyz");
}

TEST(ApplyOverrides, AnEmptyArgumentIsNoFlag) {
  // Flags without a short name keep "" there; an empty word must not find them (it glued itself
  // to the next option: `plan --nodes "" --gpus-per-node 8` read as --nodes "=--gpus-per-node").
  EXPECT_FALSE(override_flag_takes_value(""));
  EXPECT_FALSE(has_run_recipe_arguments({""}));
  EXPECT_TRUE(override_flag_takes_value("-cp"));
  EXPECT_TRUE(has_run_recipe_arguments({"", "-cp", "2"}));
  EXPECT_EQ(apply_error({""}).message, "bad override '': empty override");
}

TEST(ApplyOverrides, SeqLengthFlagSyncsModel) {
  Recipe r = apply_ok({"-sl", "16384"});
  EXPECT_EQ(r.get_int("dataset.seq_length"), 16384);
  EXPECT_EQ(r.get_int("model.seq_length"), 16384);
  EXPECT_EQ(r.where("model.seq_length").file, "<override 1>");
  Recipe alias = apply_ok({"dataset.sequence_length=32768"});
  EXPECT_EQ(alias.get_int("model.seq_length"), 32768);
}

TEST(ApplyOverrides, ModelSeqLengthAloneIsOverwrittenSoItIsAnError) {
  Error e = apply_error({"model.seq_length=16384"});
  EXPECT_NE(e.message.find("has no effect"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("-sl 16384"), std::string::npos);
  EXPECT_EQ(e.location.file, "<override 1>");
  apply_ok({"model.seq_length=8192"});  // Same value: harmless.
}

TEST(ApplyOverrides, TransformerAliasKey) {
  Recipe r = apply_ok({"model.transformer.context_parallel_size=4",
                       "model.hierarchical_context_parallel_sizes=[4,1]"});
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 4);
}

TEST(ApplyOverrides, InterpolationResolvesAfterOverrides) {
  Recipe r = apply_ok({"dataset.seq_length=${model.context_parallel_size}"});
  EXPECT_EQ(r.get_int("dataset.seq_length"), 2);
  EXPECT_EQ(r.get_int("model.seq_length"), 2);
  Error e = apply_error({"dataset.seq_length=${model.nope}"});
  EXPECT_NE(e.message.find("missing key"), std::string::npos);
}

TEST(ApplyOverrides, ParseErrorStopsWithOverrideLocation) {
  Error e = apply_error(
      {"model.context_parallel_size=4", "model.hierarchical_context_parallel_sizes=[2,2"});
  EXPECT_EQ(e.location.file, "<override 2>");
  EXPECT_NE(e.message.find("unbalanced '['"), std::string::npos);
  EXPECT_NE(apply_error({"model.x"}).message.find("no '='"), std::string::npos);
}

TEST(ApplyOverrides, ListIndexOverride) {
  Result<Recipe> loaded =
      load_recipe_text("model:\n  recompute_modules: [core_attn, mlp]\n", "r.yaml");
  ASSERT_TRUE(loaded.ok());
  Recipe r = *loaded;
  ASSERT_TRUE(apply_overrides(r, {"model.recompute_modules.1=moe"}).ok());
  EXPECT_EQ(r.get_string("model.recompute_modules.1"), "moe");
  Status bad = apply_overrides(r, {"model.recompute_modules.5=moe"});
  EXPECT_FALSE(bad.ok());
}

TEST(ApplyOverrides, MixedPrecisionPresetOverride) {
  Recipe r = apply_ok({"mixed_precision=bf16_with_fp8_current_scaling_mixed"});
  EXPECT_EQ(r.get_string("mixed_precision"), "bf16_with_fp8_current_scaling_mixed");
}

TEST(ApplyOverrides, OnlyTouchedKeysAreRechecked) {
  // Recipes from the MLM and HF loaders may carry keys of their own; overrides do not re-judge
  // them.
  Recipe r;
  r.set("model.mlm_only_key", Value::integer(4096, {"args.txt", 1, 1}));
  r.set("model.context_parallel_size", Value::integer(1, {"args.txt", 2, 1}));
  Status s = apply_overrides(r, {"-cp", "2"});
  EXPECT_TRUE(s.ok()) << s.error().str();
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 2);
  EXPECT_TRUE(r.load_notes.empty());
  // The whole-recipe check does judge it: in a Bridge tree without classes, a key Bridge skips.
  EXPECT_TRUE(check_recipe_schema(r).ok());
  ASSERT_EQ(r.load_notes.size(), 1u);
  EXPECT_EQ(r.load_notes[0].key, "model.mlm_only_key");
}

TEST(ApplyOverrides, NoArgumentsChangesNothing) {
  Recipe r = apply_ok({});
  EXPECT_EQ(r.root, base().root);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

TEST(BridgeSync, DistributedOptimizerOnInBothWhenEitherSetsIt) {
  // Bridge config.py:2100-2123 @ 067f987d. Each recipe has a model section (check_model_section).
  auto with_model = [](Recipe recipe) {
    recipe.set("model.num_layers", Value::integer(2));
    return recipe;
  };
  Recipe r = with_model({});
  r.set("ddp.use_distributed_optimizer", Value::boolean(true));
  r.set("optimizer.use_distributed_optimizer", Value::boolean(false));
  ASSERT_TRUE(apply_overrides(r, {}).ok());
  EXPECT_EQ(r.get_bool("optimizer.use_distributed_optimizer"), true);
  Recipe o = with_model({});
  o.set("optimizer.use_distributed_optimizer", Value::boolean(true));
  ASSERT_TRUE(apply_overrides(o, {"ddp.use_distributed_optimizer=false"}).ok());
  EXPECT_EQ(o.get_bool("ddp.use_distributed_optimizer"), true);
  Recipe neither = with_model({});
  neither.set("ddp.use_distributed_optimizer", Value::boolean(false));
  ASSERT_TRUE(apply_overrides(neither, {}).ok());
  EXPECT_FALSE(neither.has("optimizer.use_distributed_optimizer"));
  // Megatron-LM has no such sync: its flag is one setting.
  Recipe mlm = with_model({});
  mlm.framework = Framework::kMlm;
  mlm.set("ddp.use_distributed_optimizer", Value::boolean(true));
  ASSERT_TRUE(apply_overrides(mlm, {}).ok());
  EXPECT_FALSE(mlm.has("optimizer.use_distributed_optimizer"));
}

}  // namespace
}  // namespace hcp
