// Catalog §1: topology and process groups (CP001–CP007), and the pipeline split (CP008, CP009).
#include <optional>
#include <string>

#include "families.h"
#include "hcp/checked.h"

namespace hcp::rules {
namespace {

/// TP*PP*CP, times the GTP weight-rematerialisation factor of MCore main when set.
/// Checked: nullopt when the product overflows (the recipe loader bounds it; this never divides
/// by a wrapped 0).
std::optional<int64_t> total_model_size(const Recipe& recipe, const Layout& p) {
  auto size = checked_product({p.tp, p.pp, p.cp});
  if (!size) return std::nullopt;
  if (auto shards = recipe.get_int("model.tensor_parallel_num_weight_shards");
      shards && *shards > p.tp && p.tp > 0 && *shards % p.tp == 0) {
    size = checked_mul(*size, *shards / p.tp);
  }
  return size;
}

void check_world_divisible(const RuleContext& ctx, Reporter& r) {
  Layout p = layout_of(ctx.recipe);
  if (p.tp < 1 || p.pp < 1 || p.cp < 1) return;  // CP002 and the loader report bad sizes.
  if (!ctx.env.world_size) return r.skipped(Input::kWorldSize);
  std::optional<int64_t> checked = total_model_size(ctx.recipe, p);
  if (!checked || *checked < 1) return;  // The loader rejects sizes whose product overflows.
  int64_t factor = *checked / (p.tp * p.pp * p.cp);
  if (auto f = size_rules::world_divisible(*ctx.env.world_size, p.tp, p.pp, p.cp, factor)) {
    r.report(f->key, f->message);
  }
}

Rule cp001() {
  return {
      .id = "CP001",
      .severity = Severity::kError,
      .family = "topology",
      .title = "world size divisible by TP x PP x CP",
      .rationale =
          "Megatron builds its process groups as a grid of TP x PP x CP x DP ranks; when the "
          "world size is not a multiple of TP*PP*CP there is no data-parallel size and "
          "initialisation aborts. On MCore main the product also includes the GTP weight "
          "rematerialisation factor tensor_parallel_num_weight_shards / TP.",
      .upstream =
          "Megatron-Bridge src/megatron/bridge/training/config.py:1013-1027; Megatron-LM "
          "megatron/core/parallel_state.py:813-823, megatron/training/arguments.py:423-433",
      .fix = "choose TP, PP and CP whose product divides the world size, or change the GPU count",
      .enforced_by = {"bridge", "mcore", "mlm"},
      .bad_example = "model.pipeline_model_parallel_size=3",
      .good_example = "model.pipeline_model_parallel_size=2",
      .example_args = "--world-size 32",
      .check = check_world_divisible,
  };
}

void check_cp_positive(const RuleContext& ctx, Reporter& r) {
  const char* key = "model.context_parallel_size";
  if (const Value* cp = ctx.recipe.find(key); cp != nullptr && !cp->is_null()) {
    if (!cp->is_int()) {
      r.report(key, "context_parallel_size must be a positive integer, got " + cp->str());
    } else if (auto f = size_rules::context_parallel_positive(cp->as_int())) {
      r.report(f->key, f->message);
    }
  }
  const char* hcp_key = "model.hierarchical_context_parallel_sizes";
  if (auto hcp = ctx.recipe.get_int_list(hcp_key)) {
    for (int64_t level : *hcp) {
      if (level < 1) {
        r.report(hcp_key, "every hierarchical_context_parallel_sizes level must be >= 1, got " +
                              ctx.recipe.find(hcp_key)->str());
        break;
      }
    }
  }
}

Rule cp002() {
  return {
      .id = "CP002",
      .severity = Severity::kError,
      .family = "topology",
      .title = "CP must be a positive integer",
      .rationale =
          "context_parallel_size (and every hierarchical level) divides the world size; "
          "zero or negative sizes fail with a ZeroDivisionError or nonsense groups.",
      .upstream = "derived from the CP001 code paths (Megatron-LM megatron/core/parallel_state.py)",
      .fix = "set model.context_parallel_size to a positive integer (1 disables CP)",
      .enforced_by = {"mcore"},
      .bad_example = "model.hierarchical_context_parallel_sizes=[16,0]",
      .good_example = "model.hierarchical_context_parallel_sizes=[8,2]",
      .example_args = "",
      .check = check_cp_positive,
      .loader_rejects_bad_example = true,
  };
}

void check_global_batch(const RuleContext& ctx, Reporter& r) {
  auto gbs = ctx.recipe.get_int("train.global_batch_size");
  if (!gbs) return;
  int64_t mbs = ctx.recipe.int_or("train.micro_batch_size", 1);
  if (mbs < 1) return;
  if (!ctx.env.world_size) return r.skipped(Input::kWorldSize);
  auto dp = data_parallel_size(ctx.recipe, ctx.env);
  if (!dp) return;  // CP001 reports the indivisible world.
  if (*gbs % (mbs * *dp) == 0) return;
  r.report("train.global_batch_size",
           "global batch size (" + str(*gbs) + ") is not divisible by micro batch size (" +
               str(mbs) + ") times data parallel size (" + str(*dp) + "); DP = world " +
               str(*ctx.env.world_size) + " / (TP*PP*CP)");
}

Rule cp003() {
  return {
      .id = "CP003",
      .severity = Severity::kError,
      .family = "topology",
      .title = "global batch divisible by micro batch x DP",
      .rationale =
          "CP shrinks the data-parallel size (DP = WORLD/(TP*PP*CP)); the number of "
          "microbatches is GBS/(MBS*DP), which must be a whole number. Changing CP alone "
          "can break this.",
      .upstream = "Megatron-LM megatron/core/num_microbatches_calculator.py:381-386",
      .fix = "make train.global_batch_size a multiple of micro_batch_size * DP",
      .enforced_by = {"bridge", "mcore", "mlm"},
      .bad_example = "train.global_batch_size=3 train.micro_batch_size=1",
      .good_example = "train.global_batch_size=4 train.micro_batch_size=1",
      .example_args = "--world-size 32",
      .check = check_global_batch,
  };
}

void check_distopt_instances(const RuleContext& ctx, Reporter& r) {
  const char* key = "ddp.num_distributed_optimizer_instances";
  int64_t instances = ctx.recipe.int_or(key, 1);
  if (instances <= 1) return;
  if (!ctx.env.world_size) return r.skipped(Input::kWorldSize);
  auto dp = data_parallel_size(ctx.recipe, ctx.env);
  if (!dp) return;
  (void)key;
  if (auto f = size_rules::distopt_instances_divide(*dp * layout_of(ctx.recipe).cp, instances)) {
    r.report(f->key, f->message);
  }
}

Rule cp004() {
  return {
      .id = "CP004",
      .severity = Severity::kError,
      .family = "topology",
      .title = "distributed-optimizer instances divide DP x CP",
      .rationale =
          "Partial distributed-optimizer sharding splits the DP x CP ranks into "
          "num_distributed_optimizer_instances equal parts.",
      .upstream = "Megatron-LM megatron/core/parallel_state.py:921-926",
      .fix = "set ddp.num_distributed_optimizer_instances to a divisor of DP*CP",
      .enforced_by = {"mcore"},
      .bad_example = "++ddp.num_distributed_optimizer_instances=3",
      .good_example = "++ddp.num_distributed_optimizer_instances=2",
      .example_args = "--world-size 32",
      .check = check_distopt_instances,
  };
}

void check_expert_grid(const RuleContext& ctx, Reporter& r) {
  Layout p = layout_of(ctx.recipe);
  if (p.tp < 1 || p.pp < 1 || p.cp < 1 || p.ep < 1 || p.expert_tp() < 1) return;
  bool pp_last = !ctx.recipe.bool_or("dist.use_tp_pp_dp_mapping", false);
  if (auto f =
          size_rules::rank_ordering_same_dp(pp_last, p.pp, p.tp * p.cp, p.expert_tp() * p.ep)) {
    r.report(f->key, f->message, "rank_ordering");
  }
  if (p.ep == 1 && p.expert_tp() == p.tp) return;  // Implied by CP001 for dense models.
  if (!ctx.env.world_size) return r.skipped(Input::kWorldSize);
  if (auto f =
          size_rules::expert_world_divisible(*ctx.env.world_size, p.expert_tp(), p.ep, p.pp, 1)) {
    r.report(f->key, f->message);
  }
}

Rule cp005() {
  return {
      .id = "CP005",
      .severity = Severity::kError,
      .family = "topology",
      .title = "expert grid and rank ordering with CP",
      .rationale =
          "The expert grid is ETP x EP x PP with CP folded into expert-DP, so the world "
          "must divide by ETP*EP*PP. With tp-cp-ep-pp-dp ordering (use_tp_pp_dp_mapping) "
          "and PP>1 the attention and expert layers must have the same DP, i.e. "
          "TP*CP == ETP*EP.",
      .upstream =
          "Megatron-LM megatron/core/parallel_state.py:875-884, 898-902; Megatron-Bridge "
          "src/megatron/bridge/training/initialize.py:452-458, 817",
      .fix = "choose EP and ETP so that ETP*EP*PP divides the world size",
      .enforced_by = {"bridge", "mcore"},
      .bad_example = "++model.num_moe_experts=8 ++model.expert_model_parallel_size=3",
      .good_example = "++model.num_moe_experts=8 ++model.expert_model_parallel_size=2",
      .example_args = "--world-size 32",
      .check = check_expert_grid,
      .reads = layout_fields({LayoutField::kEp, LayoutField::kEtp}),
      .cases =
          {
              {.name = "rank_ordering",
               .severity = Severity::kError,
               .fix = "set dist.use_tp_pp_dp_mapping=false or make TP*CP equal ETP*EP"},
          },
  };
}

void check_sequence_parallel_needs_tp(const RuleContext& ctx, Reporter& r) {
  Layout p = layout_of(ctx.recipe);
  if (!p.sequence_parallel || p.tp != 1) return;
  if (ctx.env.framework == Framework::kMlm) {
    r.report("model.sequence_parallel",
             "Disabling sequence parallelism because tensor model parallelism is disabled "
             "(the MLM CLI turns sequence_parallel off when TP=1)",
             "mlm");
    return;
  }
  r.report("model.sequence_parallel",
           "sequence_parallel is ignored: Bridge's finalize() turns it off when TP <= 1, before "
           "MCore's check would raise (Megatron-Bridge models/transformer_config.py:175-176)");
}

Rule cp006() {
  return {
      .id = "CP006",
      .severity = Severity::kInfo,
      .family = "topology",
      .title = "sequence parallel needs TP > 1 (turned off when TP = 1)",
      .rationale =
          "Sequence parallelism splits activations across the TP group, so it means nothing at "
          "TP=1. MCore's ModelParallelConfig raises for it, but neither launcher gets there: "
          "Bridge's TransformerConfig.finalize() sets sequence_parallel=False when TP <= 1 "
          "before it runs MCore's __post_init__, and the MLM CLI warns and disables SP. The "
          "run trains without SP; the setting is dead.",
      .upstream =
          "Megatron-Bridge src/megatron/bridge/models/transformer_config.py:175-176 (067f987d); "
          "Megatron-LM megatron/core/model_parallel_config.py:502-504, "
          "megatron/training/arguments.py:1432-1440",
      .fix = "set model.sequence_parallel=false, or use TP > 1",
      .enforced_by = {"bridge", "mlm"},
      .bad_example = "++model.sequence_parallel=true",
      .good_example = "++model.sequence_parallel=false",
      .example_args = "",
      .check = check_sequence_parallel_needs_tp,
      .cases =
          {
              {.name = "mlm",
               .severity = Severity::kInfo,
               .fix = "drop model.sequence_parallel (SP is off without it), or use TP > 1"},
          },
  };
}

// --- Pipeline split (CP008, CP009): the layout asserts a user meets before the CP ones --------

/// How the model's layers are split over the pipeline stages, as MCore's
/// get_num_layers_to_build reads the config (transformer_block.py); nullopt when the split is
/// not one these rules check (PP 1, unknown num_layers, an explicit
/// pipeline_model_parallel_layout, or a hybrid Mamba pattern with its own split).
struct PipelineSplit {
  int64_t layers = 0;  ///< num_layers, plus one each for the embedding and loss when accounted.
  int64_t pp = 1;
  std::optional<int64_t> first;  ///< num_layers_in_first_pipeline_stage.
  std::optional<int64_t> last;   ///< num_layers_in_last_pipeline_stage.
  /// Layers and stages between the uneven first and last stages (all of them when even).
  int64_t middle_layers = 0;
  int64_t middle_stages = 0;
  bool uneven() const { return first.has_value() || last.has_value(); }
};

std::optional<PipelineSplit> pipeline_split(const Recipe& recipe) {
  Layout p = layout_of(recipe);
  auto layers = recipe.get_int("model.num_layers");
  if (p.pp <= 1 || !layers || *layers < 1) return std::nullopt;
  for (const char* key : {"model.pipeline_model_parallel_layout", "model.hybrid_layer_pattern",
                          "model.hybrid_override_pattern"}) {
    if (recipe.has(key)) return std::nullopt;
  }
  PipelineSplit split;
  split.pp = p.pp;
  split.first = recipe.get_int("model.num_layers_in_first_pipeline_stage");
  split.last = recipe.get_int("model.num_layers_in_last_pipeline_stage");
  split.layers = *layers;
  if (!split.uneven()) {
    split.layers +=
        (recipe.bool_or("model.account_for_embedding_in_pipeline_split", false) ? 1 : 0) +
        (recipe.bool_or("model.account_for_loss_in_pipeline_split", false) ? 1 : 0);
  }
  split.middle_layers = split.layers - split.first.value_or(0) - split.last.value_or(0);
  split.middle_stages = split.pp - (split.first ? 1 : 0) - (split.last ? 1 : 0);
  return split;
}

const char* kFirstStageKey = "model.num_layers_in_first_pipeline_stage";
const char* kLastStageKey = "model.num_layers_in_last_pipeline_stage";

/// The finding of an uneven split MCore rejects, or nullopt.
std::optional<std::pair<std::string, std::string>> uneven_split_problem(const PipelineSplit& s) {
  const char* key = s.first ? kFirstStageKey : kLastStageKey;
  if (s.first.value_or(1) <= 0 || s.last.value_or(1) <= 0) {
    const char* bad = s.first.value_or(1) <= 0 ? kFirstStageKey : kLastStageKey;
    return std::make_pair(std::string(bad), std::string(bad + 6) + " must be larger than 0");
  }
  if ((s.middle_layers != 0) != (s.middle_stages != 0) || s.middle_layers < 0) {
    return std::make_pair(std::string(key),
                          "Mismatch: " + str(s.middle_layers) + " middle layers remaining but " +
                              str(s.middle_stages) + " middle PP stages available (num_layers " +
                              str(s.layers) + ", pipeline_model_parallel_size " + str(s.pp) + ")");
  }
  if (s.middle_stages > 0 && s.middle_layers % s.middle_stages != 0) {
    return std::make_pair(std::string(key),
                          "number of layers at middle stage: " + str(s.middle_layers) +
                              " must be divisible by the middle pipeline model "
                              "parallel size " +
                              str(s.middle_stages));
  }
  return std::nullopt;
}

void check_layers_over_stages(const RuleContext& ctx, Reporter& r) {
  auto split = pipeline_split(ctx.recipe);
  if (!split) return;
  if (split->uneven()) {
    if (auto problem = uneven_split_problem(*split)) r.report(problem->first, problem->second);
    return;
  }
  if (split->layers % split->pp == 0) return;
  r.report("model.num_layers",
           "num_layers=" + str(split->layers) +
               " should be divisible by pipeline_model_parallel_size=" + str(split->pp) +
               " (MCore gives every pipeline stage the same number of layers; counted with the "
               "embedding and loss stages when account_for_*_in_pipeline_split is set)");
}

Rule cp008() {
  return {
      .id = "CP008",
      .severity = Severity::kError,
      .family = "topology",
      .title = "layers split evenly over the pipeline stages",
      .rationale =
          "MCore builds num_layers / PP transformer layers on every pipeline stage and asserts "
          "the division is exact (plus one for the embedding and one for the loss when they "
          "are accounted in the split). With num_layers_in_first/last_pipeline_stage set, the "
          "layers left must split evenly over the middle stages, and each given stage must "
          "hold at least one layer. The MLM CLI asserts the even split in validate_args.",
      .upstream =
          "Megatron-LM megatron/core/transformer/transformer_block.py:127-159, "
          "megatron/core/transformer/transformer_config.py:2295-2355, "
          "megatron/training/arguments.py:985-998 (d98e8a64)",
      .fix =
          "choose a pipeline_model_parallel_size that divides model.num_layers, or split unevenly "
          "with model.num_layers_in_first_pipeline_stage and "
          "model.num_layers_in_last_pipeline_stage",
      .enforced_by = {"mcore", "mlm"},
      .bad_example = "model.num_layers=30 model.pipeline_model_parallel_size=4",
      .good_example = "model.num_layers=32 model.pipeline_model_parallel_size=4",
      .example_args = "",
      .check = check_layers_over_stages,
  };
}

/// The layers of one pipeline rank that must split over the virtual stages: (key, layers) of the
/// given first and last stages and of every middle rank.
std::vector<std::pair<std::string, int64_t>> stage_layer_counts(const PipelineSplit& s) {
  std::vector<std::pair<std::string, int64_t>> counts;
  if (s.first) counts.emplace_back(kFirstStageKey, *s.first);
  if (s.last) counts.emplace_back(kLastStageKey, *s.last);
  if (s.middle_stages > 0 && s.middle_layers % s.middle_stages == 0) {
    counts.emplace_back(
        s.uneven() ? "model.num_layers" : "model.virtual_pipeline_model_parallel_size",
        s.middle_layers / s.middle_stages);
  }
  return counts;
}

void check_layers_over_virtual_stages(const RuleContext& ctx, Reporter& r) {
  auto split = pipeline_split(ctx.recipe);
  auto vp = ctx.recipe.get_int("model.virtual_pipeline_model_parallel_size");
  if (!split || !vp || *vp <= 1) return;
  if (!split->uneven() && split->layers % split->pp != 0) return;  // CP008's finding.
  if (split->uneven() && uneven_split_problem(*split)) return;     // CP008's finding.
  for (const auto& [key, layers] : stage_layer_counts(*split)) {
    if (layers % *vp == 0) continue;
    r.report(key, "the " + str(layers) +
                      " layers of a pipeline stage must be divisible by "
                      "virtual_pipeline_model_parallel_size " +
                      str(*vp) + " (each of the " + str(*vp) +
                      " model chunks of a stage holds the same number of layers; num_layers " +
                      str(split->layers) + ", pipeline_model_parallel_size " + str(split->pp) +
                      ")");
    return;
  }
}

Rule cp009() {
  return {
      .id = "CP009",
      .severity = Severity::kError,
      .family = "topology",
      .title = "layers of a pipeline stage split evenly over the virtual stages",
      .rationale =
          "With the interleaved schedule every pipeline rank holds VP model chunks of equal "
          "size: MCore asserts that the layers of each stage (num_layers / PP, or the given "
          "first/last stage sizes and the middle stages' share) divide by VP, so num_layers "
          "must be a multiple of PP x VP for an even split.",
      .upstream =
          "Megatron-LM megatron/core/transformer/transformer_block.py:161-178, "
          "megatron/core/transformer/transformer_config.py:2302-2370 (d98e8a64)",
      .fix =
          "choose a model.virtual_pipeline_model_parallel_size that divides the layers of each "
          "pipeline stage (num_layers / PP), or unset it",
      .enforced_by = {"mcore"},
      .bad_example =
          "model.pipeline_model_parallel_size=4 ++model.virtual_pipeline_model_parallel_size=3",
      .good_example =
          "model.pipeline_model_parallel_size=4 ++model.virtual_pipeline_model_parallel_size=2",
      .example_args = "",
      .check = check_layers_over_virtual_stages,
      .reads = layout_fields({LayoutField::kVp}),
  };
}

/// Return true when the dataset is one whose collate pads to the CP/SP multiple that Bridge
/// checks against seq_length: DirectHFSFT, Energon or MockVLMSFT (Megatron-Bridge 067f987d
/// src/megatron/bridge/training/config.py:1361-1371).
bool collate_padded_dataset(const Recipe& recipe) {
  for (const char* key :
       {"dataset._target_", "dataset.dataset_type", "dataset.type", "dataset.target"}) {
    if (auto type = recipe.get_string(key)) {
      for (const char* kind :
           {"DirectHFSFTDatasetConfig", "EnergonDatasetConfig", "MockVLMSFTDatasetConfig"}) {
        if (type->find(kind) != std::string::npos) return true;
      }
    }
  }
  return false;
}

int64_t gcd(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// Bridge's SFT collate padding multiple over the train and eval CP sizes (config.py:1354-1360):
/// lcm of 2*CP (CP > 1) and TP*CP (sequence parallel with TP > 1) for each CP size.
int64_t collate_padding_multiple(const Recipe& recipe, const Layout& p,
                                 std::optional<int64_t> eval_cp) {
  int64_t multiple = 1;
  bool sp = recipe.bool_or("model.sequence_parallel", false) && p.tp > 1;
  for (int64_t cp : {p.cp, eval_cp.value_or(p.cp)}) {
    for (int64_t m : {cp > 1 ? 2 * cp : 1, sp ? cp * p.tp : 1}) {
      if (m > 0) multiple = multiple / gcd(multiple, m) * m;
    }
  }
  return multiple;
}

void check_eval_cp(const RuleContext& ctx, Reporter& r) {
  const char* key = "dist.eval_context_parallel_size";
  auto eval_cp = ctx.recipe.get_int(key);
  if (eval_cp && *eval_cp < 1) return;
  Layout p = layout_of(ctx.recipe);
  if (p.tp < 1 || p.pp < 1 || p.cp < 1) return;
  if (eval_cp && !ctx.recipe.bool_or("dist.use_decentralized_pg", false)) {
    r.report(key,
             "dist.eval_context_parallel_size is documented to require use_decentralized_pg=True, "
             "but nothing enforces it",
             "decentralized_pg");
  }
  if (ctx.env.framework != Framework::kBridge) return;
  // The SFT collate pads to a multiple that includes the eval CP size (config.py:1354-1373).
  auto dataset_seq = ctx.recipe.get_int("dataset.seq_length");
  if (eval_cp && dataset_seq && collate_padded_dataset(ctx.recipe)) {
    int64_t multiple = collate_padding_multiple(ctx.recipe, p, eval_cp);
    if (*dataset_seq % multiple != 0) {
      r.report("dataset.seq_length",
               "dataset.seq_length (" + str(*dataset_seq) +
                   ") must be divisible by the CP/SP collate padding multiple (" + str(multiple) +
                   "), which counts eval_context_parallel_size=" + str(*eval_cp));
    }
  }
  bool explicit_eval_batch = ctx.recipe.has("validation.eval_global_batch_size") ||
                             ctx.recipe.has("validation.eval_micro_batch_size");
  if (!eval_cp && !explicit_eval_batch) return;  // same as training: CP003
  if (!ctx.env.world_size) return r.skipped(Input::kWorldSize);
  int64_t eval_model = p.tp * p.pp * eval_cp.value_or(p.cp);
  if (*ctx.env.world_size % eval_model != 0) {
    if (!eval_cp) return;  // CP001
    r.report(key, "world size (" + str(*ctx.env.world_size) +
                      ") is not divisible by eval model parallel size (TP*PP*eval CP = " +
                      str(eval_model) + ")");
    return;
  }
  // Eval batch divisibility with the eval layout's DP (config.py:1454-1479).
  int64_t eval_dp = *ctx.env.world_size / eval_model;
  auto gbs = ctx.recipe.get_int("validation.eval_global_batch_size");
  if (!gbs) gbs = ctx.recipe.get_int("train.global_batch_size");
  auto mbs = ctx.recipe.get_int("validation.eval_micro_batch_size");
  if (!mbs) mbs = ctx.recipe.get_int("train.micro_batch_size");
  if (!gbs || !mbs || *mbs < 1 || *gbs % (*mbs * eval_dp) == 0) return;
  const char* at = ctx.recipe.has("validation.eval_global_batch_size")
                       ? "validation.eval_global_batch_size"
                       : (eval_cp ? key : "train.global_batch_size");
  r.report(at, "eval_global_batch_size (" + str(*gbs) +
                   ") must be divisible by eval_micro_batch_size * eval_data_parallel_size (" +
                   str(*mbs) + " * " + str(eval_dp) + " = " + str(*mbs * eval_dp) + ")");
}

Rule cp007() {
  return {
      .id = "CP007",
      .severity = Severity::kError,
      .family = "topology",
      .title = "eval-time CP fits the world and the eval batch (Bridge)",
      .rationale =
          "dist.eval_context_parallel_size builds a second grid for validation: the world "
          "must divide by TP*PP*eval CP, the eval global batch by eval micro batch x eval "
          "DP, and for DirectHFSFT/Energon/MockVLMSFT datasets seq_length by the collate "
          "padding multiple of both CP sizes. Its docstring requires use_decentralized_pg="
          "True, which nothing checks (warning).",
      .upstream =
          "Megatron-Bridge 067f987d src/megatron/bridge/training/config.py:164-169, "
          "1354-1373, 1454-1479",
      .fix = "choose an eval CP whose TP*PP*CP divides the world size",
      .enforced_by = {"bridge"},
      .bad_example = "++dist.eval_context_parallel_size=3",
      .good_example = "++dist.eval_context_parallel_size=8 ++dist.use_decentralized_pg=true",
      .example_args = "--world-size 32",
      .check = check_eval_cp,
      .cases =
          {
              {.name = "decentralized_pg",
               .severity = Severity::kWarning,
               .fix = "set dist.use_decentralized_pg=true"},
          },
  };
}

}  // namespace

void add_topology_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp001, cp002, cp003, cp004, cp005, cp006, cp007, cp008, cp009})
    out.push_back(rule());
}

}  // namespace hcp::rules
