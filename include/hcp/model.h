// The cost and memory model: step time and memory per GPU of one parallel layout, with a per-term
// breakdown. One model serves `plan`, `compare` and `bench --confirm`.
//
// Every figure the model uses lives in `Hardware`: the device's spec figures (cluster profile,
// gpu_specs.h) and one generation's named constants (model_constants.h), each with the place it
// came from; a calibration file replaces measured rates. The formulas are in src/model/ and
// documented in man/hcp-plan.1 (section PLAN).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hcp/calibration.h"
#include "hcp/cluster.h"
#include "hcp/cp_volume.h"
#include "hcp/diagnostic.h"
#include "hcp/gpu_specs.h"
#include "hcp/layout.h"
#include "hcp/model_constants.h"
#include "hcp/recipe.h"

namespace hcp {

/// The model dimensions the cost model reads (Megatron names in comments).
struct ModelDims {
  int64_t num_layers = 0;  ///< num_layers
  int64_t hidden = 0;      ///< hidden_size
  int64_t heads = 0;       ///< num_attention_heads
  int64_t kv_heads = 0;    ///< num_query_groups (= heads when unset)
  int64_t head_dim = 0;    ///< kv_channels (= hidden / heads when unset)
  int64_t ffn = 0;         ///< ffn_hidden_size (dense layers)
  int64_t vocab = 0;  ///< vocab_size padded to a multiple of 128 (make_vocab_size_divisible_by)
  bool gated_mlp = false;       ///< gated_linear_unit (SwiGLU: three FFN matrices instead of two)
  bool tied_embeddings = true;  ///< share_embeddings_and_output_weights
  int64_t num_experts = 0;      ///< num_moe_experts (0: dense)
  int64_t moe_ffn = 0;          ///< moe_ffn_hidden_size
  int64_t moe_topk = 0;         ///< moe_router_topk
  int64_t moe_shared_ffn = 0;   ///< moe_shared_expert_intermediate_size
  int64_t seq_length = 0;       ///< Tokens of one sample (dataset.seq_length / model.seq_length).
  int64_t micro_batch = 1;      ///< train.micro_batch_size
  int64_t window = 0;           ///< Sliding-window size of the windowed layers (0: none).
  std::vector<bool> windowed;   ///< Per layer: true when the layer uses the sliding window.
  // MoE details.
  int64_t moe_dense_layers = 0;    ///< Leading dense layers (moe_layer_freq "first k dense").
  double moe_capacity_factor = 0;  ///< moe_expert_capacity_factor; 0: dropless.
  /// moe_pad_expert_input_to_capacity: every expert computes exactly its capacity.
  bool moe_pad_to_capacity = false;
  /// moe_router_force_load_balancing: the router spreads tokens evenly (a benchmark setting).
  bool moe_force_balance = false;
  int64_t mtp_layers = 0;  ///< mtp_num_layers (DeepSeek-V3 multi-token prediction).
  // Multi-latent attention (multi_latent_attention: true).
  bool mla = false;
  int64_t q_lora_rank = 0;   ///< 0: queries projected directly.
  int64_t kv_lora_rank = 0;  ///< Latent KV width.
  int64_t qk_head_dim = 0;   ///< Non-rotary part of the q/k head.
  int64_t qk_pos_dim = 0;    ///< qk_pos_emb_head_dim (rotary part).
  int64_t v_head_dim = 0;
  /// Hybrid models: Megatron's hybrid_override_pattern, one character per layer: 'M' Mamba-2,
  /// '*' attention, '-' dense MLP, 'E' MoE, 'G' gated delta net. Empty: every layer is attention +
  /// MLP (or MoE). With a pattern, num_layers is the pattern's length.
  std::string layer_pattern;
  int64_t mamba_heads = 0;        ///< mamba_num_heads
  int64_t mamba_head_dim = 64;    ///< mamba_head_dim
  int64_t mamba_state_dim = 128;  ///< mamba_state_dim
  int64_t mamba_groups = 8;       ///< mamba_num_groups

