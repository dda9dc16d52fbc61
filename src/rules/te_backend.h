// Internal to the rules module: the TE attention-backend model under context parallelism. Which
// backend TE can run for a configuration (FlashAttention, FusedAttention; Unfused is always off
// with CP) and the settings that decide it, read from the recipe the way MCore and TE read them.
// The rules that report on it are in rules_backend.cpp (CP050-CP074).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "families.h"
#include "hcp/rules.h"
#include "hcp/version.h"

namespace hcp::rules {

inline constexpr const char* kBackendKey = "model.attention_backend";

/// The context-parallel size of the recipe's layout.
int64_t cp_of(const Recipe& recipe);
/// CP > 1 and the layers run TE DotProductAttention: the precondition of most §5 rules.
bool te_attention_with_cp(const Recipe& recipe);
/// model.attention_backend ("auto" when unset).
std::string backend(const Recipe& recipe);

/// The FP8 recipe MCore builds: a mixed_precision map's (default "tensorwise"), a preset's, else
/// model.fp8_recipe with MCore's default "delayed".
std::string fp8_recipe_of(const Recipe& recipe);
/// The key to locate an FP8 recipe finding at.
std::string fp8_recipe_key(const Recipe& recipe);
/// FP8 attention as TE sees it: `fp8 and recipe.fp8_dpa` (never with fp8_recipe=custom).
bool fp8_attention(const Recipe& recipe);
/// The key that asks for FP8 attention.
std::string fp8_attention_key(const Recipe& recipe);

/// Multi-latent attention (model.multi_latent_attention).
bool is_mla(const Recipe& recipe);
/// Softmax sinks: softmax_type off-by-one or learnable.
bool sinks(const Recipe& recipe);
/// An attention bias: relative or ALiBi position embeddings.
bool attention_bias(const Recipe& recipe);
/// The attention mask type ("causal" when unset, "arbitrary" for use_arbitrary_attention_mask).
std::string mask_type(const Recipe& recipe);
/// The key to locate a mask finding at.
std::string mask_key(const Recipe& recipe);
/// True when the launch environment sets `name` to `value`.
bool env_is(const Environment& env, const std::string& name, const std::string& value);

/// Return true when layer l (1-based) uses sliding-window attention (rules.md §0.3).
bool is_swa_layer(const Recipe& recipe, int64_t layer);
/// The comm type TE actually runs: a2a+p2p with HCP [1, CP] is plain p2p, with [CP, 1] plain a2a
/// (rules.md CP015).
std::string effective_comm(const Recipe& recipe, const std::string& type);
/// The distinct comm types of the SWA layers.
std::vector<std::string> swa_comm_types(const Recipe& recipe);
/// The distinct comm types as configured (what MCore hands TE and TE's backend filters read).
std::vector<std::string> configured_comm_types(const Recipe& recipe);
/// The distinct comm types TE runs (effective_comm of each layer's).
std::vector<std::string> distinct_comm_types(const Recipe& recipe);
/// True when some a2a / a2a+p2p layer sees an odd head count (TE >= 2.15 then turns Fused off).
bool odd_heads_for_a2a(const Recipe& recipe);

/// Why TE turns FlashAttention and FusedAttention off for this configuration under CP.
struct BackendFilters {
  std::vector<std::string> flash_off;
  std::vector<std::string> fused_off;
};
/// The filters TE `te` applies to the configuration and launch environment of `ctx`.
BackendFilters backend_filters(const RuleContext& ctx, const Version& te);

/// The key of a setting that needs FusedAttention under CP, or "" when none does: FP8 attention
/// and softmax sinks (FlashAttention is off for both), an attention bias, attention_backend=fused,
/// and THD input (CP pads between sequences, which turns FlashAttention 2 off; FA3 needs sm90).
std::string fused_required_key(const Recipe& recipe);

/// The activation precision of attention: "half" (fp16/bf16), "fp32", or "" when unknown; `key`
/// is set to the key that decides it.
std::string activation_precision(const Recipe& recipe, std::string& key);

}  // namespace hcp::rules
