// The TE attention-backend model under context parallelism: which backend TE can run for a
// configuration (FlashAttention, FusedAttention; UnfusedDotProductAttention is always off with
// CP), read from the recipe the way MCore and TE read it. The rules that report on it are in
// rules_backend.cpp (CP050-CP074); tests in tests/rules/te_backend_test.cpp.
#include "te_backend.h"

#include <algorithm>
#include <string>
#include <vector>

#include "hcp/te_matrix.h"

namespace hcp::rules {

int64_t cp_of(const Recipe& recipe) {
  return layout_of(recipe).cp;
}

/// CP > 1 and the layers run TE DotProductAttention: the precondition of most §5 rules.
bool te_attention_with_cp(const Recipe& recipe) {
  return cp_of(recipe) > 1 && uses_te_core_attention(recipe);
}

std::string backend(const Recipe& recipe) {
  return recipe.get_string(kBackendKey).value_or("auto");
}

/// The FP8 recipe MCore builds. A mixed_precision map overrides the model's fields, its own
/// default "tensorwise" included (Megatron-Bridge 067f987d
/// src/megatron/bridge/training/mixed_precision.py:50-52, 113-160); a preset name says its recipe;
/// otherwise model.fp8_recipe with MCore's default "delayed" (Megatron-LM d98e8a64
/// megatron/core/transformer/transformer_config.py:594-596).
std::string fp8_recipe_of(const Recipe& recipe) {
  const Value* mp = recipe.find("mixed_precision");
  if (mp != nullptr && mp->is_map()) {
    return recipe.get_string("mixed_precision.fp8_recipe").value_or("tensorwise");
  }
  if (mp != nullptr && mp->is_string()) {
    const std::string& preset = mp->as_string();
    if (preset.find("mxfp8") != std::string::npos) return "mxfp8";
    if (preset.find("delayed") != std::string::npos) return "delayed";
    if (preset.find("current_scaling") != std::string::npos) return "tensorwise";
    if (preset.find("blockwise") != std::string::npos) return "blockwise";
  }
  return recipe.get_string("model.fp8_recipe").value_or("delayed");
}

/// The key to locate an FP8 recipe finding at.
std::string fp8_recipe_key(const Recipe& recipe) {
  return recipe.has("mixed_precision.fp8_recipe") ? "mixed_precision.fp8_recipe"
                                                  : "model.fp8_recipe";
}

/// FP8 attention as TE sees it: `fp8 and recipe.fp8_dpa` (TransformerEngine d0067d0d
/// .../dot_product_attention.py:2215). MCore builds CustomRecipe without fp8_dpa (Megatron-LM
/// d98e8a64 megatron/core/fp8_utils.py:345-353, 789-791; TE's CustomRecipe.fp8_dpa defaults to
/// False), so fp8_recipe=custom never runs FP8 attention.
bool fp8_attention(const Recipe& recipe) {
  bool requested = recipe.bool_or("mixed_precision.fp8_dot_product_attention", false) ||
                   recipe.bool_or("model.fp8_dot_product_attention", false);
  return requested && fp8_recipe_of(recipe) != "custom";
}

std::string fp8_attention_key(const Recipe& recipe) {
  return recipe.bool_or("model.fp8_dot_product_attention", false)
             ? "model.fp8_dot_product_attention"
             : "mixed_precision.fp8_dot_product_attention";
}

bool is_mla(const Recipe& recipe) {
  return recipe.bool_or("model.multi_latent_attention", false);
}

bool sinks(const Recipe& recipe) {
  auto type = recipe.get_string("model.softmax_type");
  return type && (*type == "off-by-one" || *type == "learnable");
}

bool attention_bias(const Recipe& recipe) {
  auto pos = recipe.get_string("model.position_embedding_type");
  return pos && (*pos == "relative" || *pos == "alibi");
}

std::string mask_type(const Recipe& recipe) {
  if (auto mask = recipe.get_string("model.attn_mask_type")) return *mask;
  if (recipe.bool_or("model.use_arbitrary_attention_mask", false)) return "arbitrary";
  return "causal";
}

std::string mask_key(const Recipe& recipe) {
  return recipe.has("model.attn_mask_type") ? "model.attn_mask_type"
                                            : "model.use_arbitrary_attention_mask";
}

bool env_is(const Environment& env, const std::string& name, const std::string& value) {
  auto v = env_var(env, name);
  return v && *v == value;
}

/// Return true when layer l (1-based) uses sliding-window attention (rules.md §0.3).
bool is_swa_layer(const Recipe& recipe, int64_t layer) {
  const Value* window = recipe.find("model.window_size");
  if (window == nullptr || window->is_null()) return false;
  if (window->is_list()) {
    const auto& items = window->items();
    bool full = items.size() == 2 && items[0].is_int() && items[0].as_int() == -1 &&
                items[1].is_int() && (items[1].as_int() == 0 || items[1].as_int() == -1);
    if (full || items.empty()) return false;
  } else if (!window->is_int() || window->as_int() <= 0) {
    return false;
  }
  const Value* skip = recipe.find("model.window_attn_skip_freq");
  if (skip == nullptr || skip->is_null()) return true;
  if (skip->is_int()) return skip->as_int() <= 0 || layer % skip->as_int() != 0;
  if (skip->is_list() && layer >= 1 && static_cast<size_t>(layer) <= skip->items().size()) {
    const Value& flag = skip->items()[static_cast<size_t>(layer - 1)];
    return (flag.is_int() && flag.as_int() != 0) || (flag.is_bool() && flag.as_bool());
  }
  return true;
}

/// The comm type TE actually runs: a2a+p2p with HCP [1, CP] is plain p2p, with [CP, 1] plain a2a
/// (rules.md CP015).
std::string effective_comm(const Recipe& recipe, const std::string& type) {
  if (type != "a2a+p2p") return type;
  Layout p = layout_of(recipe);
  if (p.hcp.size() == 2 && p.hcp[0] == 1 && p.hcp[1] == p.cp) return "p2p";
  if (p.hcp.size() == 2 && p.hcp[0] == p.cp && p.hcp[1] == 1) return "a2a";
  return type;
}

/// The distinct comm types of the SWA layers.
std::vector<std::string> swa_comm_types(const Recipe& recipe) {
  std::vector<std::string> types = layer_comm_types(recipe);
  std::vector<std::string> out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!is_swa_layer(recipe, static_cast<int64_t>(i) + 1)) continue;
    std::string type = effective_comm(recipe, types[i]);
    if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
  }
  return out;
}

