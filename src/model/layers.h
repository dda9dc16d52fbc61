// The layer mix of a model (internal to the model module): how many layers of each kind it has
// and what one layer of each kind holds and computes, so hybrid, MoE, MLA and MTP models are
// priced as what they are.
#pragma once

#include "hcp/model.h"

namespace hcp::model_detail {

struct LayerMix {
  // Layer counts of the main stack (+ MTP blocks, counted as attention + MLP/MoE layers).
  double attention = 0;  ///< Softmax attention layers (full + windowed).
  double windowed = 0;   ///< Of which sliding-window.
  double mlp = 0;        ///< Dense MLP blocks.
  double moe = 0;        ///< MoE blocks.
  double mamba = 0;      ///< Mamba-2 layers.
  double gdn = 0;        ///< Gated delta net layers.
  double blocks = 0;     ///< Pipeline-divisible layers (num_layers, or the pattern's length).
  double mtp = 0;        ///< MTP blocks (each adds a logits computation too).
  // Parameters of one layer of each kind.
  double attention_params = 0;
  double mlp_params = 0;
  double moe_expert_params = 0;  ///< All routed experts of one MoE layer.
  double moe_other_params = 0;   ///< Shared expert + router of one MoE layer.
  double moe_active_params = 0;  ///< Routed top-k experts + shared + router.
  double mamba_params = 0;
  double norm_params = 0;  ///< Per block.
  // Forward FLOPs per token of one layer that are not GEMMs over its parameters.
  double mamba_scan_flops = 0;
  // Attention geometry: Q·K head dim and V head dim (differ under MLA).
  double qk_dim = 0;
  double v_dim = 0;

  /// Return all parameters of the layers (no embedding).
  double layer_params() const;
  /// Return the parameters one token activates in the layers (no embedding).
  double active_params() const;
  /// Return the routed expert parameters of all MoE layers.
  double expert_params() const { return moe * moe_expert_params; }
};

/// Count and size the layers of `m`.
LayerMix layer_mix(const ModelDims& m);

}  // namespace hcp::model_detail
