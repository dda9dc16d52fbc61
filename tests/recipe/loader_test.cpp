// Recipe YAML loader: both shapes, locations, aliases, scalar typing, bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hcp/recipe.h"
#include "support/unprivileged.h"

namespace hcp {
namespace {

Recipe load_ok(const std::string& text) {
  Result<Recipe> r = load_recipe_text(text, "t.yaml");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : Recipe{};
}

Error load_error(const std::string& text) {
  Result<Recipe> r = load_recipe_text(text, "t.yaml");
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{} : r.error();
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("hcp_recipe_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(Loader, PartialTreeWithLocations) {
  Recipe r = load_ok(
      "model:\n  context_parallel_size: 16\n  cp_comm_type: a2a+p2p\n"
      "  hierarchical_context_parallel_sizes: [8, 2]\ndataset:\n  seq_length: 131072\n");
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 16);
  EXPECT_EQ(r.get_string("model.cp_comm_type"), "a2a+p2p");
  EXPECT_EQ(r.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{8, 2}));
  Location at = r.where("model.context_parallel_size");
  EXPECT_EQ(at.file, "t.yaml");
  EXPECT_EQ(at.line, 2);
  EXPECT_EQ(at.column, 26);
  EXPECT_EQ(r.where("model.hierarchical_context_parallel_sizes.1").column, 44);
  EXPECT_EQ(r.where("dataset.seq_length").line, 6);
  EXPECT_EQ(r.name, "t");
}

TEST(Loader, ScalarsTypedLikeOmegaConf) {
  Recipe r = load_ok(
      "env_vars:\n  lr: 1e-4\n  a: 1_000\n  b: .5\n  c: -.inf\n  d: 0x10\n  e: yes\n  f: ~\n"
      "  g: '12'\n  h: 1.\n  i: \"true\"\n  j: 3.0e-4\n  k: 09\n  l: -7\n");
  EXPECT_DOUBLE_EQ(*r.get_double("env_vars.lr"), 1e-4);
  EXPECT_TRUE(r.find("env_vars.lr")->is_float());
  EXPECT_EQ(r.get_int("env_vars.a"), 1000);
  EXPECT_DOUBLE_EQ(*r.get_double("env_vars.b"), 0.5);
  EXPECT_TRUE(std::isinf(*r.get_double("env_vars.c")));
  EXPECT_EQ(r.get_int("env_vars.d"), 16);
  EXPECT_EQ(r.get_bool("env_vars.e"), true);
  EXPECT_TRUE(r.find("env_vars.f")->is_null());
  EXPECT_EQ(r.get_string("env_vars.g"), "12");
  EXPECT_TRUE(r.find("env_vars.h")->is_float());
  EXPECT_EQ(r.get_string("env_vars.i"), "true");
  EXPECT_DOUBLE_EQ(*r.get_double("env_vars.j"), 3e-4);
  EXPECT_EQ(r.get_string("env_vars.k"), "09");
  EXPECT_EQ(r.get_int("env_vars.l"), -7);
}

TEST(Loader, MixedPrecisionPresetStringIsKept) {
  Recipe r = load_ok("mixed_precision: bf16_mixed\n");
  EXPECT_EQ(r.get_string("mixed_precision"), "bf16_mixed");
}

TEST(Loader, SequenceLengthAliasBecomesSeqLength) {
  Recipe r = load_ok("dataset:\n  sequence_length: 4096\n");
  EXPECT_EQ(r.get_int("dataset.seq_length"), 4096);
  EXPECT_EQ(r.find("dataset.sequence_length"), nullptr);
  EXPECT_EQ(r.where("dataset.seq_length").line, 2);
}

TEST(Loader, ExplicitSeqLengthWinsOverAlias) {
  Recipe r = load_ok("dataset:\n  seq_length: 8192\n  sequence_length: 4096\n");
  EXPECT_EQ(r.get_int("dataset.seq_length"), 8192);
}

TEST(Loader, FullDumpIsNormalised) {
  Result<Recipe> r = load_recipe_file(HCP_FIXTURES_DIR "/recipe/full_dump_llama32_1b.yaml");
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(r->find("_target_"), nullptr);
  EXPECT_EQ(r->find("model._target_"), nullptr);
  EXPECT_EQ(r->get_string("model.params_dtype"), "torch.bfloat16");
  EXPECT_EQ(r->get_string("model.activation_func"), "torch.nn.functional.silu");
  EXPECT_EQ(r->get_string("model.attention_backend"), "auto");
  EXPECT_EQ(r->get_int("model.num_layers"), 16);
  EXPECT_EQ(r->get_int("dataset.seq_length"), 1024);
  EXPECT_EQ(r->get_string("mixed_precision.params_dtype"), "torch.bfloat16");
  const Value* init = r->find("model.init_method");
  ASSERT_NE(init, nullptr);
  ASSERT_TRUE(init->is_map());
  EXPECT_DOUBLE_EQ(*r->get_double("model.init_method.std"), 0.02);
  EXPECT_EQ(r->find("model.init_method._partial_"), nullptr);
}

TEST(Loader, NestedTransformerIsFlattened) {
  Recipe r = load_ok(
      "model:\n  _target_: megatron.bridge.models.gpt.model_config.BridgeGPTModelConfig\n"
      "  _builder_: megatron.bridge.models.gpt.gpt_builder.GPTModelBuilder\n"
      "  seq_length: 131072\n  transformer:\n"
      "    _target_: megatron.bridge.models.transformer_config.TransformerConfig\n"
      "    context_parallel_size: 4\n    attention_backend:\n"
      "      _target_: megatron.core.transformer.enums.AttnBackend\n      _call_: true\n"
      "      _args_: [1]\n  vocab_size: 128256\n");
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 4);
  EXPECT_EQ(r.where("model.context_parallel_size").line, 7);
  EXPECT_EQ(r.get_string("model.attention_backend"), "flash");
  EXPECT_EQ(r.find("model.transformer"), nullptr);
  EXPECT_EQ(r.find("model._builder_"), nullptr);
  EXPECT_EQ(r.get_int("model.vocab_size"), 128256);
}

