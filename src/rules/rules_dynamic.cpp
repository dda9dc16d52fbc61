// Catalog §6: hybrid context parallelism (MCore main, model.hybrid_context_parallel) and dynamic
// context parallelism (MCore dev, model.dynamic_context_parallel), CP080–CP096. Both build
// variable-size CP groups out of the DP x CP ranks at run time; not to be confused with
// hierarchical CP (a2a+p2p).
#include <cmath>
#include <string>

#include "families.h"
#include "hcp/te_matrix.h"

namespace hcp::rules {
namespace {

/// Validate options of the examples of the rules only the MLM CLI checks.
constexpr const char* kMlmExampleArgs = "--framework mlm --world-size 32";

constexpr const char* kHybridKey = "model.hybrid_context_parallel";
constexpr const char* kDynamicKey = "model.dynamic_context_parallel";
constexpr const char* kMaxSeqKey = "model.max_seqlen_per_dp_cp_rank";
constexpr const char* kSchedulerKey = "model.sequence_packing_scheduler";
constexpr const char* kAlignKey = "model.pad_packed_seq_alignment";

bool hybrid(const Recipe& recipe) {
  return recipe.bool_or(kHybridKey, false);
}
bool dynamic(const Recipe& recipe) {
  return recipe.bool_or(kDynamicKey, false);
}
std::string flag_key(const Recipe& recipe) {
  return hybrid(recipe) ? kHybridKey : kDynamicKey;
}
std::string flag_name(const Recipe& recipe) {
  return hybrid(recipe) ? "hybrid_context_parallel" : "dynamic_context_parallel";
}

bool is_power_of_two(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

/// The scheduler in effect: the configured one, or default_dynamic_cp which dynamic CP sets.
std::optional<std::string> scheduler(const Recipe& recipe) {
  if (auto s = recipe.get_string(kSchedulerKey)) return s;
  if (dynamic(recipe)) return std::string("default_dynamic_cp");
  return std::nullopt;
}

bool cuda_graphs(const Recipe& recipe) {
  auto impl = recipe.get_string("model.cuda_graph_impl");
  return impl && *impl != "none";
}

/// Return DP*CP, recording the skip when the world size is unknown.
std::optional<int64_t> dp_cp_ranks(const RuleContext& ctx, Reporter& r) {
  auto dp = data_parallel_size(ctx.recipe, ctx.env);
  if (!dp) {
    if (!ctx.env.world_size) r.skipped(Input::kWorldSize);
    return std::nullopt;
  }
  return *dp * layout_of(ctx.recipe).cp;
}

/// Report the restrictions that only the MLM CLI checks: errors under --framework mlm, warnings
/// (runtime failure, no launch-time check) under Bridge.
void report_cli_restriction(const RuleContext& ctx, Reporter& r, const std::string& key,
                            const std::string& message) {
  if (ctx.env.framework == Framework::kMlm) {
    r.report(key, message);
  } else {
    r.report(key, message + " (checked only by the Megatron-LM CLI; Bridge does not stop it)",
             "bridge");
  }
}

// --- CP080 / CP091 -------------------------------------------------------------------------

void check_restrictions(const RuleContext& ctx, Reporter& r, const std::string& what,
                        bool forbid_pp) {
  const Recipe& recipe = ctx.recipe;
  if (forbid_pp && layout_of(recipe).pp > 1) {
    report_cli_restriction(ctx, r, "model.pipeline_model_parallel_size",
                           what + " not supported with pipeline parallelism");
  }
  // The CLI's assert reads args.enable_cuda_graph (Megatron-LM d98e8a64
  // megatron/training/arguments.py:1446; dev d48bd6be :1541-1544), which only the deprecated
  // --enable-cuda-graph sets; validate_args deletes that attribute after turning it into
  // --cuda-graph-impl=local (main :611-624), so the flag ends in an AttributeError there and
  // --cuda-graph-impl alone passes the check.
  if (recipe.bool_or("model.enable_cuda_graph", false)) {
    report_cli_restriction(ctx, r, "model.enable_cuda_graph",
                           what + " not supported with CUDA Graph");
  } else if (cuda_graphs(recipe)) {
    r.report("model.cuda_graph_impl",
             what +
                 " with CUDA graphs: the Megatron-LM CLI means to reject it, but its check reads "
                 "the deprecated --enable-cuda-graph, so cuda_graph_impl alone is not stopped",
             "cuda_graph_impl");
  }
  if (megatron_fsdp(recipe)) {
    report_cli_restriction(ctx, r, "dist.use_megatron_fsdp",
                           what + " not supported with Megatron FSDP");
  }
  auto loader = recipe.get_string("dataset.dataloader_type");
  if (loader && *loader != "single") {
    report_cli_restriction(
        ctx, r, "dataset.dataloader_type",
        what + " only supported with single dataloader type (got " + *loader + ")");
  }
  if (!recipe.bool_or("model.calculate_per_token_loss", false)) {
    report_cli_restriction(ctx, r, "model.calculate_per_token_loss",
                           what + " must be used with --calculate-per-token-loss");
  }
}

void check_hybrid_restrictions(const RuleContext& ctx, Reporter& r) {
  if (hybrid(ctx.recipe)) check_restrictions(ctx, r, "Hybrid context parallelism", true);
}

Rule cp080() {
  return {
      .id = "CP080",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "hybrid CP restrictions (PP, CUDA graphs, FSDP, dataloader, per-token loss)",
      .rationale =
          "The MLM CLI rejects hybrid CP with PP>1, CUDA graphs, Megatron FSDP, a "
          "non-single dataloader, or without per-token loss. Bridge and MCore check none "
          "of it. The CUDA-graph assert reads args.enable_cuda_graph, so only the deprecated "
          "--enable-cuda-graph is rejected; --cuda-graph-impl alone gets a warning.",
      .upstream = "Megatron-LM d98e8a64 megatron/training/arguments.py:1444-1449, 611-631",
      .fix =
          "hybrid CP with PP=1, no CUDA graphs, no Megatron FSDP, dataloader_type=single, "
          "calculate_per_token_loss=true",
      .enforced_by = {"mlm"},
      .bad_example = "++model.hybrid_context_parallel=true ++model.max_seqlen_per_dp_cp_rank=8192",
      .good_example =
          "++model.hybrid_context_parallel=true ++model.max_seqlen_per_dp_cp_rank=8192 "
          "++model.calculate_per_token_loss=true",
      .example_args = kMlmExampleArgs,
      .check = check_hybrid_restrictions,
      .cases =
          {
              {.name = "bridge", .severity = Severity::kWarning},
              {.name = "cuda_graph_impl", .severity = Severity::kWarning},
          },
  };
}

void check_dynamic_restrictions(const RuleContext& ctx, Reporter& r) {
  if (dynamic(ctx.recipe)) check_restrictions(ctx, r, "Dynamic context parallelism", false);
}

Rule cp091() {
  return {
      .id = "CP091",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) dynamic CP restrictions (CUDA graphs, FSDP, dataloader, per-token loss)",
      .rationale =
          "The dev MLM CLI rejects dynamic CP with CUDA graphs, Megatron FSDP, a "
          "non-single dataloader or without per-token loss (no PP restriction on dev).",
      .upstream = "Megatron-LM dev megatron/training/arguments.py:1541-1553",
      .fix = "dataloader_type=single, calculate_per_token_loss=true, no CUDA graphs or FSDP",
      .enforced_by = {"mlm"},
      .bad_example = "++model.dynamic_context_parallel=true",
      .good_example = "",
      .example_args = kMlmExampleArgs,
      .check = check_dynamic_restrictions,
      .cases =
          {
              {.name = "bridge", .severity = Severity::kWarning},
              {.name = "cuda_graph_impl", .severity = Severity::kWarning},
          },
  };
}

// --- CP081 ---------------------------------------------------------------------------------

void check_domain_shape(const RuleContext& ctx, Reporter& r) {
  if (!uses_dynamic_cp(ctx.recipe)) return;
  auto ranks = dp_cp_ranks(ctx, r);
  if (!ranks) return;
  if (auto f = size_rules::dynamic_domain_even(hybrid(ctx.recipe), *ranks)) {
    r.report(f->key, f->message);
  } else if (!is_power_of_two(*ranks)) {
    r.report(flag_key(ctx.recipe),
             "DP*CP = " + std::to_string(*ranks) +
                 " is not a power of two: groups are slices ranks[i:i+g] for powers of two g, so "
                 "a trailing group is smaller than its key (a 6-rank domain gives a 2-rank group "
                 "under key 4)",
             "not_power_of_two");
  }
}

Rule cp081() {
  return {
      .id = "CP081",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "hybrid/dynamic CP needs an even (power-of-two) DP x CP domain",
      .rationale =
          "Upstream asserts an even number of ranks; groups are power-of-two slices, so "
          "a non-power-of-two domain yields a group smaller than its key (PR #5679).",
      .upstream = "Megatron-LM megatron/core/parallel_state.py:440-462, 1040-1050",
      .fix = "use a power-of-two DP*CP",
      .enforced_by = {"mcore"},
      .bad_example =
          "++model.hybrid_context_parallel=true model.context_parallel_size=3 "
          "model.hierarchical_context_parallel_sizes=null --world-size 3",
      .good_example = "++model.hybrid_context_parallel=true --world-size 32",
      .example_args = "",
      .check = check_domain_shape,
      .cases =
          {
              {.name = "not_power_of_two",
               .severity = Severity::kWarning,
               .fix = "use a power-of-two DP*CP domain"},
          },
  };
}

// --- CP082 ---------------------------------------------------------------------------------

void check_max_seqlen_set(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!uses_dynamic_cp(recipe) || recipe.has(kMaxSeqKey)) return;
  if (dynamic(recipe) && !hybrid(recipe) && ctx.env.framework == Framework::kMlm) {
    r.report(flag_key(recipe),
             "max_seqlen_per_dp_cp_rank is unset; the dev MLM CLI derives ceil(S / total CP "
             "ranks)",
             "mlm_derived");
    return;
  }
  r.report(flag_key(recipe), flag_name(recipe) +
                                 " needs max_seqlen_per_dp_cp_rank; unset it raises a TypeError "
                                 "in the scheduler (2 ** ceil(log2(seq_len / None)))");
}

Rule cp082() {
  return {
      .id = "CP082",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "hybrid CP needs max_seqlen_per_dp_cp_rank",
      .rationale =
          "The hybrid-CP scheduler computes 2**ceil(log2(seq_len / max_seqlen)) without "
          "a None check; only the dev MLM CLI derives a value.",
      .upstream =
          "Megatron-LM megatron/core/pipeline_parallel/hybrid_cp_schedule.py:44-53; "
          "megatron/core/datasets/data_schedule.py:109-111",
      .fix = "set model.max_seqlen_per_dp_cp_rank (tokens one rank holds)",
      .enforced_by = {"mcore"},
      .bad_example = "++model.hybrid_context_parallel=true",
      .good_example = "++model.hybrid_context_parallel=true ++model.max_seqlen_per_dp_cp_rank=8192",
      .example_args = "",
      .check = check_max_seqlen_set,
      .cases =
          {
              {.name = "mlm_derived", .severity = Severity::kInfo},
          },
  };
}

// --- CP083 ---------------------------------------------------------------------------------

void check_pool_capacity(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  auto sched = scheduler(recipe);
  if (!hybrid(recipe) && !sched) return;
  auto max_seq = recipe.get_int(kMaxSeqKey);
  auto seq = sequence_length(recipe);
  if (!max_seq || *max_seq < 1 || !seq) return;
  int64_t cp = layout_of(recipe).cp;
  if (hybrid(recipe)) {
    auto ranks = dp_cp_ranks(ctx, r);
    if (!ranks) return;
    double ratio = static_cast<double>(*seq) / static_cast<double>(*max_seq);
    auto needed = static_cast<int64_t>(std::exp2(std::ceil(std::log2(std::max(ratio, 1.0)))));
    if (needed > *ranks) {
      r.report(kMaxSeqKey, "a " + std::to_string(*seq) + "-token sample needs " +
                               std::to_string(needed) +
                               " ranks at max_seqlen_per_dp_cp_rank=" + std::to_string(*max_seq) +
                               ", but DP*CP = " + std::to_string(*ranks));
    }
    return;
  }
  std::optional<int64_t> total = cp;
  if (*sched != "dp_balanced") total = dp_cp_ranks(ctx, r);
  if (!total) return;
  if (*total * *max_seq < *seq) {
    r.report(kMaxSeqKey, "Packed sequence buffer size (" + std::to_string(*total * *max_seq) +
                             ") must be >= single sequence max length (" + std::to_string(*seq) +
                             ")");
  }
}

Rule cp083() {
  return {
      .id = "CP083",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "the DP x CP pool holds the longest sample",
      .rationale =
          "A sample needs 2**ceil(log2(S/max_seqlen_per_dp_cp_rank)) ranks (main), or "
          "the packed buffer total_cp_ranks*max_seqlen must hold S (dev).",
      .upstream =
          "Megatron-LM hybrid_cp_schedule.py:44-53, 365-374; dev megatron/training/"
          "arguments.py:1783-1798",
      .fix = "raise max_seqlen_per_dp_cp_rank or the DP x CP size",
      .enforced_by = {"mcore", "mlm"},
      .bad_example =
          "++model.hybrid_context_parallel=true ++model.max_seqlen_per_dp_cp_rank=1024 "
          "--world-size 32",
      .good_example =
          "++model.hybrid_context_parallel=true ++model.max_seqlen_per_dp_cp_rank=8192 "
          "--world-size 32",
      .example_args = "",
      .check = check_pool_capacity,
  };
}

// --- CP084 ---------------------------------------------------------------------------------

void check_sample_alignment(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!hybrid(recipe)) return;
  auto seq = sequence_length(recipe);
  auto ranks = dp_cp_ranks(ctx, r);
  if (!seq || !ranks) return;
  Layout p = layout_of(recipe);
  int64_t multiple = 2 * *ranks * (p.sequence_parallel ? p.tp : 1);
  if (*seq % multiple == 0) return;
  r.report("model.seq_length", "hybrid CP samples should be divisible by 2*DP*CP" +
                                   std::string(p.sequence_parallel ? "*TP" : "") + " = " +
                                   std::to_string(multiple) + "; seq_length is " +
                                   std::to_string(*seq));
}

