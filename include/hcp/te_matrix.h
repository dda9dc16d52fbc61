// Transformer Engine version matrix for context-parallel features: the first TE release that
// supports each CP comm type and each feature under CP (rules.md §9, verified against TE tags).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "hcp/version.h"

namespace hcp {

/// A context-parallel capability whose availability depends on the TE version.
enum class TeFeature {
  kCpP2p,                    ///< CP itself (p2p ring); MCore asserts TE >= 1.0.
  kCommTypeArgument,         ///< `cp_comm_type` is passed to TE at all; older TE always runs p2p.
  kCpAllGather,              ///< cp_comm_type = all_gather.
  kCpA2a,                    ///< cp_comm_type = a2a.
  kCpA2aP2p,                 ///< cp_comm_type = a2a+p2p (two-level hierarchical CP).
  kMaskTypesBeyondCausal,    ///< Mask types other than causal / no_mask under CP.
  kThdP2p,                   ///< THD (packed) input with p2p.
  kThdPaddedSeqlens,         ///< THD with cu_seqlens_padded, which MCore needs for THD + CP.
  kThdA2a,                   ///< THD input with a2a.
  kThdAllGather,             ///< THD input with all_gather.
  kThdA2aP2p,                ///< THD input with a2a+p2p (TE main only at the snapshot).
  kSlidingWindow,            ///< Sliding-window attention under CP with a2a / all_gather.
  kKvCacheDisablesBackends,  ///< KV-cache inference under CP disables every backend.
  kMlaP2pOnly,               ///< MLA (head_dim_qk != head_dim_v) under CP, p2p / a2a+p2p only.
  kMlaAnyCommType,           ///< MLA under CP with every comm type.
  kSoftmaxSinks,             ///< softmax_type off-by-one / learnable under CP (a2a + Fused only).
  kFusedFiltersV215,  ///< Even-head a2a filter, FP8+THD and FP8+bias Fused filters, SWA p2p filter.
  kCustomRecipeFp8Rejected,   ///< FP8 CustomRecipe under CP rejected.
  kRopeFusionThd,             ///< Fused RoPE for THD with CP.
  kSequencePackingScheduler,  ///< MCore dev SFT sequence-packing scheduler prerequisites.
};

/// One row of the matrix.
struct TeFeatureInfo {
  TeFeature feature;
  std::string_view name;      ///< Short name, e.g. "a2a+p2p + THD".
  Version first;              ///< First TE release that has it.
  std::string_view evidence;  ///< Tag, commit or PR that introduced it.
};

/// Return every row of the matrix, in the order of TeFeature.
const std::vector<TeFeatureInfo>& te_feature_matrix();

/// Return the row of `feature`.
const TeFeatureInfo& te_feature_info(TeFeature feature);

/// Return the first TE version with `feature`.
const Version& te_min_version(TeFeature feature);

/// Return true when TE `te` has `feature`.
bool te_supports(const Version& te, TeFeature feature);

/// Return the feature a cp_comm_type value needs ("p2p", "all_gather", "a2a", "a2a+p2p"), or
/// nullopt for values TE does not know.
std::optional<TeFeature> te_comm_feature(std::string_view comm_type);

/// Return the feature THD (packed) input needs with this comm type, or nullopt for unknown values.
std::optional<TeFeature> te_thd_feature(std::string_view comm_type);

/// The newest TE release at the catalog snapshot (v2.18, also Megatron-Bridge's pin); rules assume
/// it when the TE version is unknown.
const Version& te_latest_release();

}  // namespace hcp