TEST(Loader, InterpolationInYamlResolves) {
  Recipe r = load_ok("model:\n  seq_length: 65536\ndataset:\n  seq_length: ${model.seq_length}\n");
  EXPECT_EQ(r.get_int("dataset.seq_length"), 65536);
  EXPECT_EQ(r.where("dataset.seq_length").line, 4);
}

TEST(Loader, InterpolationToMissingKeyIsAnError) {
  Error e = load_error("dataset:\n  seq_length: ${model.seq_lenght}\n");
  EXPECT_NE(e.message.find("missing key"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.line, 2);
}

TEST(Loader, InterpolationCyclesAndLongChainsAreToldApart) {
  // An acyclic chain of 34 references was once called a cycle.
  auto chain = [](int links) {
    std::string text = "chain:\n";
    for (int i = 0; i < links; ++i)
      text += "  k" + std::to_string(i) + ": ${chain.k" + std::to_string(i + 1) + "}\n";
    return text + "  k" + std::to_string(links) + ": 7\n";
  };
  Recipe ok = load_ok(chain(32));
  EXPECT_EQ(ok.get_int("chain.k0"), 7);
  Error deep = load_error(chain(40));
  EXPECT_NE(deep.message.find("interpolation chain longer than 32 links"), std::string::npos)
      << deep.message;
  EXPECT_EQ(deep.message.find("cycle"), std::string::npos) << deep.message;
  Error cycle = load_error("a:\n  x: ${a.y}\n  y: ${a.z}\n  z: ${a.x}\n");
  EXPECT_EQ(cycle.message, "interpolation cycle: ${a.y} -> ${a.z} -> ${a.x} -> ${a.y}");
  EXPECT_EQ(cycle.location.line, 2);
  Error self = load_error("a:\n  x: ${a.x}\n");
  EXPECT_EQ(self.message, "interpolation cycle: ${a.x} -> ${a.x}");
}

TEST(Loader, WrongTypeNamesKeyTypeAndLocation) {
  Error e = load_error("model:\n  context_parallel_size: abc\n");
  EXPECT_EQ(e.str(),
            "t.yaml:2:26: wrong type for 'model.context_parallel_size': expected int, got "
            "string \"abc\"");
  EXPECT_EQ(e.key, "model.context_parallel_size");
}

TEST(Loader, FloatForIntFieldIsAnError) {
  Error e = load_error("model:\n  tensor_model_parallel_size: 2.0\n");
  EXPECT_NE(e.message.find("expected int, got float"), std::string::npos) << e.message;
}

// PyYAML builds an explicitly tagged scalar as its tag's type, and reads YAML 1.1's base-60 ints.
TEST(Loader, ExplicitTagsAndBase60AsPyYamlReadsThem) {
  struct Case {
    const char* text;
    const char* error;  ///< part of the error, or "" when it loads
  };
  const Case cases[] = {
      {"model:\n  tensor_model_parallel_size: !!float 16\n", "expected int, got float 16.0"},
      {"model:\n  hierarchical_context_parallel_sizes: [8, !!float 2]\n",
       "expected list of ints, got list [8, 2.0]"},
      {"model:\n  gated_linear_unit: !!bool 1\n", "t.yaml:2:22: !!bool '1' is not a boolean"},
      {"model:\n  num_layers: !!int 1.5\n", "!!int '1.5' is not an integer"},
      {"model:\n  num_layers: !!str {a: 1}\n",
       "a !!str tag on a mapping; PyYAML builds a str only from a scalar"},
      {"model: !!seq {a: 1}\n",
       "a !!seq tag on a mapping; PyYAML builds a seq only from a sequence"},
      {"model: !!map [1]\n", "a !!map tag on a sequence"},
      {"model:\n  num_layers: !!map 3\n", "a !!map tag on a scalar"},
      {"train:\n  global_batch_size: 0:16\n", "expected int, got string \"0:16\""},
      {"model: !!map {gated_linear_unit: !!bool On, num_layers: !!int \"4\"}\n", ""},
      {"train:\n  global_batch_size: 1:4\n", ""},
  };
  for (const Case& c : cases) {
    Result<Recipe> r = load_recipe_text(c.text, "t.yaml");
    if (std::string(c.error).empty()) {
      EXPECT_TRUE(r) << c.text << (r ? "" : r.error().str());
      continue;
    }
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().str().find(c.error), std::string::npos) << c.text << r.error().str();
  }
  Recipe r = load_ok("model:\n  gated_linear_unit: !!bool On\ntrain:\n  global_batch_size: 1:4\n");
  EXPECT_EQ(r.get_bool("model.gated_linear_unit"), true);
  EXPECT_EQ(r.get_int("train.global_batch_size"), 64);
}