/// The distinct comm types as configured. MCore hands TE the configured type (Megatron-LM
/// transformer_engine.py:2140-2153) and TE's backend filters read it (TransformerEngine d0067d0d
/// .../dot_product_attention.py:2086, utils.py:1148, 1254); TE <= 2.18 also asserts THD and bias
/// for a2a+p2p before it falls back for degenerate HCP sizes (v2.18 context_parallel.py:5017-5032).
std::vector<std::string> configured_comm_types(const Recipe& recipe) {
  std::vector<std::string> out;
  for (const std::string& type : layer_comm_types(recipe)) {
    if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
  }
  return out;
}

std::vector<std::string> distinct_comm_types(const Recipe& recipe) {
  std::vector<std::string> out;
  for (const std::string& layer_type : layer_comm_types(recipe)) {
    std::string type = effective_comm(recipe, layer_type);
    if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
  }
  return out;
}

/// True when some a2a / a2a+p2p layer sees an odd head count (TE >= 2.15 then turns Fused off).
bool odd_heads_for_a2a(const Recipe& recipe) {
  auto heads = local_heads(recipe);
  if (!heads) return false;
  bool a2a = uses_comm_type(recipe, "a2a") || uses_comm_type(recipe, "a2a+p2p");
  return a2a && (heads->q % 2 != 0 || heads->kv % 2 != 0);
}