Rule cp084() {
  return {
      .id = "CP084",
      .severity = Severity::kWarning,
      .family = "dynamic",
      .title = "hybrid CP samples divisible by 2 x DP x CP (x TP with SP)",
      .rationale = "Documented in the GPT dataset docstring, not enforced.",
      .upstream = "Megatron-LM megatron/core/datasets/gpt_dataset.py:62-67",
      .fix = "pad samples to a multiple of 2*DP*CP (times TP with sequence parallel)",
      .enforced_by = {},
      .bad_example =
          "++model.hybrid_context_parallel=true --world-size 32 "
          "model.seq_length=131000 dataset.seq_length=131000",
      .good_example = "++model.hybrid_context_parallel=true --world-size 32",
      .example_args = "",
      .check = check_sample_alignment,
  };
}

// --- CP085 ---------------------------------------------------------------------------------

void check_hybrid_model(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!uses_dynamic_cp(recipe)) return;
  if (recipe.bool_or("model.multi_latent_attention", false)) {
    r.report("model.multi_latent_attention",
             flag_name(recipe) + " is not supported with MLA yet and is planned for future.");
  }
  if (hybrid(recipe) && recipe.bool_or("dataset.varlen_sbhd_validation", false)) {
    r.report("dataset.varlen_sbhd_validation",
             "--varlen-sbhd-validation is incompatible with --hybrid-context-parallel (SBHD mode "
             "is not packed).");
  }
}