  /// Return the number of sliding-window layers (0 when the model has none).
  int64_t windowed_layers() const;
  /// Return the mean parameter count per layer (all layers incl. MTP blocks / num_layers).
  double layer_params() const;
  /// Return the mean parameters one token activates per layer (MoE: top-k experts + shared).
  double layer_active_params() const;
  /// Return the embedding (+ output layer when untied) parameter count.
  double embedding_params() const;
};

/// Read the model dimensions from a recipe (model.*, dataset.seq_length, train.micro_batch_size).
/// Error when a required size is missing or not positive.
Result<ModelDims> model_dims_of(const Recipe& recipe);

/// The model uses Transformer Engine's comm types as cp_volume.h defines them.
using CommType = CpCommType;

enum class Recompute { kNone, kSelective, kFull };

/// GEMM precision of the linear layers (Bridge's mixed_precision recipes).
enum class Precision { kBf16, kFp8Delayed, kFp8Current, kFp8Block, kMxfp8, kNvfp4 };
/// Return "bf16", "fp8_delayed", "fp8_current", "fp8_block", "mxfp8" or "nvfp4".
const char* precision_name(Precision p);
/// Parse a precision_name(), a Bridge mixed_precision recipe name
/// ("bf16_with_fp8_current_scaling_mixed", "bf16_with_mxfp8_mixed", ...) or a performance-summary
/// label ("FP8", "FP8-CS", "FP8-MX", "MXFP8", "NVFP4", "BF16"); nullopt when unknown.
std::optional<Precision> parse_precision(std::string_view text);
/// Return "none", "selective" or "full".
const char* recompute_name(Recompute r);
/// Parse "none", "selective" or "full"; nullopt when unknown.
std::optional<Recompute> parse_recompute(std::string_view text);

/// The achieved rates of one GPU and its links, with where each figure came from.
struct Hardware {
  std::string gpu_name;
  GpuGeneration generation = GpuGeneration::kHopper;
  GenerationConstants k{};  ///< The generation's named constants (model_constants.h).
  int gpus_per_node = 8;
  int nvlink_domain = 8;
  double peak_tflops = 0;        ///< Dense BF16 peak per GPU (profile).
  double fp8_tflops = 0;         ///< Dense FP8 peak (0: no FP8 path; BF16 rate used).
  double fp4_tflops = 0;         ///< Dense FP4 peak (0: no FP4 path; FP8 rate used).
  double hbm_gbs = 0;            ///< HBM bandwidth, GB/s.
  double pcie_gbs = 0;           ///< PCIe GB/s per GPU per direction.
  bool has_nvlink = true;        ///< False on PCIe-only boxes (a2a over PCIe).
  double gemm_efficiency = 0;    ///< Achieved / peak for large BF16 GEMMs (= k.gemm_eff_bf16).
  double attn_efficiency = 0;    ///< Achieved / peak for long-chunk flash attention (forward).
  double attn_half_tokens = 0;   ///< Query chunk length at which attention runs at half its rate.
  double nvlink_gbs = 0;         ///< Ring send/recv and all-gather busbw per GPU inside a domain.
  double nvlink_a2a_gbs = 0;     ///< All-to-all busbw per GPU inside a domain (CP a2a).
  double ep_nvlink_a2a_gbs = 0;  ///< MoE dispatch / combine busbw per GPU inside a domain.
  double nic_gbs = 0;            ///< Ring send/recv and all-gather busbw per GPU across domains.
  double nic_a2a_gbs = 0;        ///< All-to-all busbw per GPU across domains.
  double nvlink_latency_s = 0;   ///< Per-message latency inside the domain.
  double nic_latency_s = 0;      ///< Per-message latency across domains.
  double memory_gib = 0;         ///< HBM per GPU.
  double reserved_gib = 0;       ///< CUDA context, NCCL buffers, allocator fragmentation.
  std::vector<std::pair<std::string, std::string>> sources;  ///< Figure -> where it came from.
  /// One sentence per profile figure that was 0 or missing and was taken from elsewhere: which
  /// field, the figure used and where it came from (plan and compare announce them).
  std::vector<std::string> substituted;
  /// The same for fp8_dense_tflops: announced only where a run computes in FP8
  /// (substitutions_used), since a BF16 run never reads it. Empty when the profile gave it.
  std::string fp8_substituted;