TEST(Loader, IntForFloatFieldIsFine) {
  Recipe r = load_ok("model:\n  hidden_dropout: 0\n");
  EXPECT_EQ(r.get_int("model.hidden_dropout"), 0);
}

constexpr const char* kGpt = "megatron.bridge.models.gpt_provider.GPTModelProvider";

std::string dump(const std::string& model_target, const std::string& model_fields,
                 const std::string& rest = "") {
  return "_target_: megatron.bridge.training.config.ConfigContainer\nmodel:\n  _target_: " +
         model_target + "\n" + model_fields + rest;
}

// A Bridge YAML without `_target_` is an override file: Bridge applies it key by key onto the
// recipe's dataclasses and skips (with a logged warning) a key they lack,
// omegaconf_utils.py:470-474
// @ 067f987d. The loader warns, with a did-you-mean, that the line sets nothing; in a full dump the
// same key is an error (the dataclass constructor rejects it).
const Diagnostic* note_for(const Recipe& r, const std::string& key) {
  for (const Diagnostic& d : r.load_notes) {
    if (d.key == key) return &d;
  }
  return nullptr;
}

// Issue #29: a skipped key that is a near miss of a real key is a typo the job runs without: an
// error. One with no near miss (a newer Bridge's field, a custom one) stays a warning.
TEST(Loader, UnknownKeyInModelledSectionIsSkippedWithASuggestion) {
  Recipe r = load_ok("model:\n  context_paralel_size: 2\n");
  const Diagnostic* d = note_for(r, "model.context_paralel_size");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity(), Severity::kError);
  EXPECT_NE(d->message.find("runs without the setting"), std::string::npos) << d->message;
  EXPECT_EQ(d->location.line, 2);
  EXPECT_NE(d->message.find("(did you mean 'model.context_parallel_size'?)"), std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("sets nothing"), std::string::npos) << d->message;
  EXPECT_EQ(d->fix(), "spell it model.context_parallel_size, or remove it");
  EXPECT_FALSE(r.has("model.context_parallel_size"));
  // In a dump, the provider's constructor rejects it.
  Error e = load_error(dump(kGpt, "  context_paralel_size: 2\n"));
  EXPECT_NE(e.message.find("unknown key 'model.context_paralel_size' (GPTModelProvider)"),
            std::string::npos)
      << e.message;
}