Rule cp085() {
  return {
      .id = "CP085",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "hybrid CP model restrictions (MLA, SBHD validation)",
      .rationale =
          "MLA rejects hybrid CP; the GPT dataset's varlen SBHD validation cannot be "
          "combined with it.",
      .upstream =
          "Megatron-LM megatron/core/transformer/multi_latent_attention.py:684-688; "
          "megatron/core/datasets/gpt_dataset.py:123-127",
      .fix = "use static CP for MLA models",
      .enforced_by = {"mcore"},
      .bad_example = "++model.hybrid_context_parallel=true ++model.multi_latent_attention=true",
      .good_example = "++model.hybrid_context_parallel=true",
      .example_args = "",
      .check = check_hybrid_model,
  };
}

// --- CP086 ---------------------------------------------------------------------------------

void check_hybrid_broken(const RuleContext& ctx, Reporter& r) {
  if (!hybrid(ctx.recipe)) return;
  Version mcore = mcore_version_or_latest(ctx, r);
  if (mcore > Version{0, 19, 0, {}}) return;
  r.report(kHybridKey,
           "hybrid CP is broken end to end on MCore " + mcore.str() +
               " (<= 0.19.0): cp_stream is never allocated when static CP == 1 ('NoneType' object "
               "has no attribute 'wait_event'), RoPE uses the static CP group, and the dataloader "
               "and get_batch schemas disagree (Megatron-LM PRs #6816, #6820, #6821)");
}