  /// Return the achieved GEMM FLOP/s.
  double gemm_flops() const { return peak_tflops * 1e12 * gemm_efficiency; }
  /// Return the achieved forward attention FLOP/s for query chunks of `tokens` tokens.
  double attn_flops(double tokens) const;
  /// Return the ring / all-gather GB/s: NVLink when `inside_domain`, else the NIC share per GPU.
  double link_gbs(bool inside_domain) const { return inside_domain ? nvlink_gbs : nic_gbs; }
  /// Return the all-to-all GB/s of a link (CP's a2a and a2a+p2p exchanges).
  double a2a_gbs(bool inside_domain) const { return inside_domain ? nvlink_a2a_gbs : nic_a2a_gbs; }
  /// Return the MoE dispatch / combine GB/s of a link: across domains the NIC bounds it as it
  /// bounds any all-to-all.
  double ep_a2a_gbs(bool inside_domain) const {
    return inside_domain ? ep_nvlink_a2a_gbs : nic_a2a_gbs;
  }
  /// Return the per-message latency of a link.
  double link_latency(bool inside_domain) const {
    return inside_domain ? nvlink_latency_s : nic_latency_s;
  }
};

/// Build the hardware description from a cluster profile and the named constants of the
/// profile's GPU generation. There is no default: commands pass accuracy::shipped_constants()
/// (the values in recipes/corpus/fitted_constants.json), the fitter its trial values, tests their
/// named test values. Figures the profile lacks (FP8/FP4 peaks, HBM bandwidth) come from the GPU
/// spec table by device name.
Hardware hardware_from_profile(const ClusterProfile& profile, const ModelConstants& constants);
/// Return the GPU generation of a profile as hardware_from_profile() decides it (compute
/// capability, else the spec table by device name, else Hopper).
GpuGeneration gpu_generation(const ClusterProfile& profile);

/// Replace the figures a calibration file measured: TE's attention TFLOP/s (check-log), intra- and
/// inter-node a2a and send/recv busbw (`hcp-plan bench`). `name` (the file) is recorded in
/// sources. A calibration measured on another GPU model than the plan's adds a sentence saying
/// so to hw.substituted (plan and compare print it).
void apply_calibration(Hardware& hw, const Calibration& cal, const std::string& name);

/// "calibration NAME was measured on DEVICE, not on the plan's GPU": when the calibration names
/// a device whose GPU model differs from hw.gpu_name's (both in the spec table); nullopt else.
std::optional<std::string> calibration_device_mismatch(const Hardware& hw, const Calibration& cal,
                                                       const std::string& name);

/// Training settings that are not part of the layout.
struct TrainingSetup {
  int64_t global_batch = 0;  ///< Sequences per step (0: one micro-batch per DP replica).
  Recompute recompute = Recompute::kNone;
  bool distributed_optimizer = true;       ///< ddp.use_distributed_optimizer
  bool grad_reduce_in_fp32 = true;         ///< ddp.grad_reduce_in_fp32 (fp32 main grads)
  bool overlap_grad_reduce = true;         ///< ddp.overlap_grad_reduce
  bool tp_comm_overlap = false;            ///< model.tp_comm_overlap
  double memory_limit_gib = 0;             ///< 0: the GPU's memory.
  Precision precision = Precision::kBf16;  ///< GEMM precision of the linear layers.
  bool fp8_attention = false;              ///< fp8_dot_product_attention (attention in FP8).
  /// Selective recompute modules (recompute_modules: core_attn, mlp, moe_act, layernorm, ...).
  std::vector<std::string> recompute_modules;
  int64_t recompute_layers = 0;           ///< recompute_num_layers (full, per stage; 0: all).
  int64_t activation_offload_layers = 0;  ///< cpu_offloading_num_layers (activations on host)
  /// offload_modules under fine_grained_activation_offloading: the modules whose saved inputs
  /// wait on the host (attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm, expert_fc1,
  /// moe_act, fused_group_mlp).
  std::vector<std::string> offload_modules;
  /// Bytes per parameter of the optimizer's main params and Adam moments (0: fp32 each, 12).
  /// NeMo 1's distributed_fused_adam keeps 10 (16-bit remainders of the bf16 params, fp32
  /// moments) or, with optim.dtype bf16, 4 (bf16 moments, no master copy).
  double optimizer_bytes_per_param = 0;
  bool optimizer_cpu_offload = false;     ///< optimizer_cpu_offload
  double optimizer_offload_fraction = 1;  ///< optimizer_offload_fraction
  bool fsdp = false;                      ///< Megatron-FSDP (use_megatron_fsdp): shards all states.
  bool cuda_graphs = false;               ///< cuda_graph_impl / enable_cuda_graph
  /// The whole training iteration is one CUDA graph (Bridge is_full_iteration_cuda_graph).
  bool cuda_graph_full_iteration = false;
  /// cuda_graph_scope names only some of a layer's modules (attn, moe_router, moe_preprocess,
  /// mamba): the rest of the layer (the routed experts' dispatch and grouped GEMMs) launches
  /// eagerly, and the layer's host cost is priced as without graphs.
  bool cuda_graph_partial_scope = false;
  /// comm_overlap.overlap_moe_expert_parallel_comm: EP dispatch / combine overlapped with the
  /// compute of the other micro-batch (Bridge perf flag moe_a2a_overlap).
  bool moe_a2a_overlap = false;
  bool moe_deepep = false;  ///< moe_token_dispatcher_type flex (DeepEP / HybridEP)
};

/// Read the training settings of a recipe (train.*, ddp.*, model.recompute_granularity, ...).
TrainingSetup training_setup_of(const Recipe& recipe);

/// True when a TE / local list of captured modules (cuda_graph_scope, renamed cuda_graph_modules)
/// covers only part of a layer: it is not empty (empty captures the whole layer, and "full" is
/// its deprecated spelling: Megatron-LM megatron/core/transformer/transformer_config.py
/// cuda_graph_modules, enums.py CudaGraphModule @d98e8a6) and names neither "full" nor
/// "full_iteration", nor both "attn" and one of "mlp" / "moe".
bool cuda_graph_scope_is_partial(const std::vector<std::string>& scope);

/// Set a run's CUDA-graph settings (cuda_graphs, cuda_graph_full_iteration,
/// cuda_graph_partial_scope) from cuda_graph_impl ("none" or empty: off), the deprecated
/// enable_cuda_graph flag and the captured modules. Full-iteration capture as Bridge decides it
/// (src/megatron/bridge/utils/cuda_graph.py:118-126, is_full_iteration_cuda_graph, v0.5.1
/// @5cb3444): impl "full_iteration", or impl "local" with "full_iteration" among the modules.
void set_cuda_graphs(TrainingSetup& setup, std::string_view impl, bool enabled,
                     const std::vector<std::string>& scope);

/// The substitution sentences a run with `setup` depends on: Hardware::substituted, then the FP8
/// peak's (Hardware::fp8_substituted) when the run computes in FP8 (its GEMMs or its attention).
std::vector<std::string> substitutions_used(const Hardware& hw, const TrainingSetup& setup);

/// Where each group's traffic goes ("inside" = stays inside one NVLink domain).
struct LinkPlacement {
  bool tp_inside_domain = true;       ///< TP group.
  bool cp_inside_domain = true;       ///< Whole CP group (p2p ring, all_gather, a2a).
  double cp_offdomain_fraction = 0;   ///< Share of a rank's CP peers outside its domain.
  bool hcp_a2a_inside_domain = true;  ///< a2a+p2p level 0.
  double hcp_a2a_offdomain_fraction = 0;
  bool hcp_ring_inside_domain = true;  ///< a2a+p2p level 1 (every ring hop).
  bool dp_inside_domain = true;        ///< The DP×CP gradient group.
  bool pp_inside_domain = true;        ///< Pipeline neighbours.
};

/// Place the groups of a layout (Megatron order tp-cp-ep-dp-pp) on nodes of `gpus_per_node` GPUs
/// and NVLink domains of `nvlink_domain` GPUs, with layout.h's closed forms. Error when the
/// layout is not a valid Megatron grid.
Result<LinkPlacement> place_links(const Layout& layout, int gpus_per_node, int nvlink_domain);

/// The group options of a planner layout, as place_links() lays it out: its own world, TP, CP,
/// PP, EP, ETP (below 1: follows TP), VPP (only > 1), Layout::hcp_sizes() and Megatron's default
/// rank order.
GroupOptions group_options_of(const Layout& layout);

/// How many standard deviations the slowest of `gpus` GPUs' speeds lies beyond their mean (the
/// expected largest of `gpus` standard normal draws, Blom's approximation: within 5 % from 2
/// GPUs on, 1 % from 100); 0 for one GPU.
double expected_slowest(int64_t gpus);

/// Step time per term (seconds per optimizer step on one GPU; terms add up to `step_s`).
struct TimeBreakdown {
  double gemm_s = 0;             ///< Linear layers and logits, forward + backward.
  double attention_s = 0;        ///< Attention kernels (compute only), forward + backward.
  double recompute_s = 0;        ///< Extra forward work of activation recomputation.
  double tp_comm_s = 0;          ///< Exposed TP/SP all-gather + reduce-scatter.
  double cp_a2a_s = 0;           ///< a2a (and the a2a level of a2a+p2p): always exposed.
  double cp_allgather_s = 0;     ///< all_gather / reduce-scatter of KV: exposed.
  double cp_ring_exposed_s = 0;  ///< Ring transfer not hidden behind attention.
  double cp_ring_hidden_s = 0;   ///< Ring transfer hidden behind attention (not in step_s).
  double dp_comm_s = 0;          ///< Exposed gradient reduce-scatter / parameter all-gather.
  double pp_bubble_s = 0;        ///< Pipeline fill and drain.
  double pp_comm_s = 0;          ///< Pipeline send/recv.
  double elementwise_s = 0;      ///< Memory-bound kernels: norms, residuals, activations.
  double moe_permute_s = 0;      ///< MoE router, permute and unpermute.
  double ep_a2a_s = 0;           ///< MoE token dispatch + combine all-to-all over EP.
  double overhead_s = 0;         ///< Fixed launch / host cost per layer and micro-batch.
  /// The slowest of the job's GPUs: every step waits for it (gpu_speed_spread).
  double straggler_s = 0;
  double step_s = 0;  ///< Total.
  /// Ring detail for the reasons: one forward step of the full-attention layers.
  double ring_step_compute_s = 0;
  double ring_step_transfer_s = 0;
  int64_t ring_steps = 0;
};

/// Memory per GPU per term, bytes (the most loaded pipeline stage).
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double cp_buffers = 0;  ///< Transient CP buffers of one layer (a2a head slice, ring KV).
  double logits = 0;
  double reserved = 0;  ///< Context, NCCL, fragmentation (Hardware::reserved_gib).
  double total = 0;
};

