// Per-layer attention time of each cp_comm_type: compute at the chunk-size dependent attention
// rate, the CP bytes of cp_volume.h priced on the link each group uses, and the ring overlap
// (exposed = max(0, transfer - compute) per step), as planner_anchors.md §1.3 describes.
#include "attention_cost.h"

#include <algorithm>

namespace hcp::model_detail {

namespace {

/// Forward attention FLOPs of one layer, per GPU, for one micro-batch (flash convention: causal
/// halves the score area; a window of w tokens leaves s*w - w*w/2 of it).
double attention_flops_fwd(const ModelDims& m, const Layout& l, bool windowed) {
  double s = static_cast<double>(m.seq_length);
  double area = s * s / 2;
  if (windowed && m.window > 0 && m.window < m.seq_length) {
    double w = static_cast<double>(m.window);
    area = s * w - w * w / 2;
  }
  double heads = static_cast<double>(m.heads) / l.tp;
  // Q·K^T over the q/k head dim plus P·V over the v head dim (equal unless MLA).
  double qk = m.mla ? static_cast<double>(m.qk_head_dim + m.qk_pos_dim) : m.head_dim;
  double v = m.mla ? static_cast<double>(m.v_head_dim) : m.head_dim;
  return 2.0 * m.micro_batch * area * heads * (qk + v) / l.cp;
}

/// Query tokens of one attention kernel call for the comm type (planner_anchors.md §1.3).
double kernel_tokens(const ModelDims& m, const Layout& l, CommType type) {
  double s = static_cast<double>(m.seq_length);
  if (l.cp <= 1) return s;
  switch (type) {
    case CommType::kA2a:
      return s;
    case CommType::kA2aP2p:
      return s / static_cast<double>(l.hcp_p2p());
    case CommType::kP2p:
    case CommType::kAllGather:
      return s / static_cast<double>(l.cp);
  }
  return s;
}

/// Attention kernel calls per layer and pass: one per ring step, two for all_gather's two local
/// query chunks, one for a2a (planner_anchors.md §1.3).
double kernel_calls(const Layout& l, CommType type) {
  if (l.cp <= 1) return 1;
  switch (type) {
    case CommType::kA2a:
      return 1;
    case CommType::kA2aP2p:
      return static_cast<double>(l.hcp_p2p());
    case CommType::kP2p:
      return static_cast<double>(l.cp);
    case CommType::kAllGather:
      return 2;
  }
  return 1;
}

double seconds(double bytes, double gbs) {
  return gbs > 0 ? bytes / (gbs * 1e9) : 0;
}

/// All-to-all time when a share `off` of the peers sits outside the domain: the intra- and
/// inter-domain parts run at the same time on different links.
double a2a_seconds(double bytes, double off, const Hardware& hw) {
  double intra = seconds(bytes * (1 - off), hw.a2a_gbs(true));
  double inter = seconds(bytes * off, hw.a2a_gbs(false));
  double latency = hw.link_latency(off == 0);
  return std::max(intra, inter) + latency;
}

void add_ring(AttentionCost& c, const CpVolume& v, const Hardware& hw, bool inside) {
  c.ring_steps = v.ring_steps;
  if (v.ring_steps <= 0) return;
  double group = static_cast<double>(v.ring_group_size);
  double gbs = hw.link_gbs(inside);
  double latency = hw.link_latency(inside);
  c.step_compute = c.compute_fwd / group;
  c.step_transfer = seconds(static_cast<double>(v.ring_step_bytes), gbs) + latency;
  double bwd_step = c.compute_bwd / group;
  double bwd_transfer =
      seconds(static_cast<double>(v.ring_backward_bytes) / v.ring_steps, gbs) + latency;
  // Attention hides at most ring_overlap of a step's transfer; each step also pays a fixed
  // ring_step_s (stream synchronisation and send/recv launches).
  double share = std::clamp(hw.k.ring_overlap, 0.0, 1.0);
  auto hidden = [&](double transfer, double compute) {
    return std::min(share * transfer, compute);
  };
  double steps = static_cast<double>(v.ring_steps);
  double hidden_fwd = steps * hidden(c.step_transfer, c.step_compute);
  double hidden_bwd = steps * hidden(bwd_transfer, bwd_step);
  c.ring_exposed_fwd = steps * c.step_transfer - hidden_fwd;
  c.ring_exposed_bwd = steps * bwd_transfer - hidden_bwd;
  // The fixed per-step cost belongs to the attention kernels' time (it runs on the compute
  // stream between steps), so the ring's exposed term stays the transfer nothing hid.
  c.compute_fwd += steps * hw.k.ring_step_s;
  c.compute_bwd += steps * hw.k.ring_step_s;
  c.ring_hidden = hidden_fwd + hidden_bwd;
}

void add_allgather(AttentionCost& c, const CpVolume& v, const Hardware& hw, bool inside) {
  double gbs = hw.link_gbs(inside);
  double latency = hw.link_latency(inside) * static_cast<double>(v.ring_group_size - 1);
  c.allgather_fwd = seconds(static_cast<double>(v.ring_forward_bytes), gbs) + latency;
  c.allgather_bwd = seconds(static_cast<double>(v.ring_backward_bytes), gbs) + 2 * latency;
}

/// Transient CP memory of one layer: a2a outputs (full-sequence head slice of Q,K,V and O), the
/// ring's KV buffers (TE's p2p forward keeps every received chunk until the call ends; backward
/// double-buffers KV and dKV), or all_gather's full-sequence K,V and dK,dV.
double buffer_bytes(const CpVolume& v, CommType type) {
  double q = static_cast<double>(v.q_local_bytes);
  double kv = static_cast<double>(v.kv_local_bytes);
  double ring = static_cast<double>(std::max<int64_t>(v.ring_group_size, 4)) * kv;
  switch (type) {
    case CommType::kA2a:
      return 2 * q + kv;
    case CommType::kA2aP2p:
      return 2 * q + kv + ring;
    case CommType::kP2p:
      return ring;
    case CommType::kAllGather:
      return 2.0 * static_cast<double>(v.ring_group_size) * kv;
  }
  return 0;
}

}  // namespace

Result<AttentionCost> attention_cost(const ModelDims& model, const Layout& layout,
                                     const Hardware& hw, const LinkPlacement& placement,
                                     CommType type, bool windowed, bool fp8) {
  AttentionCost c;
  double flops = attention_flops_fwd(model, layout, windowed);
  double rate = hw.attn_flops(kernel_tokens(model, layout, type));
  // Backward runs at attn_bwd_eff / attn_fwd_eff of the forward rate (a calibration that
  // measures the forward rate keeps the ratio).
  double bwd_ratio = hw.k.attn_fwd_eff > 0 ? hw.k.attn_bwd_eff / hw.k.attn_fwd_eff : 1;
  if (fp8 && hw.fp8_tflops > 0 && hw.attn_efficiency > 0) {
    // FP8 attention (fp8_dot_product_attention): cuDNN's FP8 kernels at attn_fp8_eff of the
    // FP8 peak instead of attn_fwd_eff of the BF16 peak.
    rate *= hw.fp8_tflops * hw.k.attn_fp8_eff / (hw.peak_tflops * hw.attn_efficiency);
  }
  double calls = kernel_calls(layout, type);
  c.compute_fwd = (rate > 0 ? flops / rate : 0) + calls * hw.k.attn_call_s;
  // flash backward: five GEMMs against two (2.5x the forward FLOPs)
  c.compute_bwd = (rate > 0 ? 2.5 * flops / (rate * bwd_ratio) : 0) + calls * hw.k.attn_call_s;
  if (layout.cp <= 1) return c;

  CpVolumeInput in;
  in.batch = model.micro_batch;
  in.seq_length = model.seq_length;
  in.heads = model.heads;
  in.kv_heads = model.kv_heads;
  in.head_dim = model.head_dim;
  in.tp = layout.tp;
  in.cp = layout.cp;
  in.comm_type = type;
  in.hcp_a2a = layout.hcp_a2a();
  in.hcp_p2p = layout.hcp_p2p();
  auto volume = cp_volume(in);
  if (!volume) return volume.error();
  const CpVolume& v = *volume;

  switch (type) {
    case CommType::kP2p:
      add_ring(c, v, hw, placement.cp_inside_domain);
      break;
    case CommType::kAllGather:
      add_allgather(c, v, hw, placement.cp_inside_domain);
      break;
    case CommType::kA2a:
      c.a2a_fwd = a2a_seconds(static_cast<double>(v.a2a_forward_bytes),
                              placement.cp_offdomain_fraction, hw);
      c.a2a_bwd = a2a_seconds(static_cast<double>(v.a2a_backward_bytes),
                              placement.cp_offdomain_fraction, hw);
      break;
    case CommType::kA2aP2p:
      c.a2a_fwd = a2a_seconds(static_cast<double>(v.a2a_forward_bytes),
                              placement.hcp_a2a_offdomain_fraction, hw);
      c.a2a_bwd = a2a_seconds(static_cast<double>(v.a2a_backward_bytes),
                              placement.hcp_a2a_offdomain_fraction, hw);
      add_ring(c, v, hw, placement.hcp_ring_inside_domain);
      break;
  }
  c.buffer_bytes = buffer_bytes(v, type);
  return c;
}

}  // namespace hcp::model_detail
