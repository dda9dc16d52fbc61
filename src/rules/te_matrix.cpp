// The TE version matrix of rules.md §9. Each row names the first release tag that contains the
// feature (found by grepping each TE tag) and the change that introduced it.
#include "hcp/te_matrix.h"

namespace hcp {
namespace {

Version v(int major, int minor, int patch = 0) {
  return Version{major, minor, patch, {}};
}

}  // namespace

const std::vector<TeFeatureInfo>& te_feature_matrix() {
  static const std::vector<TeFeatureInfo> kMatrix = {
      {TeFeature::kCpP2p, "context parallelism (p2p)", v(1, 0), "v1.0 attn_forward_func_with_cp"},
      {TeFeature::kCommTypeArgument, "cp_comm_type argument", v(1, 10), "v1.10"},
      {TeFeature::kCpAllGather, "all_gather", v(1, 10), "v1.10 AttnFuncWithCPAndKVAllGather"},
      {TeFeature::kCpA2a, "a2a", v(1, 11), "v1.11 AttnFuncWithCPAndQKVOA2A"},
      {TeFeature::kCpA2aP2p, "a2a+p2p", v(1, 12), "v1.12, TE PR #1209"},
      {TeFeature::kMaskTypesBeyondCausal, "mask types beyond causal/no_mask", v(1, 8), "v1.8"},
      {TeFeature::kThdP2p, "THD + p2p", v(1, 7), "v1.7"},
      {TeFeature::kThdPaddedSeqlens, "THD with cu_seqlens_padded", v(1, 10),
       "v1.10; MCore drops cu_seqlens_padded below it"},
      {TeFeature::kThdA2a, "THD + a2a", v(2, 10), "TE e52bdb41 (#2220)"},
      {TeFeature::kThdAllGather, "THD + all_gather", v(2, 18), "TE 70101184 (#2829)"},
      {TeFeature::kThdA2aP2p, "THD + a2a+p2p", v(2, 20),
       "TE 8ff60f8d (#3290), TE main 2.20.0.dev0 only; no release tag up to v2.18"},
      {TeFeature::kSlidingWindow, "sliding window + a2a/all_gather", v(1, 11),
       "v1.11 (v1.10 forced all_gather)"},
      {TeFeature::kKvCacheDisablesBackends, "KV cache disables backends under CP", v(2, 2), "v2.2"},
      {TeFeature::kMlaP2pOnly, "MLA (p2p / a2a+p2p)", v(2, 5), "TE faee0e8b (#1729)"},
      {TeFeature::kMlaAnyCommType, "MLA with every comm type", v(2, 15), "TE ee5dcec2 (#2719)"},
      {TeFeature::kSoftmaxSinks, "softmax_type sinks (a2a + Fused)", v(2, 8), "v2.8"},
      {TeFeature::kFusedFiltersV215, "FusedAttention CP filters of 2.15", v(2, 15),
       "TE #2719, #2432"},
      {TeFeature::kCustomRecipeFp8Rejected, "FP8 CustomRecipe rejected under CP", v(2, 16),
       "v2.16"},
      {TeFeature::kRopeFusionThd, "fused RoPE for THD + CP", v(1, 12),
       "MCore transformer_engine.py:3539-3552"},
      {TeFeature::kSequencePackingScheduler, "SFT sequence-packing scheduler", v(2, 9),
       "MCore dev transformer_config.py:3673-3704"},
  };
  return kMatrix;
}

const TeFeatureInfo& te_feature_info(TeFeature feature) {
  return te_feature_matrix()[static_cast<size_t>(feature)];
}

const Version& te_min_version(TeFeature feature) {
  return te_feature_info(feature).first;
}

bool te_supports(const Version& te, TeFeature feature) {
  return te >= te_min_version(feature);
}

std::optional<TeFeature> te_comm_feature(std::string_view comm_type) {
  if (comm_type == "p2p") return TeFeature::kCpP2p;
  if (comm_type == "all_gather") return TeFeature::kCpAllGather;
  if (comm_type == "a2a") return TeFeature::kCpA2a;
  if (comm_type == "a2a+p2p") return TeFeature::kCpA2aP2p;
  return std::nullopt;
}

std::optional<TeFeature> te_thd_feature(std::string_view comm_type) {
  if (comm_type == "p2p") return TeFeature::kThdP2p;
  if (comm_type == "all_gather") return TeFeature::kThdAllGather;
  if (comm_type == "a2a") return TeFeature::kThdA2a;
  if (comm_type == "a2a+p2p") return TeFeature::kThdA2aP2p;
  return std::nullopt;
}

const Version& te_latest_release() {
  static const Version kLatest = v(2, 18);
  return kLatest;
}

}  // namespace hcp