TEST(Loader, UnknownKeyWithoutANearMissStaysAWarning) {
  Recipe r = load_ok("model:\n  zzz_site_specific_knob: 2\n");
  const Diagnostic* d = note_for(r, "model.zzz_site_specific_knob");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity(), Severity::kWarning);
  EXPECT_EQ(d->message.find("did you mean"), std::string::npos) << d->message;
  EXPECT_EQ(d->fix(), "remove it, or name a field the section has");
}

TEST(Loader, UnknownSectionIsSkippedWithASuggestion) {
  Recipe r = load_ok("modle:\n  context_parallel_size: 2\n");
  const Diagnostic* d = note_for(r, "modle");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("did you mean 'model'"), std::string::npos) << d->message;
  EXPECT_EQ(d->location.line, 2);
}

// A YAML key with dots in it is one key to OmegaConf (omry/omegaconf#1189), which Bridge's config
// lacks and skips: the line sets nothing, in an override file and in a dump alike. Naming a real
// field that way is an error (the job runs without it); any other dotted key a warning. Before,
// validate took `model.context_parallel_size: 4` at the top level silently and reported CP 1.
TEST(Loader, DottedYamlKeysSetNothing) {
  struct Case {
    std::string text;
    std::string key;
    Severity severity;
    int line;
  };
  const std::vector<Case> cases = {
      {"model.context_parallel_size: 4\n", "model.context_parallel_size", Severity::kError, 1},
      {"model:\n  num_layers: 2\n\"model.context_parallel_size\": 4\n",
       "model.context_parallel_size", Severity::kError, 3},
      {"train:\n  global_batch_size: 8\n  \"a.b\": 1\n", "train.a.b", Severity::kWarning, 3},
      {"model:\n  context_parallel_size.x: 4\n", "model.context_parallel_size.x",
       Severity::kWarning, 2},
      {dump("megatron.bridge.models.llama.llama_provider.Llama3ModelProvider8B",
            "  num_layers: 2\n  pipeline_model_parallel_size.value: 2\n"),
       "model.pipeline_model_parallel_size.value", Severity::kWarning, 5},
      {"dataset.seq_length: 4096\n", "dataset.seq_length", Severity::kError, 1},
  };
  for (const Case& c : cases) {
    Recipe r = load_ok(c.text);
    const Diagnostic* d = note_for(r, c.key);
    ASSERT_NE(d, nullptr) << c.text;
    EXPECT_EQ(d->severity(), c.severity) << c.text;
    EXPECT_EQ(d->location.line, c.line) << c.text;
    EXPECT_NE(d->message.find("one YAML key with dots"), std::string::npos) << d->message;
    EXPECT_NE(d->fix().find("nest it"), std::string::npos) << d->fix();
  }
  // The key sets nothing: the recipe keeps CP unset.
  EXPECT_FALSE(load_ok("model.context_parallel_size: 4\n").has("model.context_parallel_size"));
}

TEST(Loader, EveryDataclassSectionIsChecked) {
  Recipe skipped = load_ok("optimizer:\n  whatever_key: 3\n");
  ASSERT_NE(note_for(skipped, "optimizer.whatever_key"), nullptr);
  // Megatron-Bridge's own example (examples/models/qwen/qwen3_next/conf/
  // qwen3_next_80b_a3b_finetune_override_example.yaml @ 067f987d) sets optimizer.finetune_lr, a
  // recipe-function argument and no OptimizerConfig field: Bridge runs it and skips the key.
  Recipe example = load_ok("optimizer:\n  finetune_lr: 0.000005\n  min_lr: 0.000005\n");
  ASSERT_NE(note_for(example, "optimizer.finetune_lr"), nullptr);
  EXPECT_EQ(example.load_notes.size(), 1u);
  // env_vars is a dict: any name goes.
  Recipe r = load_ok("env_vars:\n  ANY_NAME: 3\noptimizer:\n  lr: 0.001\n");
  EXPECT_EQ(r.get_int("env_vars.ANY_NAME"), 3);
  EXPECT_TRUE(r.load_notes.empty());
}