/// The band of the memory model: what the allocator holds (the total less the reserved figure)
/// is taken as right within this fraction either way (check-log's default --memory-tolerance,
/// validate's CP115).
inline constexpr double kMemoryBand = 0.2;

/// The estimate of one layout.
struct Estimate {
  TimeBreakdown time;
  MemoryBreakdown memory;
  LinkPlacement placement;
  int64_t micro_batches = 1;  ///< Per DP replica per step.
  int64_t global_batch = 0;   ///< Sequences per step used for the estimate.
  double tokens_per_s_per_gpu = 0;
  double memory_limit_gib = 0;
  bool fits_memory = false;
  /// Return total memory in GiB.
  double memory_gib() const { return memory.total / (1024.0 * 1024.0 * 1024.0); }
};

/// Estimate one layout. Error when the layout cannot run the model at all (sizes not dividing).
Result<Estimate> estimate(const ModelDims& model, const Layout& layout, const Hardware& hw,
                          const TrainingSetup& setup);

/// The same with the layout's link placement already known (place_links() of this layout or of
/// one that differs only in EP, ETP or VPP, which do not move the TP / CP / DP / PP groups): the
/// planner prices the EP / VPP variants of one layout with one placement.
Result<Estimate> estimate(const ModelDims& model, const Layout& layout, const Hardware& hw,
                          const TrainingSetup& setup, const LinkPlacement& placement);

}  // namespace hcp
