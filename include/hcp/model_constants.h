// The named efficiency and overhead constants of the cost and memory model, per GPU generation.
// No per-model or per-row corrections exist.
//
// Where the values are:
//   recipes/corpus/fitted_constants.json  the values `plan`, `compare` and `check-log` run: every
//       constant of every generation with its value and source (the corpus rows it was fitted
//       on, or the spec sheet, kernel benchmark or counted figure it was taken from). Written by
//       `hcp-plan accuracy --fit --write`, read by accuracy::shipped_constants().
//   constant_catalog() (src/model/model_constants.cpp)  what each constant means, its unit, its
//       allowed range, whether the fitter may move it, and the two values a fit starts from
//       (ModelConstants::fit_start() and ModelConstants::priors()). These are the fitter's
//       inputs, never what `plan` runs.
// GenerationConstants has no default values: a set of constants always comes from one of those.
//
// The fitter (`hcp-plan accuracy`, src/accuracy) reads and writes the constants by qualified name
// "<generation>.<constant>" ("hopper.gemm_eff_bf16"); the model reads them through
// Hardware::k (model.h), a copy of one generation's GenerationConstants.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/gpu_specs.h"

namespace hcp {

/// The constants of one GPU generation (no default values: see the top of this file). Units in
/// the names: _eff = fraction of the spec peak, _s = seconds, _tokens = tokens, _passes = bytes
/// moved through HBM in units of (tokens x hidden x 2 bytes).
struct GenerationConstants {
  // GEMM rate per precision: achieved / dense peak of that precision (gpu_specs.h).
  double gemm_eff_bf16;
  double gemm_eff_fp8_tensor;  ///< FP8 delayed or current per-tensor scaling.
  double gemm_eff_fp8_block;   ///< FP8 block (sub-channel) scaling.
  double gemm_eff_mxfp8;
  double gemm_eff_nvfp4;
  /// Rows (tokens) of one GEMM at which it runs at half its large-GEMM rate: grouped expert GEMMs
  /// with few tokens per expert.
  double gemm_half_tokens;
  /// Width (expert FFN columns per GPU) at which a routed expert's grouped GEMM runs at half its
  /// wide-GEMM rate: narrow experts pay tile, epilogue and quantisation overheads per column.
  double gemm_half_width;
  // Attention kernels: achieved / dense BF16 peak for long chunks, forward and backward.
  double attn_fwd_eff;
  double attn_bwd_eff;
  double attn_half_tokens;  ///< Query chunk at which attention runs at half rate.
  double attn_fp8_eff;      ///< FP8 attention forward / FP8 peak.
  double attn_call_s;       ///< Fixed cost per attention kernel call (launch, setup).
  double ring_step_s;       ///< Fixed cost per ring step (stream sync, send/recv launch).
  double ring_overlap;      ///< Share of a ring step's transfer attention can hide.
  // Memory-bound work.
  double hbm_eff;  ///< Achieved / peak HBM bandwidth for elementwise kernels.
  /// Norms, residuals, activations, RoPE per token per layer (counted, not fitted).
  double elementwise_passes;
  /// FP8 / MXFP8 / NVFP4 runs: quantising each GEMM's inputs and output gradients (and their
  /// transposed copies for the weight gradient) per token per layer (counted, not fitted).
  double cast_passes;
  double moe_permute_passes;      ///< Router, permute and unpermute per routed token (counted).
  double moe_dropless_imbalance;  ///< Dropless: busiest expert's load / mean load.
  double layer_overhead_s;        ///< Host and launch cost per layer per micro-batch (fwd+bwd).
  double cuda_graph_overhead;     ///< Share of layer_overhead_s left with CUDA graphs.
  /// Share of layer_overhead_s left when the whole iteration is one CUDA graph.
  double cuda_graph_full_overhead;
  // Links: NCCL bus bandwidth / link rate.
  double nvlink_eff;
  double nic_eff;
  /// NCCL all-to-all inside a domain: CP's a2a and a2a+p2p (Ulysses) exchanges.
  double a2a_nvlink_eff;
  /// MoE dispatch and combine inside a domain (Megatron's EP token dispatcher: NCCL all-to-all,
  /// DeepEP or HybridEP), fitted on the MoE rows; kept apart from a2a_nvlink_eff so that what the
  /// dispatcher costs beyond the transfer never prices CP's all-to-all.
  double ep_a2a_nvlink_eff;
  double a2a_nic_eff;   ///< All-to-all across domains.
  double pcie_a2a_eff;  ///< All-to-all over PCIe (no NVLink): share of the PCIe rate.
  double nvlink_latency_s;
  double nic_latency_s;
  double tp_overlap;  ///< Share of TP collectives hidden by tp_comm_overlap.
  double ep_overlap;  ///< Share of EP dispatch / combine hidden by the MoE a2a overlap.
  /// Standard deviation of one GPU's speed over its SKU's mean (manufacturing and power
  /// management): a synchronous step runs at the pace of its slowest GPU.
  double gpu_speed_spread;
  // Hybrid layers.
  double mamba_eff;  ///< Mamba-2 SSD scan / gated delta net kernels: achieved / BF16 peak.
  // Memory not available to tensors.
  double reserved_gib;
  double reserved_fraction;
};

/// What the catalogue says about one constant (the same for every generation).
struct ConstantInfo {
  std::string_view name;  ///< "gemm_eff_bf16"
  double GenerationConstants::*member;
  double min;  ///< Allowed range: every value, shipped or fitted, lies in [min, max].
  double max;
  bool fittable;  ///< False for figures taken from specs or kept out of fitting.
  /// Where the shipped protocol's fits and leave-one-model-out refits start (an earlier joint
  /// fit on the corpus, kept fixed so that `accuracy` repeats its figures). Not what runs.
  double fit_start;
  std::string_view what;  ///< Meaning and unit.
};

/// Return the catalogue of constants, in declaration order.
const std::vector<ConstantInfo>& constant_catalog();

/// The group of generations that share one fitted value of a constant: "all" for constants that
/// describe the software rather than the GPU (passes over memory, shares hidden by overlap or
/// left by CUDA graphs, the Mamba scan kernels' share of peak), "blackwell_family" for Blackwell
/// and Blackwell Ultra's BF16 and FP8 GEMM rates (the same dense BF16 and FP8 peaks per GPU in
/// gpu_specs.cpp; Blackwell Ultra raises the FP4 peak), GEMM shape constants, NVLink 5
/// all-to-all rate and per-layer host cost (one SM architecture and NVLink generation: fitted
/// apart, Blackwell Ultra's all-to-all rate and host cost ended at their bounds), else the
/// generation's own name.
std::string_view fit_group(std::string_view constant, GpuGeneration g);

/// A bound on the ratio of two rate constants of one generation (numerator / denominator), where
/// component measurements bound it more tightly than each constant's own range: the FP8 GEMM
/// rate per unit of FP8 peak against the BF16 rate per unit of BF16 peak.
struct RateRatioBound {
  std::string_view numerator;    ///< e.g. "gemm_eff_fp8_tensor"
  std::string_view denominator;  ///< e.g. "gemm_eff_bf16"
  double min;                    ///< numerator / denominator >= min
  double max;                    ///< numerator / denominator <= max
  std::string_view source;       ///< The component measurement behind the bound.
};

/// Return the ratio bounds the fitter holds every generation's constants to.
const std::vector<RateRatioBound>& rate_ratio_bounds();

/// The constants of every generation with their sources.
class ModelConstants {
 public:
  /// Every constant at its catalogue fit_start, the same for every generation, each with its
  /// source: where `accuracy`'s fits start under the shipped protocol (from_priors false). The
  /// fitter's starting point, not what `plan` runs (accuracy::shipped_constants()).
  static const ModelConstants& fit_start();
  /// The values before any corpus fit, each from a spec, a kernel benchmark or a stated
  /// assumption: where `--from-priors` fits start and what the fitter's penalty pulls toward.
  /// The fitter's starting point, not what `plan` runs.
  static const ModelConstants& priors();

  const GenerationConstants& of(GpuGeneration g) const { return gen_[static_cast<size_t>(g)]; }

  /// Qualified names "<generation>.<constant>", fittable ones only unless `all`.
  std::vector<std::string> names(bool all = false) const;
  /// Return a constant's value by qualified name; nullopt when unknown.
  std::optional<double> get(std::string_view qualified) const;
  /// Set a constant by qualified name and record where the value came from. False when the name
  /// is unknown or the value lies outside the catalogue's bounds.
  bool set(std::string_view qualified, double value, std::string source);
  /// Return the catalogue entry of a qualified name; nullptr when unknown.
  static const ConstantInfo* info(std::string_view qualified);
  /// Return where a constant's value comes from ("" when the name is unknown).
  std::string source(std::string_view qualified) const;
  /// Set one constant for one generation directly (same checks as set()).
  bool set(GpuGeneration g, std::string_view name, double value, std::string source);

 private:
  std::array<GenerationConstants, kGpuGenerations> gen_{};
  std::array<std::vector<std::string>, kGpuGenerations> source_{};
  friend ModelConstants make_fit_start_constants();
  friend ModelConstants make_prior_constants();
};

}  // namespace hcp