// --- Full dumps: fields chosen by `_target_`, leniency as Python's dataclasses ---------------

TEST(Loader, FloatRotaryBaseAsBridgeWritesIt) {
  // Bridge fills rotary_base from rope_theta (a float); GPTModelProvider annotates int.
  Recipe r = load_ok(dump(kGpt, "  rotary_base: 500000.0\n"));
  EXPECT_EQ(r.get_int("model.rotary_base"), 500000);
  EXPECT_EQ(r.targets.at("model"), kGpt);
  // A fraction or a string is still wrong for an int field.
  EXPECT_NE(load_error(dump(kGpt, "  rotary_base: 1.5\n")).message.find("expected int"),
            std::string::npos);
  EXPECT_NE(load_error(dump(kGpt, "  rotary_base: abc\n")).message.find("expected int"),
            std::string::npos);
}

TEST(Loader, IntForBoolIsItsTruth) {
  // Bridge's gpt_oss recipes set train.manual_gc_eval: 100; only its truth is used.
  Recipe r = load_ok("train:\n  manual_gc_eval: 100\n  manual_gc: 0\n");
  EXPECT_EQ(r.get_bool("train.manual_gc_eval"), true);
  EXPECT_EQ(r.get_bool("train.manual_gc"), false);
  Error e = load_error("train:\n  manual_gc_eval: \"yes\"\n");
  EXPECT_NE(e.message.find("expected bool, got string"), std::string::npos) << e.message;
}

TEST(Loader, SizesStayStrictIntegers) {
  EXPECT_NE(load_error(dump(kGpt, "  context_parallel_size: 2.0\n")).message.find("expected int"),
            std::string::npos);
}

TEST(Loader, TargetSelectsTheProvidersFields) {
  constexpr const char* kVl =
      "megatron.bridge.models.qwen_vl.qwen3_vl_provider.Qwen3VLModelProvider";
  Recipe vl = load_ok(dump(kVl, "  use_hf_vision_model: true\n  freeze_language_model: false\n"));
  EXPECT_EQ(vl.get_bool("model.use_hf_vision_model"), true);
  // The plain GPT provider has no vision fields.
  Error e = load_error(dump(kGpt, "  use_hf_vision_model: true\n"));
  EXPECT_NE(e.message.find("unknown key 'model.use_hf_vision_model' (GPTModelProvider)"),
            std::string::npos)
      << e.message;
  load_ok(dump("megatron.bridge.models.gemma.gemma2_provider.Gemma2ModelProvider",
               "  attn_logit_softcapping: 50.0\n"));
  load_ok(dump("megatron.bridge.models.distillation_provider.DistillationProvider",
               "  teacher: null\n  kd_config: null\n"));
}

TEST(Loader, DatasetTargetSelectsFields) {
  const std::string hf =
      "dataset:\n  _target_: megatron.bridge.data.builders.hf_dataset.HFDatasetConfig\n"
      "  dataset_name: squad\n  dataset_dict: null\n  process_example_fn: null\n"
      "  seq_length: 4096\n";
  Recipe r = load_ok(hf);
  EXPECT_EQ(r.get_string("dataset.dataset_name"), "squad");
  Error e = load_error(
      "dataset:\n  _target_: megatron.bridge.training.config.GPTDatasetConfig\n"
      "  dataset_name: squad\n");
  EXPECT_NE(e.message.find("unknown key 'dataset.dataset_name' (GPTDatasetConfig)"),
            std::string::npos)
      << e.message;
}

