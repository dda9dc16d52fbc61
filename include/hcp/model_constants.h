// Every efficiency and overhead constant of the cost and memory model, per GPU generation, in one
// place, each named with where its value comes from (a spec sheet, a published kernel benchmark,
// or "fitted on measured_runs.json rows ..."). No per-model or per-row corrections exist.
//
// The fitter (`hcp-plan accuracy`, src/accuracy) reads and writes them by qualified name
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

/// The constants of one GPU generation. Units in the names: _eff = fraction of the spec peak,
/// _s = seconds, _tokens = tokens, _passes = bytes moved through HBM in units of (tokens x hidden
/// x 2 bytes).
struct GenerationConstants {
  // GEMM rate per precision: achieved / dense peak of that precision (gpu_specs.h).
  double gemm_eff_bf16 = 0.294;
  double gemm_eff_fp8_tensor = 0.561;  ///< FP8 delayed or current per-tensor scaling.
  double gemm_eff_fp8_block = 0.45;    ///< FP8 block (sub-channel) scaling.
  double gemm_eff_mxfp8 = 0.396;
  double gemm_eff_nvfp4 = 0.336;
  /// Rows (tokens) of one GEMM at which it runs at half its large-GEMM rate: grouped expert GEMMs
  /// with few tokens per expert.
  double gemm_half_tokens = 154;
  /// Width (expert FFN columns per GPU) at which a routed expert's grouped GEMM runs at half its
  /// wide-GEMM rate: narrow experts pay tile, epilogue and quantisation overheads per column.
  double gemm_half_width = 0;
  // Attention kernels: achieved / dense BF16 peak for long chunks, forward and backward.
  double attn_fwd_eff = 0.234;
  double attn_bwd_eff = 0.564;
  double attn_half_tokens = 230;  ///< Query chunk at which attention runs at half rate.
  double attn_fp8_eff = 0.45;     ///< FP8 attention forward / FP8 peak.
  double attn_call_s = 20e-6;     ///< Fixed cost per attention kernel call (launch, setup).
  double ring_step_s = 30e-6;     ///< Fixed cost per ring step (stream sync, send/recv launch).
  double ring_overlap = 1.0;      ///< Share of a ring step's transfer attention can hide.
  // Memory-bound work.
  double hbm_eff = 0.75;  ///< Achieved / peak HBM bandwidth for elementwise kernels.
  /// Norms, residuals, activations, RoPE per token per layer (counted, not fitted).
  double elementwise_passes = 55;
  /// FP8 / MXFP8 / NVFP4 runs: quantising each GEMM's inputs and output gradients (and their
  /// transposed copies for the weight gradient) per token per layer (counted, not fitted).
  double cast_passes = 30;
  double moe_permute_passes = 12;  ///< Router, permute and unpermute per routed token (counted).
  double moe_dropless_imbalance = 1.15;  ///< Dropless: busiest expert's load / mean load.
  double layer_overhead_s = 52.5e-6;  ///< Host and launch cost per layer per micro-batch (fwd+bwd).
  double cuda_graph_overhead = 0.3;   ///< Share of layer_overhead_s left with CUDA graphs.
  /// Share of layer_overhead_s left when the whole iteration is one CUDA graph.
  double cuda_graph_full_overhead = 0.1;
  // Links: NCCL bus bandwidth / link rate.
  double nvlink_eff = 0.82;
  double nic_eff = 0.96;
  double a2a_nvlink_eff = 0.95;  ///< All-to-all (CP a2a, EP dispatch/combine) inside a domain.
  double a2a_nic_eff = 0.80;     ///< All-to-all across domains.
  double pcie_a2a_eff = 0.35;    ///< All-to-all over PCIe (no NVLink): share of the PCIe rate.
  double nvlink_latency_s = 5e-6;
  double nic_latency_s = 15e-6;
  double tp_overlap = 0.8;  ///< Share of TP collectives hidden by tp_comm_overlap.
  double ep_overlap = 0.8;  ///< Share of EP dispatch / combine hidden by the MoE a2a overlap.
  // Hybrid layers.
  double mamba_eff = 0.05;  ///< Mamba-2 SSD scan / gated delta net kernels: achieved / BF16 peak.
  // Memory not available to tensors.
  double reserved_gib = 2.0;
  double reserved_fraction = 0.05;
};

/// What the catalogue says about one constant (the same for every generation).
struct ConstantInfo {
  std::string_view name;  ///< "gemm_eff_bf16"
  double GenerationConstants::*member;
  double min;  ///< Bounds a fitter must respect.
  double max;
  bool fittable;  ///< False for figures taken from specs or kept out of fitting.
  std::string_view what;
};

/// Return the catalogue of constants, in declaration order.
const std::vector<ConstantInfo>& constant_catalog();

/// The group of generations that share one fitted value of a constant: "all" for constants that
/// describe the software rather than the GPU (passes over memory, shares hidden by overlap or
/// left by CUDA graphs), "blackwell_family" for the BF16 and FP8 GEMM rates of Blackwell and
/// Blackwell Ultra (the same dense BF16 and FP8 peaks per GPU in gpu_specs.cpp; Blackwell Ultra
/// raises the FP4 peak), else the generation's own name.
std::string_view fit_group(std::string_view constant, GpuGeneration g);

/// The constants of every generation with their sources.
class ModelConstants {
 public:
  /// The shipped values (src/model/model_constants.cpp), each with its source.
  static const ModelConstants& defaults();
  /// The values before any corpus fit, each from a spec, a kernel benchmark or a stated
  /// assumption: where the fitter starts and what its penalty pulls toward.
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
  friend ModelConstants make_default_constants();
  friend ModelConstants make_prior_constants();
};

}  // namespace hcp