Rule cp086() {
  return {
      .id = "CP086",
      .severity = Severity::kWarning,
      .family = "dynamic",
      .title = "hybrid CP broken end to end on MCore <= 0.19.0",
      .rationale =
          "cp_stream allocated only for static CP>1, RoPE on the static group, and a "
          "dataloader/get_batch schema mismatch; fixed after core_v0.19.0.",
      .upstream =
          "Megatron-LM megatron/core/extensions/transformer_engine.py:2129-2139, "
          "2256-2265; PRs #6816, #6820, #6821",
      .fix = "use MCore with PRs #6820/#6821, or static CP",
      .enforced_by = {},
      .bad_example = "++model.hybrid_context_parallel=true --mcore-version 0.19.0",
      .good_example = "++model.hybrid_context_parallel=true --mcore-version 0.20.0",
      .example_args = "",
      .check = check_hybrid_broken,
  };
}

// --- CP087 ---------------------------------------------------------------------------------

void check_regroup_hierarchical(const RuleContext& ctx, Reporter& r) {
  if (!uses_dynamic_cp(ctx.recipe) || !uses_comm_type(ctx.recipe, "a2a+p2p")) return;
  r.report("model.cp_comm_type",
           flag_name(ctx.recipe) +
               " regroups CP at run time into one group per sample, and TE then asserts: CP "
               "implementation a2a+p2p requires cp_group = [a2a_cp_group, p2p_cp_group]!");
}

