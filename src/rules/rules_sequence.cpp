// Catalog §4: sequence length, sequence parallel, packing and THD (CP040–CP049).
#include <numeric>
#include <string>

#include "families.h"
#include "hcp/te_matrix.h"

namespace hcp::rules {
namespace {

constexpr const char* kSeqKey = "model.seq_length";
constexpr const char* kPadKey = "dataset.offline_packing_specs.pad_seq_to_mult";

/// Key of the sequence length for locations: model.seq_length, else dataset.seq_length.
const char* seq_key(const Recipe& recipe) {
  return recipe.has(kSeqKey) ? kSeqKey : "dataset.seq_length";
}

void check_seq_divisible_by_2cp(const RuleContext& ctx, Reporter& r) {
  int64_t cp = layout_of(ctx.recipe).cp;
  auto s = sequence_length(ctx.recipe);
  if (cp <= 1 || !s || *s % (2 * cp) == 0) return;
  r.report(seq_key(ctx.recipe),
           "Sequence length must be divisible by 2 * context parallel size if context parallel is "
           "used: seq_length " +
               str(*s) + " % (2*" + str(cp) + ") = " + str(*s % (2 * cp)) +
               " (CP splits each sequence into 2*CP chunks for causal load balance)");
}

Rule cp040() {
  return {
      .id = "CP040",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "sequence length divisible by 2 x CP",
      .rationale =
          "CP splits each sequence into 2*CP chunks and gives rank r chunks r and "
          "2*CP-1-r to balance causal attention; the length must divide evenly.",
      .upstream =
          "Megatron-LM megatron/training/arguments.py:1335-1338; Megatron-Bridge "
          "src/megatron/bridge/training/config.py:1574-1577; TransformerEngine "
          ".../dot_product_attention/utils.py:1168",
      .fix = "make seq_length a multiple of 2 * context_parallel_size",
      .enforced_by = {"bridge", "mlm", "te"},
      .bad_example = "model.seq_length=130000 dataset.seq_length=130000",
      .good_example = "model.seq_length=131072 dataset.seq_length=131072",
      .example_args = "",
      .check = check_seq_divisible_by_2cp,
  };
}

void check_seq_parallel_split(const RuleContext& ctx, Reporter& r) {
  Layout p = layout_of(ctx.recipe);
  auto s = sequence_length(ctx.recipe);
  if (!p.sequence_parallel || p.tp <= 1 || p.cp <= 1 || !s || *s % p.cp != 0) return;
  if ((*s / p.cp) % p.tp == 0) return;
  int64_t multiple = std::lcm(2 * p.cp, p.tp * p.cp);
  r.report(seq_key(ctx.recipe),
           "with sequence parallel the per-CP-rank sequence (" + str(*s) + "/" + str(p.cp) + " = " +
               str(*s / p.cp) + ") must be divisible by TP (" + str(p.tp) +
               "): First dimension of the tensor should be divisible by tensor parallel size",
           {"sequence_parallel", str(multiple)});
}

Rule cp041() {
  return {
      .id = "CP041",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "sequence parallel with CP needs seq_length/CP divisible by TP",
      .rationale =
          "Sequence parallelism scatters each CP rank's chunk of S/CP tokens over the TP "
          "ranks; together with CP040 seq_length must be a multiple of lcm(2*CP, TP*CP).",
      .upstream =
          "Megatron-LM megatron/core/tensor_parallel/mappings.py:71-74, megatron/core/"
          "models/multimodal/context_parallel.py:55; Megatron-Bridge src/megatron/bridge/"
          "training/config.py:1354-1373",
      .fix = "make seq_length a multiple of lcm(2*CP, TP*CP)",
      .enforced_by = {"mcore"},
      .bad_example =
          "model.seq_length=131104 dataset.seq_length=131104 "
          "model.tensor_model_parallel_size=4 ++model.sequence_parallel=true",
      .good_example =
          "model.seq_length=131072 dataset.seq_length=131072 "
          "model.tensor_model_parallel_size=4 ++model.sequence_parallel=true",
      .example_args = "",
      .check = check_seq_parallel_split,
      .cases =
          {
              {.name = "sequence_parallel",
               .severity = Severity::kError,
               .fix = "make seq_length a multiple of lcm(2*CP, TP*CP) = {}"},
          },
  };
}

void check_seq_lengths_agree(const RuleContext& ctx, Reporter& r) {
  auto model = ctx.recipe.get_int(kSeqKey);
  auto dataset = ctx.recipe.get_int("dataset.seq_length");
  if (!model || !dataset || *model == *dataset) return;
  r.report(kSeqKey,
           "Please ensure sequence length configuration in model config and dataset "
           "config match: model.seq_length = " +
               str(*model) + " but dataset.seq_length = " + str(*dataset));
}

Rule cp042() {
  return {
      .id = "CP042",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "model and dataset sequence lengths agree",
      .rationale =
          "Bridge requires model.seq_length == dataset.seq_length; the CP rules use "
          "model.seq_length.",
      .upstream = "Megatron-Bridge src/megatron/bridge/training/config.py:1626-1647",
      .fix = "set dataset.seq_length (or -sl) so that both agree",
      .enforced_by = {"bridge"},
      .bad_example = "",
      .good_example = "-sl 65536",
      .example_args = "",
      .check = check_seq_lengths_agree,
      .bad_example_yaml = "model: {seq_length: 65536}",
  };
}

void check_packed_padding(const RuleContext& ctx, Reporter& r) {
  int64_t cp = layout_of(ctx.recipe).cp;
  if (cp <= 1 || !ctx.recipe.bool_or("dataset.enable_offline_packing", false)) return;
  int64_t pad = ctx.recipe.int_or(kPadKey, 1);
  if (pad >= 1 && pad % (2 * cp) == 0) return;
  const char* key = ctx.recipe.has(kPadKey) ? kPadKey : "dataset.enable_offline_packing";
  r.report(key, "packed sub-sequences are padded to a multiple of " + str(pad) +
                    ", not of 2*CP = " + str(2 * cp) +
                    ": sub-sequence length not aligned to 2 * cp_size (tokens go to the wrong "
                    "ranks or TE fails to reorder)");
}

Rule cp043() {
  return {
      .id = "CP043",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "packed (THD) sub-sequences padded to a multiple of 2 x CP",
      .rationale =
          "With packed input every sub-sequence is split into 2*CP chunks as well, so its "
          "padded length must divide by 2*CP. Bridge's offline packing pads to "
          "pad_seq_to_mult (default 1), which config.py does not check.",
      .upstream =
          "TransformerEngine .../dot_product_attention/context_parallel.py:4960-4966; "
          "Megatron-Bridge src/megatron/bridge/data/packing/config.py:39-48; issues "
          "NVIDIA/TransformerEngine#1929, NVIDIA-NeMo/Megatron-Bridge#1292",
      .fix = "set dataset.offline_packing_specs.pad_seq_to_mult to a multiple of 2*CP",
      .enforced_by = {"te"},
      .bad_example =
          "++dataset.enable_offline_packing=true "
          "++dataset.offline_packing_specs.pad_seq_to_mult=16",
      .good_example =
          "++dataset.enable_offline_packing=true "
          "++dataset.offline_packing_specs.pad_seq_to_mult=32",
      .example_args = "",
      .check = check_packed_padding,
  };
}

void check_thd_te_110(const RuleContext& ctx, Reporter& r) {
  if (layout_of(ctx.recipe).cp <= 1 || !uses_packed_sequences(ctx.recipe)) return;
  if (!ctx.env.te_version) return r.skipped(Input::kTeVersion);
  const Version& te = *ctx.env.te_version;
  if (te_supports(te, TeFeature::kThdPaddedSeqlens)) return;
  std::string why = !te_supports(te, TeFeature::kThdP2p)
                        ? "thd format not supported with context parallelism"
                        : "cu_seqlens_padded can not be None for context parallelism and "
                          "qkv_format = 'thd' (MCore drops it for TE < 1.10)";
  r.report(packing_key(ctx.recipe),
           "packed (THD) input with CP needs Transformer Engine >= 1.10 "
           "(found " +
               te.str() + "): " + why);
}

Rule cp044() {
  return {
      .id = "CP044",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "packed (THD) input with CP needs Transformer Engine >= 1.10",
      .rationale =
          "THD with CP needs cu_seqlens_padded, which MCore passes only to TE >= 1.10; TE "
          "below 1.7 has no THD support under CP at all.",
      .upstream =
          "Megatron-LM megatron/core/extensions/transformer_engine.py:2201-2207; "
          "TransformerEngine .../dot_product_attention/context_parallel.py:5050-5052",
      .fix = "upgrade Transformer Engine to >= 1.10",
      .enforced_by = {"te", "mcore"},
      .bad_example = "++dataset.enable_offline_packing=true --te-version 1.9.0",
      .good_example = "++dataset.enable_offline_packing=true --te-version 1.10.0",
      .example_args = "",
      .check = check_thd_te_110,
  };
}

void check_sft_per_token_loss(const RuleContext& ctx, Reporter& r) {
  if (ctx.env.framework != Framework::kBridge) return;
  if (layout_of(ctx.recipe).cp <= 1 || !is_finetuning_dataset(ctx.recipe)) return;
  if (!ctx.recipe.bool_or("model.calculate_per_token_loss", false)) {
    r.report("model.calculate_per_token_loss",
             "When finetuning with CP>1, calculate_per_token_loss must be True (ranks whose "
             "tokens are all masked give a NaN loss)");
  }
  if (ctx.recipe.bool_or("ddp.average_in_collective", false)) {
    r.report("ddp.average_in_collective",
             "When finetuning with CP>1, average_in_collective must be False",
             "average_in_collective");
  }
}

Rule cp045() {
  return {
      .id = "CP045",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "finetuning with CP needs per-token loss",
      .rationale =
          "With CP a rank can hold only masked tokens; averaging per rank gives NaN, so "
          "Bridge requires calculate_per_token_loss=True and average_in_collective=False "
          "for SFT datasets: a dump's dataset class (FinetuningDatasetConfig, HFDatasetConfig, "
          "GPTSFTDatasetConfig, DirectHFSFTDatasetConfig, EnergonDatasetConfig, "
          "MockVLMSFTDatasetConfig), else packing settings or the dataset type.",
      .upstream =
          "Megatron-Bridge src/megatron/bridge/training/config.py:1576-1596 @ 067f987d "
          "(1180-1190 @ a9497c6)",
      .fix = "set model.calculate_per_token_loss=true and ddp.average_in_collective=false",
      .enforced_by = {"bridge"},
      .bad_example = "++dataset.enable_offline_packing=true ++model.calculate_per_token_loss=false",
      .good_example = "++dataset.enable_offline_packing=true ++model.calculate_per_token_loss=true",
      .example_args = "",
      .check = check_sft_per_token_loss,
      .cases =
          {
              {.name = "average_in_collective",
               .severity = Severity::kError,
               .fix = "set ddp.average_in_collective=false"},
          },
  };
}

void check_packing_micro_batch(const RuleContext& ctx, Reporter& r) {
  int64_t mbs = ctx.recipe.int_or("train.micro_batch_size", 1);
  if (ctx.recipe.bool_or("dataset.enable_offline_packing", false) && mbs > 1) {
    r.report("train.micro_batch_size",
             "Micro batch size should be 1 when training with packed sequence, but your micro "
             "batch size is " +
                 str(mbs));
  }
  if (ctx.recipe.bool_or("dataset.enable_in_batch_packing", false) && mbs <= 1) {
    r.report("train.micro_batch_size",
             "in-batch packing packs the samples of one micro batch, so it needs "
             "micro_batch_size > 1 (got " +
                 str(mbs) + ")",
             "in_batch_packing");
  }
}

Rule cp046() {
  return {
      .id = "CP046",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "offline packing needs micro batch size 1",
      .rationale =
          "An offline-packed sample already fills the sequence; Bridge requires MBS=1 "
          "(in-batch packing, conversely, needs MBS>1).",
      .upstream = "Megatron-Bridge src/megatron/bridge/training/config.py:1600-1620",
      .fix = "set train.micro_batch_size=1 with offline packing",
      .enforced_by = {"bridge"},
      .bad_example = "++dataset.enable_offline_packing=true train.micro_batch_size=2",
      .good_example = "++dataset.enable_offline_packing=true train.micro_batch_size=1",
      .example_args = "",
      .check = check_packing_micro_batch,
      .cases =
          {
              {.name = "in_batch_packing",
               .severity = Severity::kError,
               .fix = "set train.micro_batch_size > 1 for in-batch packing"},
          },
  };
}

void check_thd_mcore_018(const RuleContext& ctx, Reporter& r) {
  if (ctx.env.framework != Framework::kBridge) return;
  if (layout_of(ctx.recipe).cp <= 1 || !uses_packed_sequences(ctx.recipe)) return;
  if (!ctx.env.mcore_version) return r.skipped(Input::kMcoreVersion);
  if (*ctx.env.mcore_version >= Version{0, 18, 0, ""}) return;
  r.report(packing_key(ctx.recipe),
           "THD context-parallel partitioning requires Megatron-Core >= 0.18.0 with "
           "get_batch_on_this_cp_rank(..., is_hybrid_cp=...); found " +
               ctx.env.mcore_version->str() + ". Please upgrade Megatron-Core.");
}

Rule cp047() {
  return {
      .id = "CP047",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "Bridge THD partitioning with CP needs Megatron-Core >= 0.18",
      .rationale =
          "Bridge partitions packed THD batches over CP ranks with "
          "get_batch_on_this_cp_rank(..., is_hybrid_cp=...), which first appears in "
          "MCore 0.18.",
      .upstream =
          "Megatron-Bridge src/megatron/bridge/training/utils/packed_seq_utils.py:28, "
          "52-60",
      .fix = "upgrade Megatron-Core to >= 0.18.0",
      .enforced_by = {"bridge"},
      .bad_example = "++dataset.enable_offline_packing=true --mcore-version 0.17.0",
      .good_example = "++dataset.enable_offline_packing=true --mcore-version 0.18.0",
      .example_args = "",
      .check = check_thd_mcore_018,
  };
}

void check_fp8_alignment(const RuleContext& ctx, Reporter& r) {
  const char* key = nullptr;
  for (const char* k : {"model.fp8", "mixed_precision.fp8"}) {
    if (ctx.recipe.has(k)) key = k;
  }
  int64_t cp = layout_of(ctx.recipe).cp;
  auto s = sequence_length(ctx.recipe);
  if (key == nullptr || cp <= 1 || !s || *s % cp != 0) return;
  int64_t mbs = ctx.recipe.int_or("train.micro_batch_size", 1);
  int64_t tokens = (*s / cp) * mbs;
  if (tokens % 8 == 0) return;
  r.report(seq_key(ctx.recipe),
           "FP8 GEMMs need the token count per CP rank divisible by 8 (16 is safer): (seq_length/"
           "CP) * micro_batch_size = (" +
               str(*s) + "/" + str(cp) + ") * " + str(mbs) + " = " + str(tokens));
}

Rule cp048() {
  return {
      .id = "CP048",
      .severity = Severity::kWarning,
      .family = "sequence",
      .title = "FP8 GEMM alignment of the tokens per CP rank",
      .rationale =
          "FP8 GEMMs need the product of all dimensions but the last divisible by 8 (and "
          "the last by 16); under CP that is (S/CP) * micro batch tokens per rank.",
      .upstream =
          "TransformerEngine transformer_engine/pytorch/utils.py:614-625; "
          "NVIDIA-NeMo/NeMo PR #8869",
      .fix = "pad the sequence so that seq_length/CP is a multiple of 16",
      .enforced_by = {"te"},
      .bad_example = "++model.fp8=hybrid model.seq_length=131136 dataset.seq_length=131136",
      .good_example = "++model.fp8=hybrid model.seq_length=131072 dataset.seq_length=131072",
      .example_args = "",
      .check = check_fp8_alignment,
  };
}

void check_thd_rope_fusion(const RuleContext& ctx, Reporter& r) {
  if (layout_of(ctx.recipe).cp <= 1 || !uses_packed_sequences(ctx.recipe)) return;
  if (!ctx.recipe.bool_or("model.apply_rope_fusion", false)) return;
  if (!ctx.env.te_version) return r.skipped(Input::kTeVersion);
  if (te_supports(*ctx.env.te_version, TeFeature::kRopeFusionThd)) return;
  r.report("model.apply_rope_fusion",
           "Only TE >= 1.12 supports RoPE fusion for THD format with "
           "CP (found " +
               ctx.env.te_version->str() + ")");
}

Rule cp049() {
  return {
      .id = "CP049",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "fused RoPE with packed (THD) input and CP needs Transformer Engine >= 1.12",
      .rationale = "MCore's fused RoPE for THD under CP relies on TE 1.12 kernels.",
      .upstream = "Megatron-LM megatron/core/extensions/transformer_engine.py:3539-3552",
      .fix = "set model.apply_rope_fusion=false or upgrade Transformer Engine to >= 1.12",
      .enforced_by = {"mcore"},
      .bad_example =
          "++dataset.enable_offline_packing=true ++model.apply_rope_fusion=true "
          "--te-version 1.11.0",
      .good_example =
          "++dataset.enable_offline_packing=true ++model.apply_rope_fusion=true "
          "--te-version 1.12.0",
      .example_args = "",
      .check = check_thd_rope_fusion,
  };
}

// --- CP053 ---------------------------------------------------------------------------------

void check_max_position_embeddings(const RuleContext& ctx, Reporter& r) {
  // Megatron-LM d98e8a64 megatron/training/arguments.py:1353-1356 (validate_args, MLM CLI only).
  if (ctx.env.framework != Framework::kMlm) return;
  auto max_pos = ctx.recipe.get_int("model.max_position_embeddings");
  auto seq = sequence_length(ctx.recipe);
  if (!max_pos || !seq || *max_pos >= *seq) return;
  r.report("model.max_position_embeddings", "max_position_embeddings (" + str(*max_pos) +
                                                ") must be greater than or equal to seq_length (" +
                                                str(*seq) + ").");
}

Rule cp053() {
  return {
      .id = "CP053",
      .severity = Severity::kError,
      .family = "sequence",
      .title = "Megatron-LM: seq_length at most max_position_embeddings",
      .rationale =
          "The Megatron-LM CLI asserts --max-position-embeddings >= --seq-length; "
          "long-context CP runs that raise only --seq-length stop there.",
      .upstream = "Megatron-LM d98e8a64 megatron/training/arguments.py:1353-1356",
      .fix = "raise --max-position-embeddings to at least --seq-length",
      .enforced_by = {"mlm"},
      .bad_example = "++model.max_position_embeddings=65536",
      .good_example = "",
      .example_args = "--framework mlm",
      .check = check_max_position_embeddings,
      // --max-position-embeddings is an MLM argument (hcp-plan validate --framework mlm on
      // Megatron-LM arguments); the generated schema knows the field, so the example loads.
      .loader_rejects_bad_example = false,
  };
}

}  // namespace

void add_sequence_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() :
       {cp040, cp041, cp042, cp043, cp044, cp045, cp046, cp047, cp048, cp049, cp053})
    out.push_back(rule());
}

}  // namespace hcp::rules