TEST(Loader, NestedTargetIsChecked) {
  const std::string head =
      "dataset:\n  _target_: megatron.bridge.data.builders.hf_dataset.HFDatasetConfig\n"
      "  seq_length: 4096\n  packed_sequence_specs:\n"
      "    _target_: megatron.bridge.data.datasets.packed_sequence.PackedSequenceSpecs\n";
  load_ok(head + "    packed_sequence_size: 4096\n    pad_seq_to_mult: 1\n");
  Error e = load_error(head + "    packed_sequence_sise: 4096\n");
  EXPECT_NE(e.message.find("did you mean 'dataset.packed_sequence_specs.packed_sequence_size'"),
            std::string::npos)
      << e.message;
}

TEST(Loader, LegacyPackedSequenceSpecsTurnOnOfflinePacking) {
  const std::string text =
      "dataset:\n  _target_: megatron.bridge.data.builders.hf_dataset.HFDatasetConfig\n"
      "  seq_length: 4096\n  packed_sequence_specs:\n"
      "    _target_: megatron.bridge.data.datasets.packed_sequence.PackedSequenceSpecs\n"
      "    packed_sequence_size: 4096\n    pad_seq_to_mult: 4\n";
  Recipe r = load_ok(text);
  EXPECT_EQ(r.get_bool("dataset.enable_offline_packing"), true);
  EXPECT_EQ(r.get_int("dataset.offline_packing_specs.pad_seq_to_mult"), 4);
  // packed_sequence_size <= 0 means no packing (finetuning_dataset.py:91 @ a9497c6).
  std::string off = text;
  off.replace(off.find("size: 4096"), 10, "size: -1");
  EXPECT_FALSE(load_ok(off).has("dataset.enable_offline_packing"));
}

TEST(Loader, UnknownProviderKeyIsAWarningNamingIt) {
  Recipe r = load_ok(
      dump("some.future.FancyModelProvider", "  fancy_new_field: 3\n  context_parallel_size: 2\n"));
  ASSERT_EQ(r.load_notes.size(), 1u);
  EXPECT_EQ(r.load_notes[0].severity(), Severity::kWarning);
  EXPECT_NE(r.load_notes[0].message.find("FancyModelProvider"), std::string::npos);
  EXPECT_EQ(r.load_notes[0].key, "model.fancy_new_field");
  // Known fields are still type-checked.
  EXPECT_FALSE(
      load_recipe_text(dump("some.future.FancyModelProvider", "  context_parallel_size: two\n"),
                       "t.yaml")
          .ok());
}

TEST(Loader, ZeroNegativeAndAbsurdSizesAreErrors) {
  EXPECT_NE(load_error("model:\n  context_parallel_size: 0\n").message.find("positive"),
            std::string::npos);
  EXPECT_NE(load_error("model:\n  context_parallel_size: -1\n").message.find("positive"),
            std::string::npos);
  Error big = load_error("model:\n  context_parallel_size: 2147483648\n");
  EXPECT_NE(big.message.find("below 2^31"), std::string::npos) << big.message;
  Error overflow = load_error("model:\n  context_parallel_size: 9223372036854775808\n");
  EXPECT_NE(overflow.message.find("does not fit in 64 bits"), std::string::npos);
  EXPECT_EQ(overflow.location.line, 2);
  Error hcp = load_error("model:\n  hierarchical_context_parallel_sizes: [8, 0]\n");
  EXPECT_NE(hcp.message.find("positive"), std::string::npos);
  EXPECT_EQ(hcp.location.column, 44);
}

TEST(Loader, LargestSizeIsAccepted) {
  Recipe r = load_ok("model:\n  seq_length: 2147483647\n");
  EXPECT_EQ(r.get_int("model.seq_length"), 2147483647);
}

TEST(Loader, SectionMustBeAMap) {
  Error e = load_error("model: 3\n");
  EXPECT_NE(e.message.find("expected a map"), std::string::npos) << e.message;
}

TEST(Loader, DuplicateKeyIsAnError) {
  Error e = load_error("model:\n  num_layers: 2\n  num_layers: 4\n");
  EXPECT_NE(e.message.find("duplicate key 'num_layers'"), std::string::npos);
  EXPECT_EQ(e.location.line, 3);
}