Rule cp087() {
  return {
      .id = "CP087",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "hybrid/dynamic CP cannot use a2a+p2p",
      .rationale =
          "At run time MCore hands TE a single dynamic CP group, and TE's a2a+p2p needs "
          "a two-level group list.",
      .upstream =
          "Megatron-LM megatron/core/extensions/transformer_engine.py:2256-2265; "
          "TransformerEngine .../context_parallel.py:5020-5023",
      .fix = "use p2p (or a2a) with hybrid/dynamic CP",
      .enforced_by = {"te"},
      .bad_example = "++model.hybrid_context_parallel=true",
      .good_example = "++model.hybrid_context_parallel=true model.cp_comm_type=p2p",
      .example_args = "",
      .check = check_regroup_hierarchical,
  };
}

// --- CP088 ---------------------------------------------------------------------------------

void check_flags_exclusive(const RuleContext& ctx, Reporter& r) {
  if (!hybrid(ctx.recipe) || !dynamic(ctx.recipe)) return;
  r.report(kDynamicKey,
           "Cannot set both hybrid_context_parallel and dynamic_context_parallel. "
           "Please use dynamic_context_parallel only.");
}

Rule cp088() {
  return {
      .id = "CP088",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) hybrid_context_parallel and dynamic_context_parallel are exclusive",
      .rationale =
          "On dev, hybrid_context_parallel is a deprecated alias of "
          "dynamic_context_parallel; setting both raises.",
      .upstream = "Megatron-LM dev megatron/core/model_parallel_config.py:497-508",
      .fix = "set dynamic_context_parallel only",
      .enforced_by = {"mcore"},
      .bad_example = "++model.hybrid_context_parallel=true ++model.dynamic_context_parallel=true",
      .good_example = "++model.hybrid_context_parallel=true",
      .example_args = "",
      .check = check_flags_exclusive,
  };
}

// --- CP089 ---------------------------------------------------------------------------------

void check_dynamic_scheduler(const RuleContext& ctx, Reporter& r) {
  if (!dynamic(ctx.recipe)) return;
  auto s = ctx.recipe.get_string(kSchedulerKey);
  if (!s || *s == "default_dynamic_cp") return;
  r.report(kSchedulerKey,
           "Dynamic context parallelism requires "
           "sequence_packing_scheduler=default_dynamic_cp (got " +
               *s + ")");
}

