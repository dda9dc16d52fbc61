// The layer mix: counts and sizes per layer kind (dense, MoE, MLA, Mamba, gated delta net, MTP).
#include "layers.h"

#include <algorithm>

namespace hcp::model_detail {

namespace {

double mlp_params(double hidden, double ffn, bool gated) {
  return (gated ? 3.0 : 2.0) * hidden * ffn;
}

/// Softmax attention projections. MLA (DeepSeek-V2/V3, Megatron MLASelfAttention): queries
/// through an optional low-rank q_lora_rank, keys and values from a kv_lora_rank latent plus a
/// shared rotary key of qk_pos_dim; q/k heads are qk_head_dim + qk_pos_dim wide, v heads
/// v_head_dim (megatron/core/transformer/multi_latent_attention.py).
double attention_params(const ModelDims& m) {
  double h = static_cast<double>(m.hidden);
  double n = static_cast<double>(m.heads);
  if (m.mla) {
    double qk = static_cast<double>(m.qk_head_dim + m.qk_pos_dim);
    double q = m.q_lora_rank > 0 ? h * m.q_lora_rank + static_cast<double>(m.q_lora_rank) * n * qk
                                 : h * n * qk;
    double kv =
        h * static_cast<double>(m.kv_lora_rank + m.qk_pos_dim) +
        static_cast<double>(m.kv_lora_rank) * n * static_cast<double>(m.qk_head_dim + m.v_head_dim);
    return q + kv + n * static_cast<double>(m.v_head_dim) * h;
  }
  double q = n * m.head_dim;
  double kv = static_cast<double>(m.kv_heads) * m.head_dim;
  return h * (q + 2 * kv) + q * h;
}

}  // namespace

double LayerMix::layer_params() const {
  return attention * attention_params + mlp * mlp_params +
         moe * (moe_expert_params + moe_other_params) + (mamba + gdn) * mamba_params +
         blocks * norm_params;
}

double LayerMix::active_params() const {
  return attention * attention_params + mlp * mlp_params + moe * moe_active_params +
         (mamba + gdn) * mamba_params + blocks * norm_params;
}

LayerMix layer_mix(const ModelDims& m) {
  LayerMix x;
  double h = static_cast<double>(m.hidden);
  x.attention_params = attention_params(m);
  x.mlp_params = mlp_params(h, static_cast<double>(m.ffn), m.gated_mlp);
  if (m.num_experts > 0) {
    double expert = mlp_params(h, static_cast<double>(m.moe_ffn), m.gated_mlp);
    double shared = mlp_params(h, static_cast<double>(m.moe_shared_ffn), m.gated_mlp);
    double router = h * static_cast<double>(m.num_experts);
    x.moe_expert_params = static_cast<double>(m.num_experts) * expert;
    x.moe_other_params = shared + router;
    x.moe_active_params =
        static_cast<double>(std::max<int64_t>(m.moe_topk, 1)) * expert + shared + router;
  }
  x.qk_dim =
      m.mla ? static_cast<double>(m.qk_head_dim + m.qk_pos_dim) : static_cast<double>(m.head_dim);
  x.v_dim = m.mla ? static_cast<double>(m.v_head_dim) : static_cast<double>(m.head_dim);
  if (m.mamba_heads > 0) {
    // Mamba-2 (megatron/core/ssm/mamba_mixer.py): in_proj h -> 2*d_inner + 2*groups*state + heads,
    // out_proj d_inner -> h, d_inner = heads * head_dim. SSD scan per token ~ 6 * d_inner * state
    // FLOPs forward (state update, output and the chunked intra-chunk term).
    double d_inner = static_cast<double>(m.mamba_heads * m.mamba_head_dim);
    double in = h * (2 * d_inner + 2.0 * m.mamba_groups * m.mamba_state_dim + m.mamba_heads);
    x.mamba_params = in + d_inner * h;
    x.mamba_scan_flops = 6.0 * d_inner * static_cast<double>(m.mamba_state_dim);
  }
  if (!m.layer_pattern.empty()) {
    for (char c : m.layer_pattern) {
      if (c == 'M') x.mamba += 1;
      if (c == '*') x.attention += 1;
      if (c == '-') x.mlp += 1;
      if (c == 'E') x.moe += 1;
      if (c == 'G') x.gdn += 1;
    }
    x.blocks = static_cast<double>(m.layer_pattern.size());
    x.norm_params = h;
    return x;
  }
  double layers = static_cast<double>(m.num_layers);
  x.blocks = layers;
  x.attention = layers;
  x.windowed = static_cast<double>(m.windowed_layers());
  if (m.num_experts > 0) {
    x.mlp = static_cast<double>(std::min(m.moe_dense_layers, m.num_layers));
    x.moe = layers - x.mlp;
  } else {
    x.mlp = layers;
  }
  // MTP: each module is one more transformer block (MoE when the model is) plus its projection.
  x.mtp = static_cast<double>(m.mtp_layers);
  x.attention += x.mtp;
  if (m.num_experts > 0) {
    x.moe += x.mtp;
  } else {
    x.mlp += x.mtp;
  }
  x.norm_params = 2 * h;
  return x;
}

}  // namespace hcp::model_detail
