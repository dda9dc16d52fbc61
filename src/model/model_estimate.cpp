// estimate(): step time and memory per GPU of one layout, term by term.
//
// Time per micro-batch on one pipeline stage = (GEMMs at the precision's rate + attention +
// Mamba scans + memory-bound kernels + MoE router/permute and EP dispatch/combine + recompute +
// exposed TP and CP communication + launch overhead of all layers) / pp; per step: m
// micro-batches, the interleaved 1F1B bubble (pp-1)/vpp micro-batch times, pipeline send/recv
// (vpp per micro-batch and direction), and the part of the DP gradient reduce-scatter /
// parameter all-gather that the last (first) micro-batch's backward (forward) cannot hide.
// Every rate and overhead is a named constant of Hardware::k (model_constants.h); every other
// factor (units, bytes per element, FLOPs per parameter, forward / backward ratios) is a named
// constexpr below with its reason.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "attention_cost.h"
#include "hcp/model.h"
#include "layers.h"

namespace hcp {

namespace {

using model_detail::AttentionCost;
using model_detail::LayerMix;

Error model_error(std::string message) {
  Error e;
  e.message = std::move(message);
  return e;
}

// Units.
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kPerTera = 1e12;  ///< TFLOP/s -> FLOP/s.
constexpr double kPerGiga = 1e9;   ///< GB/s -> B/s.
// Bytes per element.
constexpr double kBf16 = 2;  ///< BF16 activations, weights, gradients.
constexpr double kFp8 = 1;   ///< FP8 / FP4 recipes keep GEMM inputs quantised to 1 byte.
constexpr double kFp32 = 4;  ///< grad_reduce_in_fp32 gradients.
/// fp32 master weights + Adam m and v: 3 x 4 bytes per parameter.
constexpr double kOptimizerBytesPerParam = 12;
/// bf16 logits and their gradient (fused cross entropy keeps no fp32 copy): 2 x 2 bytes.
constexpr double kLogitBytesPerVocabEntry = 4;
// FLOPs and passes.
constexpr double kFlopsPerParamToken = 2;  ///< One multiply-add per weight per token.
/// Backward GEMMs compute the input and the weight gradient: twice the forward.
constexpr double kBwdOverFwd = 2;
/// Forward + backward = 3 forwards; also the share a forward pass is of both (1/3).
constexpr double kFwdBwdOverFwd = 3;
/// Forward + backward of a symmetric transfer (EP dispatch / combine, PP send / receive).
constexpr double kDirections = 2;
/// TP with sequence parallelism per layer and pass: 2 all-gathers + 2 reduce-scatters.
constexpr double kTpCollectivesPerLayerPass = 4;
/// EP per MoE layer and pass: one dispatch and one combine all-to-all.
constexpr double kEpA2aPerLayerPass = 2;
/// Megatron-LM's default gradient bucket: max(40M, 1M x DP x CP) parameters
/// (megatron/core/distributed/distributed_data_parallel_config.py:48-51 @d98e8a6, bucket_size).
constexpr double kDdpBucketMinParams = 40e6;
constexpr double kDdpBucketParamsPerRank = 1e6;
/// Without distributed optimizer the gradient all-reduce moves 2x a reduce-scatter's bytes.
constexpr double kAllReduceOverReduceScatter = 2;
/// Megatron-FSDP holds the layer it computes and the one it prefetches unsharded.
constexpr double kFsdpUnshardedLayers = 2;
/// Selective recompute of layernorm or moe_act redoes ~5 % of a layer's memory-bound passes
/// (one norm's or one activation's forward among the elementwise_passes; assumed, not fitted).
constexpr double kSelectiveElementwiseShare = 0.05;
/// Activations: each layer keeps two norm inputs (attention, MLP), K and V, and Mamba-2's
/// in_proj splits into two d_inner halves (z, x) and two state projections (B, C).
constexpr double kNormsPerLayer = 2;
constexpr double kKAndV = 2;
constexpr double kMambaInProjHalves = 2;
constexpr double kMambaStateProjections = 2;
/// Mamba-2 keeps the scan output and the gated norm's input, BF16 each, per d_inner.
constexpr double kMambaScanOutputBytes = 2 * kBf16;
/// No CUDA graphs: the full per-layer host and launch cost (layer_overhead_s).
constexpr double kNoGraphOverheadShare = 1.0;

/// The work of one micro-batch on one GPU summed over all layers (before dividing by pp).
struct MicroBatchWork {
  double gemm_fwd = 0;
  double gemm_bwd = 0;
  double mlp_fwd = 0;      ///< Dense MLP GEMMs, forward (selective recompute of "mlp").
  double expert_fwd = 0;   ///< Routed expert GEMMs, forward (recompute of "moe").
  double up_proj_fwd = 0;  ///< MLA up-projections, forward (recompute of "mla_up_proj").
  double elementwise = 0;  ///< Memory-bound kernels, fwd + bwd.
  double permute = 0;      ///< MoE router, permute, unpermute, fwd + bwd.
  double ep_a2a = 0;       ///< EP dispatch + combine, fwd + bwd.
  double overhead = 0;     ///< Launch / host cost.
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

double tokens_per_gpu(const ModelDims& m, const Layout& l) {
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
double tp_comm_seconds(const ModelDims& m, const Layout& l, const Hardware& hw, bool inside) {
  if (l.tp <= 1) return 0;
  double bytes =
      kTpCollectivesPerLayerPass * (l.tp - 1) / l.tp * tokens_per_gpu(m, l) * m.hidden * kBf16;
  double gbs = hw.link_gbs(inside);
  return kDirections *
         (bytes / (gbs * kPerGiga) + kTpCollectivesPerLayerPass * hw.link_latency(inside));
}

/// GEMM FLOP/s of the linear layers at the run's precision: the precision's dense peak
/// (gpu_specs.h) times its named efficiency. Devices without the precision's tensor-core path run
/// the next wider one (no FP4 -> FP8, no FP8 -> BF16); MXFP8 needs Blackwell (else FP8 block
/// scaling).
double gemm_rate(const Hardware& hw, Precision p) {
  double bf16 = hw.gemm_flops();
  const GenerationConstants& k = hw.k;
  bool blackwell =
      hw.generation == GpuGeneration::kBlackwell || hw.generation == GpuGeneration::kBlackwellUltra;
  if (p == Precision::kNvfp4 && hw.fp4_tflops > 0)
    return hw.fp4_tflops * kPerTera * k.gemm_eff_nvfp4;
  if (p == Precision::kNvfp4) p = Precision::kFp8Current;
  if (hw.fp8_tflops <= 0) return bf16;
  double fp8 = hw.fp8_tflops * kPerTera;
  switch (p) {
    case Precision::kBf16:
      return bf16;
    case Precision::kFp8Delayed:
    case Precision::kFp8Current:
      return fp8 * k.gemm_eff_fp8_tensor;
    case Precision::kFp8Block:
      return fp8 * k.gemm_eff_fp8_block;
    case Precision::kMxfp8:
      return fp8 * (blackwell ? k.gemm_eff_mxfp8 : k.gemm_eff_fp8_block);
    case Precision::kNvfp4:
      break;
  }
  return fp8 * k.gemm_eff_fp8_tensor;
}

double hbm_seconds(double bytes, const Hardware& hw) {
  double rate = hw.hbm_gbs * kPerGiga * hw.k.hbm_eff;
  return rate > 0 ? bytes / rate : 0;
}

/// Share of the EP all-to-all peers outside the NVLink domain: Megatron's expert grid
/// (tp-ep-dp-pp with etp in tp's place) puts an EP group on etp*ep consecutive ranks.
double ep_offdomain_fraction(const Layout& l, const Hardware& hw) {
  double span = static_cast<double>(l.expert_tp() * l.ep);
  double domain = static_cast<double>(std::max(1, hw.nvlink_domain));
  if (span <= domain) return 0;
  return 1.0 - domain / span;
}

/// The standard normal quantile whose upper tail is `upper` in (0, 0.5], P(Z > z) = upper: the
/// upper half of P. J. Acklam's rational approximation (relative error below 1.2e-9), all that
/// expected_slowest() asks for (a tail of at most 0.625 / 2.25). The tail is passed as such, not
/// as 1 - p, so that the largest of 10^18 draws keeps its digits.
double upper_normal_quantile(double upper) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kTail = 0.02425;
  auto tail = [&](double q) {
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  };
  if (upper < kTail) return -tail(std::sqrt(-2 * std::log(upper)));
  double q = 0.5 - upper;
  double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/// The busiest of several receivers' load over the mean when each sums `experts` experts whose
/// loads vary independently: the busiest expert's excess over the mean (`expert_load` - 1)
/// shrinks as 1 / sqrt(experts) in a sum. The EP all-to-all waits for its busiest receiving rank
/// or domain; the expert GEMMs keep the busiest expert's factor (summing it per rank there too
/// was scored: leave-one-model-out 22.1% -> 24.7%).
double summed_load(double expert_load, double experts) {
  return 1.0 + (expert_load - 1.0) / std::sqrt(std::max(1.0, experts));
}

/// Remote ranks one token is sent to by DeepEP / HybridEP: once to each other EP rank that holds
/// at least one of its topk experts (the rank-level layout is_token_in_rank of deepseek-ai/DeepEP
/// Buffer.get_dispatch_layout), where Megatron's NCCL all-to-all dispatcher sends one copy per
/// routed expert. Experts spread evenly, num_experts / ep per rank, topk of them drawn without
/// replacement.
double deepep_remote_ranks(const ModelDims& m, const Layout& l) {
  double experts = static_cast<double>(m.num_experts);
  double per_rank = experts / static_cast<double>(l.ep);
  double miss = 1.0;  // P(a given rank holds none of the token's experts)
  for (int64_t i = 0; i < m.moe_topk && i < m.num_experts; ++i) {
    double left = experts - static_cast<double>(i);
    miss *= std::max(0.0, left - per_rank) / left;
  }
  return (static_cast<double>(l.ep) - 1.0) * (1.0 - miss);
}

/// Busiest expert's load over the mean: dropless runs pay the routing imbalance; a capacity
/// factor caps it (moe_expert_capacity_factor, tokens beyond it are dropped), and padding to the
/// capacity (moe_pad_expert_input_to_capacity) gives every expert exactly that load
/// (Megatron-LM megatron/core/transformer/moe/moe_utils.py:248-263 @d98e8a6, get_capacity:
/// ceil(tokens x topk / experts x factor)). Forced load balancing
/// (moe_router_force_load_balancing: random router logits, Megatron-LM
/// megatron/core/transformer/moe/router.py:861-863 @d98e8a6) leaves only the random spread of
/// thousands of tokens per expert, a few percent, taken as none.
double moe_load_factor(const ModelDims& m, const Hardware& hw) {
  double imbalance = m.moe_force_balance ? 1.0 : std::max(1.0, hw.k.moe_dropless_imbalance);
  if (m.moe_capacity_factor <= 0) return imbalance;
  if (m.moe_pad_to_capacity) return m.moe_capacity_factor;
  return std::min(imbalance, m.moe_capacity_factor);
}

/// Routed experts of one micro-batch (forward): grouped GEMMs whose rate falls with the tokens
/// each local expert gets (gemm_half_tokens), times the busiest expert's load; sets expert_fwd,
/// permute and ep_a2a of `w` and returns the expert GEMM seconds (0 without routed experts).
/// `dense` is the other linear layers' forward seconds (what EP overlap can hide behind).
double add_routed_experts(MicroBatchWork& w, const ModelDims& m, const Layout& l,
                          const Hardware& hw, const TrainingSetup& setup, const LayerMix& x,
                          double tokens, double dense) {
  if (!(x.moe > 0 && m.num_experts > 0)) return 0;
  const GenerationConstants& k = hw.k;
  double tp = static_cast<double>(l.tp);
  double h = static_cast<double>(m.hidden);
  double rate = gemm_rate(hw, setup.precision);
  double topk = static_cast<double>(std::max<int64_t>(m.moe_topk, 1));
  double per_expert = tokens * topk * static_cast<double>(l.ep) *
                      static_cast<double>(l.expert_tp()) /
                      (tp * static_cast<double>(m.num_experts));
  double eff = per_expert / (per_expert + std::max(0.0, k.gemm_half_tokens));
  double width = static_cast<double>(m.moe_ffn) / static_cast<double>(l.expert_tp());
  if (width > 0) eff *= width / (width + std::max(0.0, k.gemm_half_width));
  double load = moe_load_factor(m, hw);
  double active = x.moe_active_params - x.moe_other_params;
  double experts = kFlopsPerParamToken * tokens * x.moe * active / tp / (rate * eff) * load;
  w.expert_fwd = experts;
  // Router, permute and unpermute: memory-bound passes over every routed token copy.
  w.permute = x.moe * hbm_seconds(k.moe_permute_passes * tokens / tp * topk * h * kBf16, hw);
  if (l.ep > 1) {
    // Dispatch and combine, forward and backward: each token copy leaves its GPU unless its
    // expert is local ((ep-1)/ep of them), on the link the EP group uses.
    double bytes = tokens / tp * topk * h * kBf16 * (l.ep - 1.0) / l.ep;
    if (setup.moe_deepep) bytes = tokens / tp * h * kBf16 * deepep_remote_ranks(m, l);
    double off = ep_offdomain_fraction(l, hw);
    double inter_bytes = bytes * off;
    if (setup.moe_deepep && off > 0) {
      // DeepEP / HybridEP send a token once to each remote NVLink domain that holds one of
      // its experts and forward it inside that domain over NVLink (DeepSeek-V3 technical
      // report, arXiv 2412.19437, section 3.2.2; deepseek-ai/DeepEP README, internode
      // kernels): the expected number of remote domains among topk experts spread evenly
      // over the EP group's domains, instead of one crossing per remote expert.
      double domains = 1.0 / (1.0 - off);
      double remote = (domains - 1.0) * (1.0 - std::pow(1.0 - 1.0 / domains, topk));
      inter_bytes = std::min(inter_bytes, tokens / tp * h * kBf16 * remote);
    }
    // The busiest receiver sets the time: a rank (inside a domain) or a domain (across them),
    // whose load sums its experts' loads.
    double per_rank = static_cast<double>(m.num_experts) / static_cast<double>(l.ep);
    double per_domain = off > 0 ? per_rank * static_cast<double>(l.ep) * (1.0 - off) : per_rank;
    double intra =
        bytes * (1 - off) / (hw.ep_a2a_gbs(true) * kPerGiga) * summed_load(load, per_rank);
    double inter =
        off > 0 ? inter_bytes / (hw.ep_a2a_gbs(false) * kPerGiga) * summed_load(load, per_domain)
                : 0;
    double one = std::max(intra, inter) + hw.link_latency(off == 0);
    w.ep_a2a = x.moe * (kEpA2aPerLayerPass * kDirections) * one;
    if (setup.moe_a2a_overlap) {
      // overlap_moe_expert_parallel_comm runs one micro-batch's dispatch / combine beside the
      // other's compute (Megatron-LM combined 1F1B schedule; Bridge perf flag moe_a2a_overlap,
      // scripts/performance/utils/overrides.py:165-175 @5cb3444): hidden up to ep_overlap of
      // it, and never more than the expert and dense GEMMs beside it (fwd + bwd).
      double beside = kFwdBwdOverFwd * (dense + experts);
      w.ep_a2a = std::max((1 - k.ep_overlap) * w.ep_a2a, w.ep_a2a - beside);
    }
  }
  return experts;
}

Result<MicroBatchWork> micro_batch_work(const ModelDims& m, const Layout& l, const Hardware& hw,
                                        const TrainingSetup& setup, const LinkPlacement& placement,
                                        const LayerMix& x) {
  MicroBatchWork w;
  const GenerationConstants& k = hw.k;
  double tokens = tokens_per_gpu(m, l);
  double tp = static_cast<double>(l.tp);
  double h = static_cast<double>(m.hidden);
  double rate = gemm_rate(hw, setup.precision);
  // Linear layers other than the routed experts (attention projections, dense MLPs, Mamba
  // projections, shared experts, routers), split over TP.
  double dense_params = x.attention * x.attention_params + x.mlp * x.mlp_params +
                        (x.mamba + x.gdn) * x.mamba_params + x.moe * x.moe_other_params;
  double dense = kFlopsPerParamToken * tokens * dense_params / tp / rate;
  w.mlp_fwd = kFlopsPerParamToken * tokens * x.mlp * x.mlp_params / tp / rate;
  if (m.mla) {
    double n = static_cast<double>(m.heads);
    double up =
        static_cast<double>(m.kv_lora_rank) * n *
            static_cast<double>(m.qk_head_dim + m.v_head_dim) +
        static_cast<double>(m.q_lora_rank) * n * static_cast<double>(m.qk_head_dim + m.qk_pos_dim);
    w.up_proj_fwd = kFlopsPerParamToken * tokens * x.attention * up / tp / rate;
  }
  // Routed experts: grouped GEMMs whose rate falls with the tokens each local expert gets
  // (gemm_half_tokens), times the busiest expert's load.
  double experts = add_routed_experts(w, m, l, hw, setup, x, tokens, dense);
  double logits = kFlopsPerParamToken * tokens * h * static_cast<double>(m.vocab) * (1 + x.mtp) /
                  tp / hw.gemm_flops();
  double mamba = 0;
  if (x.mamba + x.gdn > 0 && k.mamba_eff > 0) {
    mamba = tokens * (x.mamba + x.gdn) * x.mamba_scan_flops / tp /
            (hw.peak_tflops * kPerTera * k.mamba_eff);
  }
  w.gemm_fwd = dense + experts + logits + mamba;
  w.gemm_bwd = kBwdOverFwd * w.gemm_fwd;
  double passes = k.elementwise_passes + (setup.precision == Precision::kBf16 ? 0 : k.cast_passes);
  w.elementwise = x.blocks * hbm_seconds(passes * tokens / tp * h * kBf16, hw);
  double graphs = setup.cuda_graph_full_iteration ? k.cuda_graph_full_overhead
                  : setup.cuda_graphs && !setup.cuda_graph_partial_scope ? k.cuda_graph_overhead
                                                                         : kNoGraphOverheadShare;
  w.overhead = (x.blocks + x.mtp) * k.layer_overhead_s * graphs;

  double full = x.attention - x.windowed;
  if (full > 0) {
    auto c = model_detail::attention_cost(m, l, hw, placement, l.comm, false, setup.fp8_attention);
    if (!c) return c.error();
    add_attention(w, *c, full);
    w.step_compute = c->step_compute;
    w.step_transfer = c->step_transfer;
    w.ring_steps = c->ring_steps;
  }
  if (x.windowed > 0) {
    CommType type = l.windowed_comm.value_or(l.comm);
    auto c = model_detail::attention_cost(m, l, hw, placement, type, true, setup.fp8_attention);
    if (!c) return c.error();
    add_attention(w, *c, x.windowed);
  }
  double tpc = tp_comm_seconds(m, l, hw, placement.tp_inside_domain);
  double per_layer_gemm = x.blocks > 0 ? (dense + experts) / x.blocks : 0;
  if (setup.tp_comm_overlap) {
    w.tp_comm =
        x.blocks * std::max((1 - k.tp_overlap) * tpc, tpc - kFwdBwdOverFwd * per_layer_gemm);
  } else {
    w.tp_comm = x.blocks * tpc;
  }
  return w;
}

/// Parameters held by one GPU of the first pipeline stage: dense part, expert part.
struct StageParams {
  double dense = 0;
  double experts = 0;
  double total() const { return dense + experts; }
};

StageParams stage_params(const ModelDims& m, const Layout& l, const LayerMix& x) {
  double blocks = std::max(1.0, x.blocks);
  double stage_share = std::ceil(blocks / l.pp) / blocks;
  double expert = x.expert_params();
  double layers = x.layer_params() - expert;
  double embedding = static_cast<double>(m.hidden) * m.vocab;
  if (!m.tied_embeddings && l.pp == 1) embedding *= 2;
  StageParams p;
  p.dense = (layers * stage_share + embedding) / l.tp;
  p.experts = expert * stage_share / (l.expert_tp() * std::max<int64_t>(l.ep, 1));
  return p;
}

bool has_module(const TrainingSetup& s, std::string_view name) {
  return std::find(s.recompute_modules.begin(), s.recompute_modules.end(), name) !=
         s.recompute_modules.end();
}

bool offloads(const TrainingSetup& s, std::string_view name) {
  return std::find(s.offload_modules.begin(), s.offload_modules.end(), name) !=
         s.offload_modules.end();
}

/// Which saved tensors a layer keeps on the GPU: selective recompute drops what it recomputes,
/// fine-grained activation offloading (Megatron-LM transformer_config.py:1328-1341 @d98e8a6:
/// "offload the input of" each named module) moves a module's input to the host.
struct SavedTensors {
  const TrainingSetup& s;
  bool recomputes(const char* module) const {
    return s.recompute == Recompute::kSelective && has_module(s, module);
  }
  bool offloaded(const char* module) const { return offloads(s, module); }
  /// Bytes of one saved tensor of `width` elements at `bytes` each, unless `module` drops it.
  double keep(const char* module, double bytes, double width) const {
    return offloaded(module) ? 0 : bytes * width;
  }
};

/// Attention bytes per token: the norm's input, the QKV GEMM input, Q K V (MLA: the up-projected
/// per-head K and V) and the core attention output. The output is the O-projection's input
/// (attention.py:1628 @d98e8a6: linear_proj(core_attn_out)), one tensor in BF16; the FP8 and FP4
/// recipes save a quantised copy for the weight gradient as well.
double attention_bytes(const ModelDims& m, const LayerMix& x, const SavedTensors& t, double g,
                       double norm) {
  double h = static_cast<double>(m.hidden);
  double q_dim = static_cast<double>(m.heads) * x.qk_dim;
  double kv_dim = m.mla ? static_cast<double>(m.heads) * (x.qk_dim + x.v_dim) / kKAndV
                        : static_cast<double>(m.kv_heads) * m.head_dim;
  double o_dim = static_cast<double>(m.heads) * x.v_dim;
  double qkv = t.recomputes("mla_up_proj") || t.offloaded("core_attn")
                   ? 0
                   : kBf16 * q_dim + kKAndV * kBf16 * kv_dim;
  double o_copy = g == kBf16 ? 0 : g * o_dim;
  return (t.offloaded("attn_norm") ? 0 : norm) + t.keep("qkv_linear", g, h) + qkv +
         (t.offloaded("attn_proj") ? 0 : kBf16 * o_dim + o_copy);
}

/// MoE bytes per token: the norm's input, the router input and, per routed copy, the permuted
/// FC1 input, the FC1 output (the activation's input) and the activation output, plus the
/// shared expert.
double moe_bytes(const ModelDims& m, const SavedTensors& t, double g, double norm, double act) {
  double h = static_cast<double>(m.hidden);
  double moe = (t.offloaded("mlp_norm") ? 0 : norm) + g * h;
  if (t.recomputes("moe")) return moe;  // the whole MoE layer, shared expert included
  double shared = (act + g) * static_cast<double>(m.moe_shared_ffn);
  // fused_group_mlp offloads the whole fused grouped MLP of the routed experts
  // (transformer_config.py:2186-2193 @d98e8a6).
  if (t.offloaded("fused_group_mlp")) return moe + shared;
  double topk = static_cast<double>(std::max<int64_t>(m.moe_topk, 1));
  double moe_ffn = static_cast<double>(m.moe_ffn);
  double act_out = t.recomputes("moe_act") ? 0 : g * moe_ffn;
  return moe + topk * (t.keep("expert_fc1", g, h) + t.keep("moe_act", act, moe_ffn) + act_out) +
         shared;
}

/// Bytes per token kept for backward, averaged over the layers, bf16, flash attention, divided
/// by TP with sequence parallelism (planner_anchors.md §1.4: 34h per Llama-3-8B layer).
/// Attention: attention_bytes(). Dense MLP: LN and FC1 inputs 4h, FC1 output and activation
/// 6*ffn (SwiGLU) or 4*ffn. MoE: moe_bytes(). Mamba-2: 4h, the in_proj output and the scan
/// output. Selective recompute modules drop what they recompute (layernorm, mlp, moe, moe_act,
/// mla_up_proj); offloaded modules drop their inputs.
double activation_bytes_per_token(const ModelDims& m, const Layout& l, const LayerMix& x,
                                  const TrainingSetup& s) {
  SavedTensors t{s};
  double h = static_cast<double>(m.hidden);
  // GEMM inputs are saved as the GEMM consumes them: FP8 (1 byte) under the FP8 and FP4
  // recipes (TE keeps the quantised input for the weight gradient), else BF16.
  double g = s.precision == Precision::kBf16 ? kBf16 : kFp8;
  // The norm inputs (attention, MLP), bf16; layernorm recompute keeps one.
  double norm = t.recomputes("layernorm") ? kBf16 * h : kNormsPerLayer * kBf16 * h;
  double one_norm = norm / kNormsPerLayer;
  double attn = attention_bytes(m, x, t, g, one_norm);
  // FC1 output, bf16 (both halves under SwiGLU).
  double act = m.gated_mlp ? 2 * kBf16 : kBf16;
  double ffn = static_cast<double>(m.ffn);
  double mlp = (t.offloaded("mlp_norm") ? 0 : one_norm) + g * h +
               (t.recomputes("mlp") ? 0 : act * ffn + g * ffn);
  double moe = moe_bytes(m, t, g, one_norm, act);
  double mamba = 0;
  if (m.mamba_heads > 0) {
    double d_inner = static_cast<double>(m.mamba_heads * m.mamba_head_dim);
    mamba = one_norm +
            kBf16 * (kMambaInProjHalves * d_inner +
                     kMambaStateProjections * m.mamba_groups * m.mamba_state_dim) +
            kMambaScanOutputBytes * d_inner;
  }
  double total = x.attention * attn + x.mlp * mlp + x.moe * moe + (x.mamba + x.gdn) * mamba;
  return total / std::max(1.0, x.blocks) / l.tp;
}

/// Layers' worth of activations the first stage holds: L/pp layers for min(pp, m) micro-batches
/// in flight (1F1B), times Megatron's interleaving factor 1 + (pp-1)/(pp*vpp).
double layers_in_flight(const LayerMix& x, const Layout& l, int64_t micro_batches) {
  double per_stage = std::ceil(std::max(1.0, x.blocks) / l.pp);
  if (l.pp == 1) return per_stage;
  double in_flight = static_cast<double>(std::min(l.pp, micro_batches));
  double interleave =
      l.virtual_stages() > 1 ? 1.0 + (l.pp - 1.0) / (l.pp * l.virtual_stages()) : 1.0;
  return per_stage * in_flight * interleave;
}

MemoryBreakdown memory_of(const ModelDims& m, const Layout& l, const Hardware& hw,
                          const TrainingSetup& setup, const MicroBatchWork& w,
                          int64_t micro_batches, const LayerMix& x) {
  MemoryBreakdown mem;
  StageParams params = stage_params(m, l, x);
  double dense_shards = static_cast<double>(l.dp * l.cp);
  // expert DP = world / (etp * ep * pp) = tp * cp * dp / (etp * ep)
  double expert_shards =
      std::max(1.0, static_cast<double>(l.tp) * dense_shards /
                        static_cast<double>(l.expert_tp() * std::max<int64_t>(l.ep, 1)));
  double sharded = params.dense / dense_shards + params.experts / expert_shards;
  double grad_bytes = setup.grad_reduce_in_fp32 ? kFp32 : kBf16;
  if (setup.fsdp) {
    // Megatron-FSDP (optim_grads_params): weights, gradients and optimizer state sharded over
    // the DP x CP group (experts over the expert DP group); one layer's weights are gathered
    // at a time.
    double layer_unsharded = params.total() / std::max(1.0, std::ceil(x.blocks / l.pp));
    mem.weights = kBf16 * (sharded + kFsdpUnshardedLayers * layer_unsharded);
    mem.gradients = grad_bytes * sharded;
  } else {
    mem.weights = kBf16 * params.total();
    mem.gradients = grad_bytes * params.total();
  }
  double optimizer_bytes = setup.optimizer_bytes_per_param > 0 ? setup.optimizer_bytes_per_param
                                                               : kOptimizerBytesPerParam;
  if (setup.distributed_optimizer || setup.fsdp) {
    // fp32 master weights + Adam m and v, sharded over the DP x CP group (dense) and the expert
    // DP group (experts): param_and_grad_buffer.py / optimizer.py, not data_parallel_size alone.
    mem.optimizer = optimizer_bytes * sharded;
  } else {
    mem.optimizer = optimizer_bytes * params.total();
  }
  if (setup.optimizer_cpu_offload) {
    // optimizer_cpu_offload keeps optimizer_offload_fraction of the state on the host.
    mem.optimizer *= 1.0 - std::clamp(setup.optimizer_offload_fraction, 0.0, 1.0);
  }
  double tokens = tokens_per_gpu(m, l);
  double per_layer = activation_bytes_per_token(m, l, x, setup) * tokens;
  double in_flight = layers_in_flight(x, l, micro_batches);
  if (setup.activation_offload_layers > 0) {
    // cpu_offloading_num_layers: that many layers' activations wait on the host.
    double per_stage = std::ceil(std::max(1.0, x.blocks) / l.pp);
    double kept = std::max(1.0, per_stage - static_cast<double>(setup.activation_offload_layers));
    in_flight *= kept / per_stage;
  }
  switch (setup.recompute) {
    case Recompute::kNone:
    case Recompute::kSelective:  // core_attn recompute: flash attention stores no scores anyway
      mem.activations = per_layer * in_flight;
      break;
    case Recompute::kFull:  // layer inputs only, plus one layer being recomputed
      mem.activations = kBf16 * m.hidden / l.tp * tokens * in_flight + per_layer;
      break;
  }
  mem.cp_buffers = w.cp_buffers;
  // bf16 logits and their gradient: Bridge fuses the cross entropy (cross_entropy_loss_fusion,
  // src/megatron/bridge/models/gpt_provider.py:205 @067f987), no fp32 copy of the logits.
  mem.logits = kLogitBytesPerVocabEntry * tokens * m.vocab / l.tp;
  mem.reserved = hw.reserved_gib * kGiB;
  mem.total = mem.weights + mem.gradients + mem.optimizer + mem.activations + mem.cp_buffers +
              mem.logits + mem.reserved;
  return mem;
}

/// Seconds of one reduce-scatter or all-gather of `bytes` per rank over a group of `n` ranks,
/// `per_domain` of them in each NVLink domain. Across domains NCCL runs one ring per NIC, each
/// crossing the domain boundary through its own NIC, so the members inside one domain add their
/// NICs up, to at most the NVLink rate: 2 HGX nodes with 8 400G NICs each reach ~396 GB/s ring
/// busbw (nccl-tests #319), 8 x the ~48 GB/s of one NIC.
double ring_pass_seconds(double bytes, double n, double per_domain, const Hardware& hw) {
  if (n <= 1) return 0;
  double gbs = per_domain >= n ? hw.link_gbs(true)
                               : std::min(hw.link_gbs(true), per_domain * hw.link_gbs(false));
  return (n - 1) / n * bytes / (gbs * kPerGiga);
}

/// Members of a group whose ranks are every `stride`-th rank (Megatron orders tp-cp-ep-dp-pp
/// and, for experts, etp-ep-edp-pp) inside one NVLink domain, at most `n`.
double members_per_domain(double n, int64_t stride, const Hardware& hw) {
  double domain = static_cast<double>(std::max(1, hw.nvlink_domain));
  return std::clamp(std::floor(domain / static_cast<double>(std::max<int64_t>(1, stride))), 1.0, n);
}

/// The DP collectives of an interleaved (VP > 1) schedule that the compute does not hide. Megatron
/// syncs each model chunk on its own (megatron/core/pipeline_parallel/schedules.py @d98e8a6,
/// forward_backward_pipelining_with_interleaving): a chunk's gradient reduce-scatter (`rs` / vp)
/// starts after the chunk's last backward (:1445-1455) while the later chunks' backward goes on,
/// `rounds` (the pipeline's depth of micro-batches, at most the micro-batch count) chunk-sized
/// backward passes before the next chunk's, and the last chunk's has nothing left to hide behind;
/// the first two chunks' parameter all-gathers start before the first forward (:1219-1221), each
/// later chunk's when the chunk before it begins its first micro-batch (:1341-1355). A chunk whose
/// collective outlasts its window delays the next. `fwd_mb` / `bwd_mb`: one micro-batch's forward
/// / backward through the whole stage.
double interleaved_dp_exposed_seconds(double rs, double ag, double vp, double rounds, double fwd_mb,
                                      double bwd_mb) {
  double chunk_rs = rs / vp;
  double chunk_ag = ag / vp;
  double rs_window = rounds * bwd_mb / vp;
  double ag_window = rounds * fwd_mb / vp;
  double exposed_rs = chunk_rs + (vp - 1) * std::max(0.0, chunk_rs - rs_window);
  double exposed_ag =
      std::max(0.0, chunk_ag - fwd_mb / vp) + (vp - 1) * std::max(0.0, chunk_ag - ag_window);
  return exposed_rs + exposed_ag;
}

/// Gradient reduce-scatter + parameter all-gather (distributed optimizer) or all-reduce over the
/// DP x CP group (routed experts: the expert DP group); exposed beyond what the last backward /
/// first forward hides.
double dp_exposed_seconds(const ModelDims& m, const Layout& l, const Hardware& hw,
                          const TrainingSetup& setup, bool inside, double fwd_mb, double bwd_mb,
                          double micro_batches, const LayerMix& x) {
  double n = static_cast<double>(l.dp * l.cp);
  if (n <= 1) return 0;
  // Dense parameters reduce over the DP x CP group, routed experts over the expert DP group
  // (tp * cp * dp / (etp * ep) ranks, every etp * ep-th rank).
  StageParams params = stage_params(m, l, x);
  double dense_domain = inside ? n : members_per_domain(n, l.tp, hw);
  int64_t expert_stride = l.expert_tp() * std::max<int64_t>(l.ep, 1);
  double expert_n = static_cast<double>(l.tp) * n / static_cast<double>(expert_stride);
  double expert_domain = members_per_domain(expert_n, expert_stride, hw);
  auto pass = [&](double bytes_per_param) {
    return ring_pass_seconds(params.dense * bytes_per_param, n, dense_domain, hw) +
           ring_pass_seconds(params.experts * bytes_per_param, expert_n, expert_domain, hw);
  };
  // A ring pass takes n - 1 steps: NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc:411-412
  // @5067397, ring) charges the network latency to the steps that cross a node boundary,
  // domains - 1 of them, and the NVLink latency to the rest. The expert group's ring runs beside
  // the dense group's and is not counted again. With overlap_grad_reduce each bucket (max(40M, 1M x
  // DP x CP) parameters, Megatron-LM DistributedDataParallelConfig.bucket_size: "larger DP sizes
  // need larger buckets to ensure collectives do not become latency-bound",
  // megatron/core/distributed/ distributed_data_parallel_config.py @d98e8a6) is a pass; without it,
  // one pass over everything.
  double domains = std::ceil(n / dense_domain);
  double step_latency =
      (n - domains) * hw.link_latency(true) + (domains - 1.0) * hw.link_latency(false);
  double buckets =
      setup.overlap_grad_reduce
          ? std::max(1.0, std::ceil(params.total() /
                                    std::max(kDdpBucketMinParams, kDdpBucketParamsPerRank * n)))
          : 1.0;
  double grad_bytes = setup.grad_reduce_in_fp32 ? kFp32 : kBf16;
  double rs = 0;
  double ag = 0;
  if (setup.distributed_optimizer) {
    rs = pass(grad_bytes) + buckets * step_latency;
    ag = pass(kBf16) + buckets * step_latency;
  } else {
    rs = kAllReduceOverReduceScatter * (pass(grad_bytes) + buckets * step_latency);
  }
  if (!setup.overlap_grad_reduce) return rs + ag;
  if (l.virtual_stages() > 1) {
    return interleaved_dp_exposed_seconds(rs, ag, static_cast<double>(l.virtual_stages()),
                                          std::min(micro_batches, static_cast<double>(l.pp)),
                                          fwd_mb, bwd_mb);
  }
  // The last bucket's reduce-scatter (after the last layer's backward) and the first bucket's
  // all-gather (before the first forward) wait: one layer's bytes, one pass's latency each.
  double layers = std::max(1.0, std::ceil(static_cast<double>(m.num_layers) / l.pp));
  double passes = setup.distributed_optimizer ? 2.0 : kAllReduceOverReduceScatter;
  double last_bucket = (rs + ag - passes * buckets * step_latency) / layers + passes * step_latency;
  return std::max(0.0, rs - bwd_mb) + std::max(0.0, ag - fwd_mb) + last_bucket;
}

/// Why a layout cannot be priced before any placement: sizes, profile, batch divisibility.
std::optional<Error> input_error(const ModelDims& model, const Layout& l, const Hardware& hw,
                                 const TrainingSetup& setup) {
  if (l.tp < 1 || l.cp < 1 || l.pp < 1 || l.dp < 1) {
    return model_error("parallel sizes must be positive: " + l.label());
  }
  // NICs carry traffic only when the job spans more than one NVLink domain.
  bool needs_nic = l.world() > std::max<int64_t>(1, hw.nvlink_domain);
  if (hw.peak_tflops <= 0 || hw.nvlink_gbs <= 0 || (needs_nic && hw.nic_gbs <= 0)) {
    return model_error("the cluster profile lacks peak TFLOP/s or link bandwidths");
  }
  int64_t global_batch = setup.global_batch > 0 ? setup.global_batch : l.dp * model.micro_batch;
  int64_t per_step = l.dp * model.micro_batch;
  if (per_step <= 0 || global_batch % per_step != 0) {
    return model_error("global batch " + std::to_string(global_batch) +
                       " is not divisible by micro_batch_size x DP = " + std::to_string(per_step));
  }
  return std::nullopt;
}

}  // namespace

double expected_slowest(int64_t gpus) {
  if (gpus <= 1) return 0;
  // Blom's plotting position for the largest of n draws, (n - 0.375) / (n + 0.25): an upper
  // tail of 0.625 / (n + 0.25).
  double n = static_cast<double>(gpus);
  return upper_normal_quantile(0.625 / (n + 0.25));
}

Result<Estimate> estimate(const ModelDims& model, const Layout& layout, const Hardware& hw,
                          const TrainingSetup& setup) {
  if (auto bad = input_error(model, layout, hw, setup)) return *bad;
  auto placement = place_links(layout, hw.gpus_per_node, hw.nvlink_domain);
  if (!placement) return placement.error();
  return estimate(model, layout, hw, setup, *placement);
}

Result<Estimate> estimate(const ModelDims& model, const Layout& layout, const Hardware& hw,
                          const TrainingSetup& setup, const LinkPlacement& placement) {
  const Layout& l = layout;
  if (auto bad = input_error(model, l, hw, setup)) return *bad;
  Estimate e;
  e.global_batch = setup.global_batch > 0 ? setup.global_batch : l.dp * model.micro_batch;
  e.micro_batches = e.global_batch / (l.dp * model.micro_batch);

  e.placement = placement;
  LayerMix x = model_detail::layer_mix(model);
  auto work = micro_batch_work(model, l, hw, setup, e.placement, x);
  if (!work) return work.error();
  const MicroBatchWork& w = *work;

  double pp = static_cast<double>(l.pp);
  double m = static_cast<double>(e.micro_batches);
  TimeBreakdown& t = e.time;
  t.gemm_s = m * (w.gemm_fwd + w.gemm_bwd) / pp;
  t.attention_s = m * (w.attn_fwd + w.attn_bwd) / pp;
  t.elementwise_s = m * w.elementwise / pp;
  t.moe_permute_s = m * w.permute / pp;
  t.ep_a2a_s = m * w.ep_a2a / pp;
  t.overhead_s = m * w.overhead / pp;
  double recompute = 0;
  if (setup.recompute == Recompute::kFull) {
    recompute = w.gemm_fwd + w.attn_fwd + w.cp_exposed_fwd + w.elementwise / kFwdBwdOverFwd +
                w.permute / kFwdBwdOverFwd + w.ep_a2a / kDirections;
  }
  if (setup.recompute == Recompute::kSelective) {
    // Megatron's default module is core_attn (recompute_modules unset).
    auto on = [&](const char* module) { return has_module(setup, module); };
    if (setup.recompute_modules.empty() || on("core_attn")) recompute += w.attn_fwd;
    if (on("mlp")) recompute += w.mlp_fwd;
    if (on("moe")) recompute += w.expert_fwd + w.permute / kFwdBwdOverFwd;
    if (on("mla_up_proj")) recompute += w.up_proj_fwd;
    if (on("layernorm")) recompute += w.elementwise * kSelectiveElementwiseShare;
    if (on("moe_act")) recompute += w.elementwise * kSelectiveElementwiseShare;
  }
  t.recompute_s = m * recompute / pp;
  t.tp_comm_s = m * w.tp_comm / pp;
  t.cp_a2a_s = m * w.cp_a2a / pp;
  t.cp_allgather_s = m * w.cp_allgather / pp;
  t.cp_ring_exposed_s = m * w.cp_ring_exposed / pp;
  t.cp_ring_hidden_s = m * w.cp_ring_hidden / pp;
  double micro_batch_s =
      (t.gemm_s + t.attention_s + t.recompute_s + t.tp_comm_s + t.cp_a2a_s + t.cp_allgather_s +
       t.cp_ring_exposed_s + t.elementwise_s + t.moe_permute_s + t.ep_a2a_s + t.overhead_s) /
      m;
  t.pp_bubble_s = (pp - 1) / static_cast<double>(l.virtual_stages()) * micro_batch_s;
  if (l.pp > 1) {
    double bytes = tokens_per_gpu(model, l) * model.hidden * kBf16 / l.tp;
    bool inside = e.placement.pp_inside_domain;
    // Each virtual stage boundary sends the activations forward and the gradients back.
    double sends = kDirections * static_cast<double>(l.virtual_stages());
    t.pp_comm_s = m * sends * (bytes / (hw.link_gbs(inside) * kPerGiga) + hw.link_latency(inside));
  }
  // The windows the DP collectives hide in: one micro-batch's whole forward (the parameter
  // all-gather of overlap_param_gather, waited for layer by layer in the forward pre-hooks) and
  // its whole backward with its recompute (the bucketed reduce-scatter of overlap_grad_reduce,
  // launched as each bucket's gradients are ready in the last micro-batch's backward; NVIDIA/
  // Megatron-LM megatron/core/distributed/distributed_data_parallel.py @0011998: the forward
  // pre-hook's finish_param_sync, the backward post-hook's register_grad_ready, no_sync clearing
  // is_last_microbatch for the other micro-batches).
  double elementwise_fwd = (w.elementwise + w.permute) / kFwdBwdOverFwd;
  double elementwise_bwd = (w.elementwise + w.permute) - elementwise_fwd;
  double fwd_mb = (w.gemm_fwd + w.attn_fwd + elementwise_fwd) / pp;
  double bwd_mb = (w.gemm_bwd + w.attn_bwd + elementwise_bwd + recompute) / pp;
  t.dp_comm_s =
      dp_exposed_seconds(model, l, hw, setup, e.placement.dp_inside_domain, fwd_mb, bwd_mb, m, x);
  double paced = m * micro_batch_s + t.pp_bubble_s + t.pp_comm_s + t.dp_comm_s;
  // Every step waits for the job's slowest GPU: gpu_speed_spread standard deviations of speed,
  // as many as the largest of world() normal draws lies above their mean.
  t.straggler_s = paced * hw.k.gpu_speed_spread * expected_slowest(l.world());
  t.step_s = paced + t.straggler_s;
  t.ring_step_compute_s = w.step_compute;
  t.ring_step_transfer_s = w.step_transfer;
  t.ring_steps = w.ring_steps;

  e.memory = memory_of(model, l, hw, setup, w, e.micro_batches, x);
  e.memory_limit_gib = setup.memory_limit_gib > 0 ? setup.memory_limit_gib : hw.memory_gib;
  e.fits_memory = e.memory_gib() <= e.memory_limit_gib;
  double tokens = static_cast<double>(e.global_batch) * static_cast<double>(model.seq_length);
  e.tokens_per_s_per_gpu = tokens / (t.step_s * static_cast<double>(l.world()));
  return e;
}

}  // namespace hcp