Rule cp089() {
  return {
      .id = "CP089",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) dynamic CP requires the default_dynamic_cp scheduler",
      .rationale =
          "Dynamic CP sets sequence_packing_scheduler to default_dynamic_cp when unset "
          "and rejects any other.",
      .upstream = "Megatron-LM dev megatron/core/model_parallel_config.py:510-517",
      .fix = "leave sequence_packing_scheduler unset or default_dynamic_cp",
      .enforced_by = {"mcore", "mlm"},
      .bad_example =
          "++model.dynamic_context_parallel=true "
          "++model.sequence_packing_scheduler=dp_balanced",
      .good_example = "++model.hybrid_context_parallel=true",
      .example_args = "",
      .check = check_dynamic_scheduler,
  };
}

// --- CP090 ---------------------------------------------------------------------------------

void check_min_dynamic_size(const RuleContext& ctx, Reporter& r) {
  const char* key = "model.min_dynamic_context_parallel_size";
  auto min = ctx.recipe.get_int(key);
  if (!min || !dynamic(ctx.recipe)) return;
  if (auto f = size_rules::min_dynamic_size_positive(*min)) {
    r.report(f->key, f->message);
    return;
  }
  if (!is_power_of_two(*min)) {
    r.report(key,
             "min_dynamic_context_parallel_size=" + std::to_string(*min) +
                 " is not a power of two: groups exist only for powers of two, so a sample "
                 "assigned the minimum finds no group",
             "not_power_of_two");
  }
  auto ranks = dp_cp_ranks(ctx, r);
  if (ranks && *min > *ranks) {
    report_cli_restriction(ctx, r, key,
                           "min_dynamic_context_parallel_size (" + std::to_string(*min) +
                               ") must be <= dp_size * cp_size (" + std::to_string(*ranks) + ")");
  }
}

Rule cp090() {
  return {
      .id = "CP090",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) min_dynamic_context_parallel_size in [1, DP*CP], a power of two",
      .rationale =
          "MCore asserts >= 1, the MLM CLI <= DP*CP; groups exist only for powers of "
          "two, so another minimum can find no group.",
      .upstream =
          "Megatron-LM dev megatron/core/model_parallel_config.py:519-523; dev "
          "megatron/training/arguments.py:1562-1566",
      .fix = "use a power of two between 1 and DP*CP",
      .enforced_by = {"mcore", "mlm"},
      .bad_example =
          "++model.dynamic_context_parallel=true "
          "++model.min_dynamic_context_parallel_size=3",
      .good_example =
          "++model.dynamic_context_parallel=true "
          "++model.min_dynamic_context_parallel_size=2",
      .example_args = "--world-size 32",
      .check = check_min_dynamic_size,
      .cases =
          {
              {.name = "bridge", .severity = Severity::kWarning},
              {.name = "not_power_of_two",
               .severity = Severity::kWarning,
               .fix = "use a power of two"},
          },
  };
}

// --- CP092 ---------------------------------------------------------------------------------

void check_thd_cuda_graphs(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!cuda_graphs(recipe) || !scheduler(recipe)) return;
  const Value* align = recipe.find(kAlignKey);
  if (align == nullptr || align->is_null()) {
    r.report(kAlignKey, "THD CUDA Graph requires --pad-packed-seq-alignment to be set.");
  } else {
    bool is_max = align->is_string() && align->as_string() == "max";
    auto max_seq = recipe.get_int(kMaxSeqKey);
    bool equal = align->is_int() && max_seq && align->as_int() == *max_seq;
    if (!is_max && !equal) {
      r.report(kAlignKey,
               "THD CUDA Graph requires --pad-packed-seq-alignment='max' or "
               "--pad-packed-seq-alignment equal to max_seqlen_per_dp_cp_rank (" +
                   (max_seq ? std::to_string(*max_seq) : std::string("unset")) + ")");
    }
  }
  if (!recipe.has("model.thd_max_packed_sequences")) {
    r.report("model.thd_max_packed_sequences",
             "THD CUDA Graph requires --thd-max-packed-sequences to be set.");
  }
}

