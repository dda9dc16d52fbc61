// Catalog §3: attention heads, GQA and all-to-all (CP030–CP035, CP116).
#include <string>

#include "families.h"

namespace hcp::rules {
namespace {

constexpr const char* kHeadsKey = "model.num_attention_heads";
constexpr const char* kGroupsKey = "model.num_query_groups";

std::string heads_str(const LocalHeads& h) {
  return "num_heads_q = " + str(h.q) + ", num_heads_kv = " + str(h.kv) + " per TP rank";
}

/// Key to locate a head-count finding at: the query groups when they are the culprit.
const char* head_key(const Recipe& recipe, const LocalHeads& h, int64_t divisor) {
  return (h.kv % divisor != 0 && recipe.has(kGroupsKey)) ? kGroupsKey : kCommKey;
}

void check_heads_divisible_by_tp(const RuleContext& ctx, Reporter& r) {
  auto hq = ctx.recipe.get_int(kHeadsKey);
  int64_t tp = layout_of(ctx.recipe).tp;
  if (!hq || *hq < 1 || tp < 1 || *hq % tp == 0) return;
  r.report(kHeadsKey, "num_attention_heads (" + str(*hq) +
                          ") must be a multiple of tensor_model_parallel_size (" + str(tp) + ").");
}

Rule cp030() {
  return {
      .id = "CP030",
      .severity = Severity::kError,
      .family = "heads",
      .title = "attention heads divisible by TP",
      .rationale = "Tensor parallelism splits the attention heads evenly over the TP ranks.",
      .upstream = "Megatron-LM megatron/core/transformer/transformer_config.py:1446-1450",
      .fix = "choose TP dividing num_attention_heads",
      .enforced_by = {"mcore"},
      .bad_example = "model.tensor_model_parallel_size=3",
      .good_example = "model.tensor_model_parallel_size=2",
      .example_args = "",
      .check = check_heads_divisible_by_tp,
  };
}

void check_query_groups_vs_tp(const RuleContext& ctx, Reporter& r) {
  auto g = ctx.recipe.get_int(kGroupsKey);
  int64_t tp = layout_of(ctx.recipe).tp;
  if (!g || *g < 1 || tp < 1 || *g % tp == 0) return;
  bool divisor = tp % *g == 0;
  const std::optional<Version>& mcore = ctx.env.mcore_version;
  if (divisor) {
    // Allowed since MCore 0.16; an error before.
    if (!mcore) return r.assumed(Input::kMcoreVersion, "MCore >= 0.16");
    if (*mcore >= Version{0, 16, 0, ""}) return;
    r.report(kGroupsKey,
             "num_query_groups (" + str(*g) +
                 ") must be a multiple of tensor_model_parallel_size (" + str(tp) +
                 ") on Megatron-Core " + mcore->str() + " (a divisor is accepted from 0.16)",
             "mcore_before_0_16");
    return;
  }
  r.report(kGroupsKey, "num_query_groups (" + str(*g) +
                           ") must be a multiple or divisor of tensor_model_parallel_size (" +
                           str(tp) + ").");
}

Rule cp031() {
  return {
      .id = "CP031",
      .severity = Severity::kError,
      .family = "heads",
      .title = "query groups a multiple or divisor of TP",
      .rationale =
          "KV heads are split over TP ranks, or replicated when there are fewer groups "
          "than TP ranks; MCore >= 0.16 accepts a multiple or a divisor, MCore 0.4-0.15 "
          "only a multiple.",
      .upstream =
          "Megatron-LM megatron/core/transformer/transformer_config.py:1461-1468 "
          "(core_v0.15.3 for the older text)",
      .fix = "choose TP that is a multiple or divisor of num_query_groups",
      .enforced_by = {"mcore"},
      .bad_example = "model.num_query_groups=3 model.tensor_model_parallel_size=2",
      .good_example = "model.num_query_groups=4 model.tensor_model_parallel_size=2",
      .example_args = "",
      .check = check_query_groups_vs_tp,
      .cases =
          {
              {.name = "mcore_before_0_16",
               .severity = Severity::kError,
               .fix = "upgrade Megatron-Core to >= 0.16.0, or use TP <= num_query_groups"},
          },
  };
}

void check_a2a_heads(const RuleContext& ctx, Reporter& r) {
  int64_t cp = layout_of(ctx.recipe).cp;
  if (cp <= 1 || !uses_comm_type(ctx.recipe, "a2a")) return;
  auto h = local_heads(ctx.recipe);
  if (!h || (h->q % cp == 0 && h->kv % cp == 0)) return;
  std::string why = h->kv % cp != 0 ? " (a2a splits the KV heads of each TP rank over the CP "
                                      "ranks, so CP can be at most the KV heads per TP rank)"
                                    : "";
  r.report(head_key(ctx.recipe, *h, cp),
           "cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V. Found " +
               heads_str(*h) + ", cp_size = " + str(cp) + why);
}

Rule cp032() {
  return {
      .id = "CP032",
      .severity = Severity::kError,
      .family = "heads",
      .title = "a2a needs the heads of each TP rank divisible by CP",
      .rationale =
          "a2a (Ulysses) scatters the heads of each TP rank over the CP ranks, for Q and "
          "for K/V. Because MCore replicates KV heads when num_query_groups < TP (one KV "
          "head per rank), a2a is impossible for any CP > 1 then. Bridge's 'CP <= "
          "num_kv_heads' is looser than what TE enforces.",
      .upstream =
          "TransformerEngine .../dot_product_attention/context_parallel.py:4245-4249; "
          "Megatron-LM megatron/core/transformer/attention.py:353-379",
      .fix = "use CP dividing the KV heads per TP rank, or a2a+p2p with HCP[0] dividing them",
      .enforced_by = {"te"},
      .bad_example = "model.cp_comm_type=a2a model.hierarchical_context_parallel_sizes=null",
      .good_example =
          "model.cp_comm_type=a2a model.hierarchical_context_parallel_sizes=null "
          "model.context_parallel_size=8",
      .example_args = "",
      .check = check_a2a_heads,
  };
}

void check_hcp_a2a_heads(const RuleContext& ctx, Reporter& r) {
  auto hcp = ctx.recipe.get_int_list(kHcpKey);
  if (!hcp || hcp->empty() || (*hcp)[0] < 1 || !uses_comm_type(ctx.recipe, "a2a+p2p")) return;
  int64_t a2a = (*hcp)[0];
  auto h = local_heads(ctx.recipe);
  if (!h || (h->q % a2a == 0 && h->kv % a2a == 0)) return;
  r.report(kHcpKey, "the a2a level of hierarchical CP (HCP[0] = " + str(a2a) +
                        ") must divide the heads of each TP rank: " + heads_str(*h) +
                        "; TE's a2a reshape fails at the first forward pass");
}

Rule cp033() {
  return {
      .id = "CP033",
      .severity = Severity::kError,
      .family = "heads",
      .title = "a2a+p2p needs the heads of each TP rank divisible by HCP[0]",
      .rationale =
          "The a2a level of hierarchical CP scatters heads over HCP[0] ranks; TE reshapes "
          "x.view(..., cp_size, h // cp_size, ...), which fails when they do not divide.",
      .upstream =
          "TransformerEngine .../dot_product_attention/context_parallel.py:457-467, "
          "1486-1499 (derived)",
      .fix = "choose HCP[0] dividing the Q and KV heads per TP rank (move the rest to HCP[1])",
      .enforced_by = {"te"},
      .bad_example = "model.tensor_model_parallel_size=2",
      .good_example = "model.tensor_model_parallel_size=1",
      .example_args = "",
      .check = check_hcp_a2a_heads,
  };
}

/// Return the key of a setting that needs FusedAttention, or "" when none does.
std::string needs_fused_attention(const Recipe& recipe) {
  if (recipe.bool_or("mixed_precision.fp8_dot_product_attention", false)) {
    return "mixed_precision.fp8_dot_product_attention";
  }
  if (auto softmax = recipe.get_string("model.softmax_type"); softmax && *softmax != "vanilla") {
    return "model.softmax_type";
  }
  if (auto bias = recipe.get_string("model.attention_bias_type"); bias && *bias != "no_bias") {
    return "model.attention_bias_type";
  }
  if (recipe.get_string("model.attention_backend") == std::optional<std::string>("fused")) {
    return "model.attention_backend";
  }
  return "";
}

void check_fused_even_heads(const RuleContext& ctx, Reporter& r) {
  if (layout_of(ctx.recipe).cp <= 1) return;
  if (!uses_comm_type(ctx.recipe, "a2a") && !uses_comm_type(ctx.recipe, "a2a+p2p")) return;
  auto h = local_heads(ctx.recipe);
  if (!h || (h->q % 2 == 0 && h->kv % 2 == 0)) return;
  if (!ctx.env.te_version) {
    r.assumed(Input::kTeVersion, "TE >= 2.15");
  } else if (*ctx.env.te_version < Version{2, 15, 0, ""}) {
    return;
  }
  std::string message =
      "FusedAttention is disabled for a2a and a2a+p2p when the heads per TP "
      "rank are odd (" +
      heads_str(*h) + "); only FlashAttention remains";
  std::string fused = needs_fused_attention(ctx.recipe);
  if (fused.empty()) {
    r.report(head_key(ctx.recipe, *h, 2), message);
    return;
  }
  r.report(head_key(ctx.recipe, *h, 2),
           message + ", but " + fused + " needs FusedAttention: no attention backend is available",
           "no_backend");
}

Rule cp034() {
  return {
      .id = "CP034",
      .severity = Severity::kWarning,
      .family = "heads",
      .title = "FusedAttention needs even head counts for a2a and a2a+p2p",
      .rationale =
          "From TE 2.15 FusedAttention is disabled for a2a/a2a+p2p when the Q or KV heads "
          "per TP rank are odd, leaving only FlashAttention. An error when something "
          "needs FusedAttention (FP8 attention, softmax sinks, attention bias, "
          "attention_backend=fused).",
      .upstream = "TransformerEngine .../dot_product_attention/utils.py:1272-1279 (PR #2719)",
      .fix = "use an even number of heads per TP rank, or cp_comm_type p2p",
      .enforced_by = {"te"},
      .bad_example = "model.num_query_groups=1 model.hierarchical_context_parallel_sizes=[1,16]",
      .good_example = "model.num_query_groups=8 model.hierarchical_context_parallel_sizes=[1,16]",
      .example_args = "--te-version 2.18.0",
      .check = check_fused_even_heads,
      .cases =
          {
              {.name = "no_backend", .severity = Severity::kError},
          },
  };
}

void check_dynamic_cp_a2a(const RuleContext& ctx, Reporter& r) {
  const char* key = nullptr;
  for (const char* k : {"model.hybrid_context_parallel", "model.dynamic_context_parallel"}) {
    if (ctx.recipe.bool_or(k, false)) key = k;
  }
  if (key == nullptr || !uses_comm_type(ctx.recipe, "a2a")) return;
  auto h = local_heads(ctx.recipe);
  if (!h) return;
  if (!ctx.env.world_size) return r.skipped(Input::kWorldSize);
  auto dp = data_parallel_size(ctx.recipe, ctx.env);
  if (!dp) return;
  int64_t domain = *dp * layout_of(ctx.recipe).cp;
  int64_t largest = 1;
  while (largest * 2 <= domain)
    largest *= 2;
  for (int64_t g = 2; g <= largest; g *= 2) {
    if (h->q % g == 0 && h->kv % g == 0) continue;
    r.report(key, "dynamic CP forms CP groups of every power of two up to DP*CP = " + str(domain) +
                      ", and a2a needs the heads of each TP rank divisible by each: " +
                      heads_str(*h) + " is not divisible by " + str(g));
    return;
  }
}

Rule cp035() {
  return {
      .id = "CP035",
      .severity = Severity::kWarning,
      .family = "heads",
      .title = "dynamic/hybrid CP with a2a needs heads divisible by every group size",
      .rationale =
          "Hybrid (dynamic) CP regroups the DP x CP ranks into CP groups of every power of "
          "two up to DP*CP at run time, so the a2a head constraint (CP032) must hold for "
          "each of those sizes.",
      .upstream =
          "Megatron-LM megatron/core/parallel_state.py:440-462, megatron/core/extensions/"
          "transformer_engine.py:2256-2272 (derived)",
      .fix = "use p2p with dynamic CP, or heads per TP rank divisible by DP*CP",
      .enforced_by = {},
      .bad_example =
          "++model.hybrid_context_parallel=true model.cp_comm_type=a2a "
          "model.hierarchical_context_parallel_sizes=null model.context_parallel_size=8",
      .good_example =
          "++model.hybrid_context_parallel=true model.cp_comm_type=p2p "
          "model.hierarchical_context_parallel_sizes=null model.context_parallel_size=8",
      .example_args = "--world-size 32",
      .check = check_dynamic_cp_a2a,
  };
}

void check_heads_divisible_by_groups(const RuleContext& ctx, Reporter& r) {
  auto hq = ctx.recipe.get_int(kHeadsKey);
  auto g = ctx.recipe.get_int(kGroupsKey);
  if (!hq || !g || *hq < 1 || *g < 1 || *hq % *g == 0) return;
  std::string why = *g > *hq ? " (there are more query groups than heads)" : "";
  r.report(kGroupsKey, "num_attention_heads (" + str(*hq) +
                           ") must be a multiple of num_query_groups (" + str(*g) + ")" + why +
                           ": every query group shares its KV head with the same number of query "
                           "heads, whatever the layout");
}

Rule cp116() {
  return {
      .id = "CP116",
      .severity = Severity::kError,
      .family = "heads",
      .title = "attention heads divisible by query groups (GQA)",
      .rationale =
          "Grouped-query attention gives each KV head (query group) the same number of query "
          "heads. TE's DotProductAttention asserts it for num_gqa_groups = num_query_groups "
          "(G >= TP); with fewer groups than TP ranks MCore divides the heads by G itself and "
          "passes TP to TE. A property of the model: no layout makes it run, so plan and "
          "compare report it once for the recipe instead of pricing layouts.",
      .upstream =
          "TransformerEngine transformer_engine/pytorch/attention/dot_product_attention/"
          "dot_product_attention.py:741-743@d0067d0; Megatron-LM megatron/core/transformer/"
          "attention.py:353-379, megatron/core/extensions/transformer_engine.py:2092, "
          "megatron/core/utils.py:590-598@d98e8a6",
      .fix = "choose num_query_groups dividing num_attention_heads",
      .enforced_by = {"mcore", "te"},
      .bad_example =
          "model.num_query_groups=3 model.cp_comm_type=p2p "
          "model.hierarchical_context_parallel_sizes=null",
      .good_example =
          "model.num_query_groups=4 model.cp_comm_type=p2p "
          "model.hierarchical_context_parallel_sizes=null",
      .example_args = "",
      .check = check_heads_divisible_by_groups,
      .whole_model = true,
  };
}

}  // namespace

void add_heads_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp030, cp031, cp032, cp033, cp034, cp035, cp116})
    out.push_back(rule());
}

}  // namespace hcp::rules
