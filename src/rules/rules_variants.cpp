// Catalog §7: model variants with their own CP constraints (CP100–CP103): DeepSeek sparse
// attention, Gated DeltaNet linear attention, Mamba layers of hybrid models, batch-invariant mode.
#include <algorithm>
#include <cctype>
#include <string>

#include "families.h"

namespace hcp::rules {
namespace {

/// "all_gather", "allgather", "All-Gather" -> "allgather".
std::string normalized_comm(const std::string& type) {
  std::string out;
  for (char c : type) {
    if (c == '_' || c == '-') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// --- CP100 ---------------------------------------------------------------------------------

void check_dsa(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (recipe.get_string("model.experimental_attention_variant").value_or("") != "dsa") return;
  if (layout_of(recipe).cp <= 1) return;
  for (const std::string& type : layer_comm_types(recipe)) {
    if (normalized_comm(type) == "allgather") continue;
    r.report("model.cp_comm_type",
             "DSAttention context parallelism currently supports "
             "cp_comm_type=allgather only (got " +
                 type + ").");
    return;
  }
}

Rule cp100() {
  return {
      .id = "CP100",
      .severity = Severity::kError,
      .family = "variants",
      .title = "DSA attention under CP uses allgather",
      .rationale =
          "DeepSeek sparse attention implements CP only with all-gather (allgather and "
          "all_gather are both accepted after normalisation).",
      .upstream =
          "Megatron-LM megatron/core/transformer/transformer_config.py:3163-3177; "
          "experimental_attention_variant/dsa.py:1591, 1805-1808",
      .fix = "set model.cp_comm_type=allgather",
      .enforced_by = {"mcore"},
      .bad_example = "++model.experimental_attention_variant=dsa",
      .good_example = "++model.experimental_attention_variant=dsa model.cp_comm_type=allgather",
      .example_args = "",
      .check = check_dsa,
  };
}

// --- CP101 ---------------------------------------------------------------------------------

/// True when experimental_attention_variant selects the gated delta net layer: "gdn" or "gdn2" on
/// main (Megatron-LM d98e8a64 experimental_attention_variant_module_specs.py:61-64, where
/// "gated_delta_net" is the deprecated alias of "gdn"), "gated_delta_net" on dev d48bd6be and on
/// core_v0.17/0.18. Upstream checks the linear_* head counts only then (main
/// transformer_config.py:1470-1509, dev :1648-1711): every full to_yaml dump carries the field
/// defaults (linear_num_key_heads=16) whatever the model.
bool is_gdn_variant(const Recipe& recipe) {
  auto variant = recipe.get_string("model.experimental_attention_variant");
  return variant && (*variant == "gdn" || *variant == "gdn2" || *variant == "gated_delta_net");
}

void check_linear_attention(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!is_gdn_variant(recipe)) return;
  Layout p = layout_of(recipe);
  std::string mode = recipe.get_string("model.linear_cp_mode").value_or("");
  // Main divides by TP*CP; dev divides by TP for the default chunkwise mode. MCore <= 0.17 has no
  // GDN context parallelism at all (core_v0.17.0 megatron/core/ssm/gated_delta_net.py:36-37:
  // "TODO: Implement GatedDeltaNetContextParallel") and divides by TP only
  // (core_v0.17.0 transformer_config.py:1067-1100); CP arrived in core_v0.18.0.
  bool no_gdn_cp = false;
  if (p.cp > 1) {
    Version mcore = mcore_version_or_latest(ctx, r);
    no_gdn_cp = mcore < Version{0, 18, 0, ""};
    if (no_gdn_cp) {
      r.report("model.context_parallel_size",
               "Gated DeltaNet has no context-parallel implementation on Megatron-Core " +
                   mcore.str() + " (GDN CP arrived in 0.18); context_parallel_size=" + str(p.cp) +
                   " would run each CP rank's GDN layers on its own sequence chunk",
               "mcore_before_0_18");
    }
  }
  bool chunkwise = mode == "chunkwise";
  bool tp_only = chunkwise || no_gdn_cp;
  int64_t divisor = tp_only ? p.tp : p.tp * p.cp;
  std::string divisor_text = tp_only ? "tensor_model_parallel_size=" + str(p.tp)
                                     : "(tensor_model_parallel_size=" + str(p.tp) +
                                           " * context_parallel_size=" + str(p.cp) + ")";
  for (const char* key : {"model.linear_num_key_heads", "model.linear_num_value_heads"}) {
    auto heads = recipe.get_int(key);
    if (!heads || divisor < 1 || *heads % divisor == 0) continue;
    std::string field = std::string(key).substr(6);
    r.report(key, field + "=" + str(*heads) + " must be a multiple of " + divisor_text + ".");
  }
  if (chunkwise && p.cp > 1 && recipe.has("model.gdn_conv_pad_alignment")) {
    r.report("model.gdn_conv_pad_alignment",
             "gdn_conv_pad_alignment is incompatible with linear_cp_mode='chunkwise' when CP>1");
  }
}

Rule cp101() {
  return {
      .id = "CP101",
      .severity = Severity::kError,
      .family = "variants",
      .title = "Gated DeltaNet heads divisible by TP x CP",
      .rationale =
          "When experimental_attention_variant selects Gated DeltaNet (gdn, gdn2 or "
          "gated_delta_net), linear attention splits its key and value heads over TP*CP "
          "ranks (on dev, over TP only for the default chunkwise mode). MCore <= 0.17 has "
          "no GDN context parallelism. Other models ignore the linear_* fields, which "
          "full to_yaml dumps carry with their defaults.",
      .upstream =
          "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:1470-1509, "
          "megatron/core/models/gpt/experimental_attention_variant_module_specs.py:61-64; "
          "dev d48bd6be transformer_config.py:1648-1711; core_v0.17.0 "
          "megatron/core/ssm/gated_delta_net.py:36-37",
      .fix = "pick TP*CP dividing linear_num_key_heads and linear_num_value_heads",
      .enforced_by = {"mcore"},
      .bad_example =
          "++model.experimental_attention_variant=gdn ++model.linear_num_key_heads=8 "
          "++model.linear_num_value_heads=16",
      .good_example =
          "++model.experimental_attention_variant=gdn ++model.linear_num_key_heads=16 "
          "++model.linear_num_value_heads=32",
      .example_args = "--mcore-version 0.19.0",
      .check = check_linear_attention,
      .cases =
          {
              {.name = "mcore_before_0_18",
               .severity = Severity::kError,
               .fix = "upgrade Megatron-Core to >= 0.18.0, or use CP=1 for GDN"},
          },
  };
}

// --- CP102 ---------------------------------------------------------------------------------

bool has_mamba_layers(const Recipe& recipe) {
  if (auto pattern = recipe.get_string("model.hybrid_layer_pattern")) {
    return pattern->find('M') != std::string::npos;
  }
  return recipe.has("model.mamba_num_heads");
}

void check_mamba(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  Layout p = layout_of(recipe);
  if (p.cp <= 1 || p.tp < 1 || !has_mamba_layers(recipe)) return;
  int64_t head_dim = recipe.int_or("model.mamba_head_dim", 64);
  std::optional<int64_t> nheads = recipe.get_int("model.mamba_num_heads");
  auto hidden = recipe.get_int("model.hidden_size");
  if (!nheads && hidden && head_dim > 0) nheads = (2 * *hidden) / head_dim;
  int64_t ngroups = recipe.int_or("model.mamba_num_groups", 8);
  std::string key =
      recipe.has("model.mamba_num_heads") ? "model.mamba_num_heads" : "model.context_parallel_size";
  if (nheads && (*nheads % p.tp != 0 || (*nheads / p.tp) % p.cp != 0)) {
    r.report(key, "Mamba nheads=" + str(*nheads) +
                      " must be evenly divisible by tp_size * "
                      "cp_size = " +
                      str(p.tp * p.cp));
  }
  int64_t ng_loc = ngroups / p.tp;
  if (ng_loc < 1) return;
  std::string groups_key = recipe.has("model.mamba_num_groups") ? "model.mamba_num_groups"
                                                                : "model.context_parallel_size";
  if (ng_loc < p.cp && p.cp % ng_loc != 0) {
    r.report(groups_key, "cp_size=" + str(p.cp) +
                             " must be evenly divisible by ngroups/tp_size=" + str(ng_loc));
  } else if (ng_loc >= p.cp && ng_loc % p.cp != 0) {
    r.report(groups_key,
             "Mamba ngroups=" + str(ngroups) +
                 " must be evenly divisible by tp_size * cp_size = " + str(p.tp * p.cp));
  }
}

Rule cp102() {
  return {
      .id = "CP102",
      .severity = Severity::kError,
      .family = "variants",
      .title = "Mamba heads and groups divisible under TP x CP",
      .rationale =
          "Mamba CP splits heads per TP rank over CP and needs groups per TP rank to "
          "divide or be divided by CP.",
      .upstream =
          "Megatron-LM megatron/core/ssm/mamba_mixer.py:218, 245-271; "
          "megatron/core/ssm/mamba_context_parallel.py:105-129",
      .fix = "choose CP dividing mamba heads per TP rank, and groups per TP rank compatible",
      .enforced_by = {"mcore"},
      .bad_example = "++model.hybrid_layer_pattern=M*M*M*M* ++model.mamba_num_heads=24",
      .good_example = "++model.hybrid_layer_pattern=M*M*M*M* ++model.mamba_num_heads=128",
      .example_args = "",
      .check = check_mamba,
  };
}

// --- CP103 ---------------------------------------------------------------------------------

void check_batch_invariant(const RuleContext& ctx, Reporter& r) {
  if (!ctx.recipe.bool_or("model.batch_invariant_mode", false)) return;
  if (layout_of(ctx.recipe).cp <= 1) return;
  // The CP check arrived in core_v0.19.0 (transformer_config.py:2888-2892); core_v0.18.0 only
  // requires attention_backend=flash (transformer_config.py:2563-2566).
  if (mcore_version_or_latest(ctx, r) < Version{0, 19, 0, ""}) return;
  r.report("model.batch_invariant_mode",
           "Batch invariant mode does not support context "
           "parallelism");
}

Rule cp103() {
  return {
      .id = "CP103",
      .severity = Severity::kError,
      .family = "variants",
      .title = "batch-invariant mode without CP",
      .rationale =
          "MCore >= 0.19 rejects batch_invariant_mode with context parallelism "
          "(0.18 only requires attention_backend=flash).",
      .upstream =
          "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:3200-3232; "
          "core_v0.19.0 transformer_config.py:2888-2892; core_v0.18.0 :2563-2566",
      .fix = "turn batch_invariant_mode off or use CP=1",
      .enforced_by = {"mcore"},
      .bad_example = "++model.batch_invariant_mode=true",
      .good_example = "++model.batch_invariant_mode=false",
      .example_args = "",
      .check = check_batch_invariant,
  };
}

}  // namespace

void add_variant_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp100, cp101, cp102, cp103})
    out.push_back(rule());
}

}  // namespace hcp::rules