Rule cp092() {
  return {
      .id = "CP092",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) THD CUDA graphs need pad alignment and a packed-sequence cap",
      .rationale =
          "CUDA graphs with the packing scheduler need static shapes: "
          "pad_packed_seq_alignment ('max' or max_seqlen_per_dp_cp_rank) and "
          "thd_max_packed_sequences.",
      .upstream =
          "Megatron-LM dev megatron/core/transformer/transformer_config.py:3170-3192, "
          "3640-3656",
      .fix = "set pad_packed_seq_alignment=max and thd_max_packed_sequences",
      .enforced_by = {"mcore"},
      .bad_example = "++model.sequence_packing_scheduler=dp_balanced ++model.cuda_graph_impl=local",
      .good_example = "++model.cuda_graph_impl=local",
      .example_args = "",
      .check = check_thd_cuda_graphs,
  };
}

// --- CP093 ---------------------------------------------------------------------------------

void check_pad_alignment(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  const Value* align = recipe.find(kAlignKey);
  if (align != nullptr && !align->is_null()) {
    auto max_seq = recipe.get_int(kMaxSeqKey);
    if (!max_seq || *max_seq <= 0) {
      r.report(kAlignKey, "pad_packed_seq_alignment needs max_seqlen_per_dp_cp_rank > 0");
    } else if (align->is_int() && (align->as_int() <= 0 || align->as_int() > *max_seq)) {
      r.report(kAlignKey,
               "pad_packed_seq_alignment (" + std::to_string(align->as_int()) +
                   ") must be in [1, max_seqlen_per_dp_cp_rank=" + std::to_string(*max_seq) + "]");
    }
  }
  auto policy = recipe.get_string("model.thd_tail_padding_policy");
  if (policy && *policy == "extend_last" && layout_of(recipe).cp > 1 && !scheduler(recipe)) {
    r.report("model.thd_tail_padding_policy",
             "thd_tail_padding_policy='extend_last' with CP needs a sequence_packing_scheduler");
  }
}

Rule cp093() {
  return {
      .id = "CP093",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) pad_packed_seq_alignment within max_seqlen_per_dp_cp_rank",
      .rationale =
          "The alignment needs max_seqlen_per_dp_cp_rank > 0 and must not exceed it; "
          "extend_last tail padding with CP needs the scheduler.",
      .upstream =
          "Megatron-LM dev megatron/core/model_parallel_config.py:525-555; dev "
          "transformer_config.py:3657-3671",
      .fix = "set max_seqlen_per_dp_cp_rank and an alignment no larger than it",
      .enforced_by = {"mcore"},
      .bad_example = "++model.pad_packed_seq_alignment=128",
      .good_example = "",
      .example_args = "",
      .check = check_pad_alignment,
  };
}

// --- CP094 ---------------------------------------------------------------------------------

void check_scheduler_prerequisites(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  auto s = scheduler(recipe);
  if (!s) return;
  std::string key = recipe.has(kSchedulerKey) ? kSchedulerKey : kDynamicKey;
  if (*s != "dp_balanced" && *s != "default_dynamic_cp") {
    r.report(key,
             "sequence_packing_scheduler must be dp_balanced or default_dynamic_cp, got " + *s);
  }
  Version te = te_version_or_latest(ctx, r);
  if (!te_supports(te, TeFeature::kSequencePackingScheduler)) {
    r.report(key, "SFT sequence packing requires Transformer Engine >= 2.9.0 but got " + te.str());
  }
  if (recipe.int_or("model.num_moe_experts", 0) > 0) {
    std::string dispatcher =
        recipe.get_string("model.moe_token_dispatcher_type").value_or("allgather");
    if (dispatcher != "alltoall" && dispatcher != "flex") {
      r.report("model.moe_token_dispatcher_type",
               "the sequence-packing scheduler with MoE needs moe_token_dispatcher_type alltoall "
               "or flex (got " +
                   dispatcher + ")");
    }
  }
}

Rule cp094() {
  return {
      .id = "CP094",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) sequence-packing scheduler prerequisites",
      .rationale =
          "The scheduler needs TE >= 2.9, an alltoall/flex MoE dispatcher, and is "
          "dp_balanced or default_dynamic_cp.",
      .upstream = "Megatron-LM dev megatron/core/transformer/transformer_config.py:3673-3704",
      .fix = "upgrade TE, use alltoall/flex dispatch, a known scheduler",
      .enforced_by = {"mcore"},
      .bad_example = "++model.sequence_packing_scheduler=dp_balanced --te-version 2.8",
      .good_example = "",
      .example_args = "",
      .check = check_scheduler_prerequisites,
  };
}