TEST(BadInput, MissingFile) {
  Result<Recipe> r = load_recipe_file("/nonexistent/dir/x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().str(), "/nonexistent/dir/x.yaml: no such file");
}

TEST(BadInput, Directory) {
  Result<Recipe> r = load_recipe_file(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("directory"), std::string::npos);
}

TEST(BadInput, UnreadableFile) {
  // As root (CI) the load runs as `nobody`: root reads files regardless of permissions.
  std::string path = write_temp("unreadable.yaml", "model: {}\n");
  chmod(path.c_str(), 0);
  // The error's file, a tab, and its message.
  std::string error = testing::run_unprivileged([&] {
    Result<Recipe> r = load_recipe_file(path);
    return r.ok() ? std::string("loaded") : r.error().location.file + "\t" + r.error().message;
  });
  std::filesystem::remove(path);
  EXPECT_NE(error.find("Permission denied"), std::string::npos) << error;
  EXPECT_EQ(error.rfind(path + "\t", 0), 0u) << error;
}

TEST(BadInput, MalformedYamlHasLineAndColumn) {
  Error e = load_error("model:\n  a: [1, 2\n  b: 3\n");
  EXPECT_EQ(e.location.file, "t.yaml");
  EXPECT_GT(e.location.line, 0);
  EXPECT_GT(e.location.column, 0);
  EXPECT_NE(e.message.find("malformed YAML"), std::string::npos);
  Error tab = load_error("model:\n\tnum_layers: 2\n");
  EXPECT_NE(tab.message.find("malformed YAML"), std::string::npos);
}

TEST(BadInput, DeeplyNestedFlowListDoesNotCrash) {
  std::string text = "model:\n  x: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
  Error e = load_error(text);
  EXPECT_NE(e.message.find("too deep"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.file, "t.yaml");
  EXPECT_GT(e.location.line, 0);
}

TEST(BadInput, DeeplyNestedFlowMapsDoNotCrash) {
  std::string text;
  for (int i = 0; i < 10000; ++i)
    text += "{a: ";
  text += "1" + std::string(10000, '}') + "\n";
  Error e = load_error(text);
  EXPECT_NE(e.message.find("too deep"), std::string::npos) << e.message;
}

TEST(BadInput, DeeplyNestedBlockListsDoNotCrash) {
  std::string text = "model:\n  x:\n    ";
  for (int i = 0; i < 10000; ++i)
    text += "- ";
  text += "1\n";
  Error e = load_error(text);
  EXPECT_NE(e.message.find("deep"), std::string::npos) << e.message;
}

TEST(BadInput, NestingBeyondOwnLimitIsAnError) {
  std::string text = "optimizer:\n  x: " + std::string(100, '[') + std::string(100, ']') + "\n";
  Error e = load_error(text);
  EXPECT_NE(e.message.find("nesting deeper than 64"), std::string::npos) << e.message;
}

TEST(BadInput, BinaryJunk) {
  std::string junk(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00",
      10);
  std::string path = write_temp("junk.yaml", junk + "\x03\xff\xfe");
  Result<Recipe> r = load_recipe_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("binary data"), std::string::npos) << r.error().str();
  EXPECT_EQ(r.error().location.line, 1);
}

TEST(BadInput, EmptyFileAndCommentsOnly) {
  EXPECT_NE(load_error("").message.find("empty recipe"), std::string::npos);
  EXPECT_NE(load_error("# only a comment\n\n").message.find("empty recipe"), std::string::npos);
}

TEST(BadInput, RootNotAMap) {
  Error list = load_error("- 1\n- 2\n");
  EXPECT_NE(list.message.find("got a list"), std::string::npos) << list.message;
  EXPECT_EQ(list.location.line, 1);
  Error scalar = load_error("just text\n");
  EXPECT_NE(scalar.message.find("got a scalar"), std::string::npos) << scalar.message;
}

TEST(BadInput, AliasBombIsBounded) {
  std::string text = "a: &a [1,1,1,1,1,1,1,1,1,1]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'k'; ++c) {
    text += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i)
      text += std::string(i ? ",*" : "*") + prev;
    text += "]\n";
    prev = c;
  }
  Error e = load_error("optimizer:\n  " + text.substr(0, 0) + "x: 1\n" + "logger:\n  " + [&] {
    std::string indented;
    for (char ch : text) {
      indented += ch;
      if (ch == '\n') indented += "  ";
    }
    return indented;
  }());
  EXPECT_NE(e.message.find("100000 nodes"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace hcp