BackendFilters backend_filters(const RuleContext& ctx, const Version& te) {
  const Recipe& recipe = ctx.recipe;
  BackendFilters f;
  std::string choice = backend(recipe);
  if (choice == "fused") f.flash_off.push_back("attention_backend=fused");
  if (choice == "flash") f.fused_off.push_back("attention_backend=flash");
  if (choice == "unfused") {
    f.flash_off.push_back("attention_backend=unfused");
    f.fused_off.push_back("attention_backend=unfused");
  }
  if (env_is(ctx.env, "NVTE_FLASH_ATTN", "0")) f.flash_off.push_back("NVTE_FLASH_ATTN=0");
  if (env_is(ctx.env, "NVTE_FUSED_ATTN", "0")) f.fused_off.push_back("NVTE_FUSED_ATTN=0");
  if (ctx.env.gpu_sm && *ctx.env.gpu_sm < 80) {
    f.flash_off.push_back("GPU below sm80");
    f.fused_off.push_back("GPU below sm80");
  }
  if (recipe.int_or("model.flash_attention_version", 0) == 4 &&
      te_supports(te, TeFeature::kFusedFiltersV215)) {
    f.flash_off.push_back("flash_attention_version=4 (FA4 is off under CP)");
  }
  if (fp8_attention(recipe)) f.flash_off.push_back("FP8 attention");
  if (sinks(recipe))
    f.flash_off.push_back("softmax_type=" + *recipe.get_string("model.softmax_type"));
  if (attention_bias(recipe)) f.flash_off.push_back("attention bias");
  bool v215 = te_supports(te, TeFeature::kFusedFiltersV215);
  if (is_mla(recipe) && !te_supports(te, TeFeature::kMlaP2pOnly)) {
    f.fused_off.push_back("MLA on TE < 2.5");
  }
  if (v215 && odd_heads_for_a2a(recipe)) f.fused_off.push_back("odd head count with a2a");
  if (v215 && fp8_attention(recipe) && uses_thd_input(recipe)) f.fused_off.push_back("FP8 + THD");
  if (v215 && fp8_attention(recipe) && attention_bias(recipe)) f.fused_off.push_back("FP8 + bias");
  bool swa_ring = false;
  std::vector<std::string> types = layer_comm_types(recipe);
  for (size_t i = 0; i < types.size(); ++i) {
    bool ring = types[i] == "p2p" || types[i] == "a2a+p2p";  // configured type (utils.py:1264)
    swa_ring = swa_ring || (ring && is_swa_layer(recipe, static_cast<int64_t>(i) + 1));
  }
  if (v215 && swa_ring) f.fused_off.push_back("sliding window with p2p");
  if (!swa_comm_types(recipe).empty() &&
      recipe.get_double("model.attention_dropout").value_or(0) > 0) {
    f.fused_off.push_back("sliding window with attention dropout");
  }
  return f;
}

/// The key of a setting that needs FusedAttention under CP, or "" when none does: FP8 attention
/// and softmax sinks (FlashAttention is off for both), an attention bias, attention_backend=fused,
/// and THD input (CP pads between sequences, which turns FlashAttention 2 off; FA3 needs sm90).
std::string fused_required_key(const Recipe& recipe) {
  if (fp8_attention(recipe)) return fp8_attention_key(recipe);
  if (sinks(recipe)) return "model.softmax_type";
  if (attention_bias(recipe)) return "model.position_embedding_type";
  if (backend(recipe) == "fused") return kBackendKey;
  return thd_key(recipe);
}

/// The activation precision of attention: "half" (fp16/bf16), "fp32", or "" when unknown. A
/// mixed_precision map sets model.bf16/fp16 (Bridge mixed_precision.py:40-42, 113-160); a
/// preset names its dtype; otherwise the model's bf16/fp16 flags and params_dtype.
std::string activation_precision(const Recipe& recipe, std::string& key) {
  auto is_half = [](const std::string& dtype) {
    return dtype.find("bfloat16") != std::string::npos ||
           dtype.find("float16") != std::string::npos || dtype == "bf16" || dtype == "fp16";
  };
  const Value* mp = recipe.find("mixed_precision");
  if (mp != nullptr && mp->is_string()) {
    const std::string& preset = mp->as_string();
    key = "mixed_precision";
    if (preset.find("bf16") != std::string::npos || preset.find("fp16") != std::string::npos) {
      return "half";
    }
    return "";
  }
  std::string section = (mp != nullptr && mp->is_map()) ? "mixed_precision." : "model.";
  key = section + "bf16";
  if (recipe.bool_or(section + "bf16", false) || recipe.bool_or(section + "fp16", false)) {
    return "half";
  }
  if (recipe.bool_or(section + "autocast_enabled", false)) return "";
  if (auto dtype = recipe.get_string(section + "params_dtype"))
    return is_half(*dtype) ? "half" : "";
  if (section == "mixed_precision.") return "fp32";
  bool flags_known = recipe.has("model.bf16") && recipe.has("model.fp16");
  return flags_known ? "fp32" : "";
}

}  // namespace hcp::rules