// --- CP095 ---------------------------------------------------------------------------------

void check_partition_mode(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  Layout p = layout_of(recipe);
  if (p.cp <= 1 && !uses_dynamic_cp(recipe)) return;
  const char* key = "model.cp_partition_mode";
  std::string mode = recipe.get_string(key).value_or("zigzag");
  std::string variant = recipe.get_string("model.experimental_attention_variant").value_or("");
  if (variant == "dsv4_hybrid" && mode != "contiguous") {
    r.report(key,
             "experimental_attention_variant=dsv4_hybrid requires cp_partition_mode="
             "contiguous (got " +
                 mode + ")");
  }
  if (mode != "contiguous") return;
  if (!scheduler(recipe)) {
    r.report(key, "cp_partition_mode=contiguous requires a sequence_packing_scheduler (THD)");
  }
  if (variant != "dsv4_hybrid" && variant != "gated_delta_net") {
    r.report(key,
             "cp_partition_mode=contiguous is allowed only for experimental_attention_variant "
             "dsv4_hybrid or gated_delta_net");
  }
  if (recipe.bool_or("model.multi_latent_attention", false) && variant != "dsv4_hybrid") {
    r.report(key, "cp_partition_mode=contiguous is not allowed with MLA outside dsv4_hybrid");
  }
  if (recipe.get_string("model.linear_cp_mode").value_or("") == "headwise") {
    r.report(key, "cp_partition_mode=contiguous is not allowed with linear_cp_mode='headwise'");
  }
  if (recipe.int_or("model.mtp_num_layers", 0) > 0 && p.tp > 1 && p.sequence_parallel) {
    r.report(key,
             "MTP with TP>1, sequence parallel and cp_partition_mode=contiguous is "
             "temporarily rejected");
  }
}

Rule cp095() {
  return {
      .id = "CP095",
      .severity = Severity::kError,
      .family = "dynamic",
      .title = "(dev) cp_partition_mode contiguous vs zigzag",
      .rationale =
          "contiguous needs the packing scheduler and a dsv4_hybrid / gated_delta_net "
          "model (not MLA outside dsv4_hybrid, not headwise GDN); dsv4_hybrid needs "
          "contiguous.",
      .upstream = "Megatron-LM dev megatron/core/transformer/transformer_config.py:1563-1618",
      .fix = "keep the default zigzag partition for standard attention",
      .enforced_by = {"mcore"},
      .bad_example = "++model.cp_partition_mode=contiguous",
      .good_example = "",
      .example_args = "",
      .check = check_partition_mode,
  };
}

// --- CP096 ---------------------------------------------------------------------------------

void check_bridge_dynamic(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (ctx.env.framework != Framework::kBridge || !uses_dynamic_cp(recipe)) return;
  std::string message = flag_name(recipe) +
                        " in Bridge: Bridge only forwards the init flags; the data-iterator glue "
                        "lives in Megatron-LM training.py, so it does not work out of the box "
                        "(Megatron-Bridge#4586)";
  if (recipe.bool_or("dist.use_decentralized_pg", false)) {
    message += "; use_decentralized_pg=True creates no dynamic DP x CP groups";
  }
  r.report(flag_key(recipe), message);
}

Rule cp096() {
  return {
      .id = "CP096",
      .severity = Severity::kWarning,
      .family = "dynamic",
      .title = "hybrid/dynamic CP does not work in Bridge out of the box",
      .rationale =
          "Bridge forwards the init flags only; the data-iterator glue is in MLM "
          "training.py (Megatron-Bridge#4586), and the MLM-only checks (CP080, CP091) "
          "never run.",
      .upstream = "Megatron-Bridge src/megatron/bridge/training/initialize.py:792-803, 398-556",
      .fix = "launch hybrid/dynamic CP through Megatron-LM, or use static CP in Bridge",
      .enforced_by = {},
      .bad_example = "++model.hybrid_context_parallel=true",
      .good_example = "++model.hybrid_context_parallel=false",
      .example_args = "",
      .check = check_bridge_dynamic,
  };
}

}  // namespace

void add_dynamic_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp080, cp081, cp082, cp083, cp084, cp085, cp086, cp087, cp088, cp089,
                         cp090, cp091, cp092, cp093, cp094, cp095, cp096})
    out.push_back(rule());
}

}  // namespace hcp::rules
