// estimate(): step time and memory per GPU of one layout, term by term.
//
// Time per micro-batch on one pipeline stage = (GEMMs + attention + recompute + exposed TP and CP
// communication of all layers) / pp; per step: m micro-batches, the 1F1B bubble (pp-1)/vpp
// micro-batch times, pipeline send/recv, and the part of the DP gradient reduce-scatter /
// parameter all-gather that the last (first) micro-batch's backward (forward) cannot hide.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attention_cost.h"
#include "hcp/model.h"

namespace hcp {

namespace {

using model_detail::AttentionCost;

Error model_error(std::string message) {
  Error e;
  e.message = std::move(message);
  return e;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kBf16 = 2;

/// The work of one micro-batch on one GPU summed over all layers (before dividing by pp).
struct MicroBatchWork {
  double gemm_fwd = 0;
  double gemm_bwd = 0;
  double attn_fwd = 0;
  double attn_bwd = 0;
  double tp_comm = 0;  ///< Exposed TP/SP collectives, fwd + bwd.
  double cp_a2a = 0;
  double cp_allgather = 0;
  double cp_ring_exposed = 0;
  double cp_ring_hidden = 0;
  double cp_exposed_fwd = 0;  ///< The forward share of the three CP terms (for recompute).
  double cp_buffers = 0;      ///< Largest transient CP buffer of any layer.
  double step_compute = 0;    ///< Ring step detail of a full-attention layer.
  double step_transfer = 0;
  int64_t ring_steps = 0;
};

double tokens_per_gpu(const ModelDims& m, const LayoutChoice& l) {
  return static_cast<double>(m.micro_batch) * static_cast<double>(m.seq_length) / l.cp;
}

void add_attention(MicroBatchWork& w, const AttentionCost& c, double layers) {
  w.attn_fwd += layers * c.compute_fwd;
  w.attn_bwd += layers * c.compute_bwd;
  w.cp_a2a += layers * (c.a2a_fwd + c.a2a_bwd);
  w.cp_allgather += layers * (c.allgather_fwd + c.allgather_bwd);
  w.cp_ring_exposed += layers * (c.ring_exposed_fwd + c.ring_exposed_bwd);
  w.cp_ring_hidden += layers * c.ring_hidden;
  w.cp_exposed_fwd += layers * c.exposed_fwd();
  w.cp_buffers = std::max(w.cp_buffers, c.buffer_bytes);
}

/// TP with sequence parallelism: 2 all-gathers + 2 reduce-scatters of b*(s/c)*h per layer and
/// pass (planner_anchors.md §1.2, last row), on NVLink when the TP group stays in the domain.
double tp_comm_seconds(const ModelDims& m, const LayoutChoice& l, const Hardware& hw, bool inside) {
  if (l.tp <= 1) return 0;
  double bytes = 4.0 * (l.tp - 1) / l.tp * tokens_per_gpu(m, l) * m.hidden * kBf16;
  double gbs = hw.link_gbs(inside);
  return 2 * (bytes / (gbs * 1e9) + 4 * hw.link_latency(inside));
}

Result<MicroBatchWork> micro_batch_work(const ModelDims& m, const LayoutChoice& l,
                                        const Hardware& hw, const TrainingSetup& setup,
                                        const LinkPlacement& placement) {
  MicroBatchWork w;
  double tokens = tokens_per_gpu(m, l);
  double layers = static_cast<double>(m.num_layers);
  double gemm_layer = 2.0 * tokens * m.layer_active_params() / l.tp / hw.gemm_flops();
  double logits = 2.0 * tokens * static_cast<double>(m.hidden) * m.vocab / l.tp / hw.gemm_flops();
  w.gemm_fwd = layers * gemm_layer + logits;
  w.gemm_bwd = 2 * w.gemm_fwd;

  double windowed = static_cast<double>(m.windowed_layers());
  double full = layers - windowed;
  if (full > 0) {
    auto c = model_detail::attention_cost(m, l, hw, placement, l.comm, false);
    if (!c) return c.error();
    add_attention(w, *c, full);
    w.step_compute = c->step_compute;
    w.step_transfer = c->step_transfer;
    w.ring_steps = c->ring_steps;
  }
  if (windowed > 0) {
    CommType type = l.windowed_comm.value_or(l.comm);
    auto c = model_detail::attention_cost(m, l, hw, placement, type, true);
    if (!c) return c.error();
    add_attention(w, *c, windowed);
  }
  double tp = tp_comm_seconds(m, l, hw, placement.tp_inside_domain);
  if (setup.tp_comm_overlap) {
    w.tp_comm = layers * std::max(0.0, tp - 3 * gemm_layer);
  } else {
    w.tp_comm = layers * tp;
  }
  return w;
}

/// Parameters held by one GPU of the first pipeline stage: dense part, expert part.
struct StageParams {
  double dense = 0;
  double experts = 0;
  double total() const { return dense + experts; }
};

StageParams stage_params(const ModelDims& m, const LayoutChoice& l) {
  double layers_per_stage = std::ceil(static_cast<double>(m.num_layers) / l.pp);
  double layer = m.layer_params();
  double expert = 0;
  if (m.num_experts > 0) {
    expert = m.num_experts * (m.gated_mlp ? 3.0 : 2.0) * m.hidden * m.moe_ffn;
  }
  double embedding = static_cast<double>(m.hidden) * m.vocab;
  if (!m.tied_embeddings && l.pp == 1) embedding *= 2;
  StageParams p;
  p.dense = ((layer - expert) * layers_per_stage + embedding) / l.tp;
  p.experts = expert * layers_per_stage / (l.expert_tp() * std::max<int64_t>(l.ep, 1));
  return p;
}

/// Bytes per token per layer kept for backward without recompute, bf16, flash attention:
/// LN inputs and GEMM inputs 8h, Q and O 4*q_dim, K and V 4*kv_dim, FC1 output and activation
/// 6*ffn (SwiGLU) or 4*ffn; all divided by TP with sequence parallelism (planner_anchors.md §1.4:
/// 34h for Llama-3-8B).
double activation_bytes_per_token_layer(const ModelDims& m, const LayoutChoice& l) {
  double q_dim = static_cast<double>(m.heads) * m.head_dim;
  double kv_dim = static_cast<double>(m.kv_heads) * m.head_dim;
  double ffn = static_cast<double>(m.ffn);
  if (m.num_experts > 0) ffn = static_cast<double>(m.moe_ffn) * m.moe_topk + m.moe_shared_ffn;
  double mlp = (m.gated_mlp ? 6.0 : 4.0) * ffn;
  return (8.0 * m.hidden + 4 * q_dim + 4 * kv_dim + mlp) / l.tp;
}

/// Layers' worth of activations the first stage holds: L/pp layers for min(pp, m) micro-batches
/// in flight (1F1B), times Megatron's interleaving factor 1 + (pp-1)/(pp*vpp).
double layers_in_flight(const ModelDims& m, const LayoutChoice& l, int64_t micro_batches) {
  double per_stage = std::ceil(static_cast<double>(m.num_layers) / l.pp);
  if (l.pp == 1) return per_stage;
  double in_flight = static_cast<double>(std::min(l.pp, micro_batches));
  double interleave = l.vpp > 1 ? 1.0 + (l.pp - 1.0) / (l.pp * l.vpp) : 1.0;
  return per_stage * in_flight * interleave;
}

MemoryBreakdown memory_of(const ModelDims& m, const LayoutChoice& l, const Hardware& hw,
                          const TrainingSetup& setup, const MicroBatchWork& w,
                          int64_t micro_batches) {
  MemoryBreakdown mem;
  StageParams params = stage_params(m, l);
  mem.weights = kBf16 * params.total();
  mem.gradients = (setup.grad_reduce_in_fp32 ? 4.0 : 2.0) * params.total();
  if (setup.distributed_optimizer) {
    // fp32 master weights + Adam m and v, sharded over the DP x CP group (dense) and the expert
    // DP group (experts): param_and_grad_buffer.py / optimizer.py, not data_parallel_size alone.
    double dense_shards = static_cast<double>(l.dp * l.cp);
    // expert DP = world / (etp * ep * pp) = tp * cp * dp / (etp * ep)
    double expert_shards =
        std::max(1.0, static_cast<double>(l.tp) * dense_shards /
                          static_cast<double>(l.expert_tp() * std::max<int64_t>(l.ep, 1)));
    mem.optimizer = 12.0 * (params.dense / dense_shards + params.experts / expert_shards);
  } else {
    mem.optimizer = 12.0 * params.total();
  }
  double tokens = tokens_per_gpu(m, l);
  double per_layer = activation_bytes_per_token_layer(m, l) * tokens;
  double in_flight = layers_in_flight(m, l, micro_batches);
  switch (setup.recompute) {
    case Recompute::kNone:
    case Recompute::kSelective:  // core_attn recompute: flash attention stores no scores anyway
      mem.activations = per_layer * in_flight;
      break;
    case Recompute::kFull:  // layer inputs only, plus one layer being recomputed
      mem.activations = 2.0 * m.hidden / l.tp * tokens * in_flight + per_layer;
      break;
  }
  mem.cp_buffers = w.cp_buffers;
  mem.logits = 6.0 * tokens * m.vocab / l.tp;  // bf16 logits + fp32 copy for the loss
  mem.reserved = hw.reserved_gib * kGiB;
  mem.total = mem.weights + mem.gradients + mem.optimizer + mem.activations + mem.cp_buffers +
              mem.logits + mem.reserved;
  return mem;
}

/// Gradient reduce-scatter + parameter all-gather (distributed optimizer) or all-reduce over the
/// DP x CP group; exposed beyond what the last backward / first forward hides.
double dp_exposed_seconds(const ModelDims& m, const LayoutChoice& l, const Hardware& hw,
                          const TrainingSetup& setup, bool inside, double fwd_mb, double bwd_mb) {
  double n = static_cast<double>(l.dp * l.cp);
  if (n <= 1) return 0;
  double params = stage_params(m, l).total();
  double grad_bytes = setup.grad_reduce_in_fp32 ? 4.0 : 2.0;
  double share = (n - 1) / n;
  double gbs = hw.link_gbs(inside);
  double rs = 0;
  double ag = 0;
  if (setup.distributed_optimizer) {
    rs = share * params * grad_bytes / (gbs * 1e9);
    ag = share * params * kBf16 / (gbs * 1e9);
  } else {
    rs = 2 * share * params * grad_bytes / (gbs * 1e9);
  }
  if (!setup.overlap_grad_reduce) return rs + ag;
  double layers = std::max(1.0, std::ceil(static_cast<double>(m.num_layers) / l.pp));
  double last_bucket = (rs + ag) / layers;
  return std::max(0.0, rs - bwd_mb) + std::max(0.0, ag - fwd_mb) + last_bucket;
}

}  // namespace

Result<Estimate> estimate(const ModelDims& model, const LayoutChoice& layout, const Hardware& hw,
                          const TrainingSetup& setup) {
  const LayoutChoice& l = layout;
  if (l.tp < 1 || l.cp < 1 || l.pp < 1 || l.dp < 1) {
    return model_error("parallel sizes must be positive: " + l.label());
  }
  if (hw.peak_tflops <= 0 || hw.nvlink_gbs <= 0 || hw.nic_gbs <= 0) {
    return model_error("the cluster profile lacks peak TFLOP/s or link bandwidths");
  }
  Estimate e;
  e.global_batch = setup.global_batch > 0 ? setup.global_batch : l.dp * model.micro_batch;
  int64_t per_step = l.dp * model.micro_batch;
  if (e.global_batch % per_step != 0) {
    return model_error("global batch " + std::to_string(e.global_batch) +
                       " is not divisible by micro_batch_size x DP = " + std::to_string(per_step));
  }
  e.micro_batches = e.global_batch / per_step;

  auto placement = place_links(l, hw.gpus_per_node, hw.nvlink_domain);
  if (!placement) return placement.error();
  e.placement = *placement;
  auto work = micro_batch_work(model, l, hw, setup, e.placement);
  if (!work) return work.error();
  const MicroBatchWork& w = *work;

  double pp = static_cast<double>(l.pp);
  double m = static_cast<double>(e.micro_batches);
  TimeBreakdown& t = e.time;
  t.gemm_s = m * (w.gemm_fwd + w.gemm_bwd) / pp;
  t.attention_s = m * (w.attn_fwd + w.attn_bwd) / pp;
  double recompute = 0;
  if (setup.recompute == Recompute::kFull) recompute = w.gemm_fwd + w.attn_fwd + w.cp_exposed_fwd;
  if (setup.recompute == Recompute::kSelective) recompute = w.attn_fwd;
  t.recompute_s = m * recompute / pp;
  t.tp_comm_s = m * w.tp_comm / pp;
  t.cp_a2a_s = m * w.cp_a2a / pp;
  t.cp_allgather_s = m * w.cp_allgather / pp;
  t.cp_ring_exposed_s = m * w.cp_ring_exposed / pp;
  t.cp_ring_hidden_s = m * w.cp_ring_hidden / pp;
  double micro_batch_s = (t.gemm_s + t.attention_s + t.recompute_s + t.tp_comm_s + t.cp_a2a_s +
                          t.cp_allgather_s + t.cp_ring_exposed_s) /
                         m;
  t.pp_bubble_s = (pp - 1) / static_cast<double>(std::max<int64_t>(l.vpp, 1)) * micro_batch_s;
  if (l.pp > 1) {
    double bytes = tokens_per_gpu(model, l) * model.hidden * kBf16 / l.tp;
    bool inside = e.placement.pp_inside_domain;
    t.pp_comm_s = m * 2 * (bytes / (hw.link_gbs(inside) * 1e9) + hw.link_latency(inside));
  }
  double fwd_mb = (w.gemm_fwd + w.attn_fwd) / pp;
  double bwd_mb = (w.gemm_bwd + w.attn_bwd) / pp;
  t.dp_comm_s =
      dp_exposed_seconds(model, l, hw, setup, e.placement.dp_inside_domain, fwd_mb, bwd_mb);
  t.step_s = m * micro_batch_s + t.pp_bubble_s + t.pp_comm_s + t.dp_comm_s;
  t.ring_step_compute_s = w.step_compute;
  t.ring_step_transfer_s = w.step_transfer;
  t.ring_steps = w.ring_steps;

  e.memory = memory_of(model, l, hw, setup, w, e.micro_batches);
  e.memory_limit_gib = setup.memory_limit_gib > 0 ? setup.memory_limit_gib : hw.memory_gib;
  e.fits_memory = e.memory_gib() <= e.memory_limit_gib;
  double tokens = static_cast<double>(e.global_batch) * static_cast<double>(model.seq_length);
  e.tokens_per_s_per_gpu = tokens / (t.step_s * static_cast<double>(l.world()));
  return e;
}

}  // namespace hcp
