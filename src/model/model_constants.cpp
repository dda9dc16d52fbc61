// The catalogue of the model's named constants (include/hcp/model_constants.h): meaning, unit,
// allowed range, whether the fitter may move it, and the two values a fit starts from, each with
// its source. The values `plan` runs are not here: they are recipes/corpus/fitted_constants.json
// (every constant of every generation), applied by accuracy::shipped_constants().
#include "hcp/model_constants.h"

#include <cstddef>

namespace hcp {

const std::vector<ConstantInfo>& constant_catalog() {
  using K = GenerationConstants;
  static const std::vector<ConstantInfo> catalog = {
      {"gemm_eff_bf16", &K::gemm_eff_bf16, 0.2, 0.95, true, 0.294,
       "BF16 GEMM rate / BF16 dense peak"},
      // The FP8 fit_start values sit at 0.85-0.92 of the BF16 one (rate_ratio_bounds); the
      // earlier joint fit had them at 1.3-1.9 of it, an FP8 / BF16 rate of 2.7-3.8x.
      {"gemm_eff_fp8_tensor", &K::gemm_eff_fp8_tensor, 0.15, 0.95, true, 0.27,
       "FP8 (delayed / current tensor scaling) GEMM rate / FP8 dense peak"},
      {"gemm_eff_fp8_block", &K::gemm_eff_fp8_block, 0.15, 0.95, true, 0.25,
       "FP8 block-scaling GEMM rate / FP8 dense peak"},
      {"gemm_eff_mxfp8", &K::gemm_eff_mxfp8, 0.15, 0.95, true, 0.25,
       "MXFP8 GEMM rate / FP8 dense peak"},
      {"gemm_eff_nvfp4", &K::gemm_eff_nvfp4, 0.1, 0.95, true, 0.336,
       "NVFP4 GEMM rate / FP4 dense peak"},
      {"gemm_half_tokens", &K::gemm_half_tokens, 0, 8192, true, 154,
       "GEMM rows (tokens per expert) at which a GEMM runs at half its large-GEMM rate"},
      {"gemm_half_width", &K::gemm_half_width, 0, 8192, true, 0,
       "routed expert FFN width per GPU at which its grouped GEMM runs at half its wide rate"},
      // Attention rates, BF16 and FP8, are the kernel measurements (cuDNN fused attention on H100,
      // prior_source) and are not fitted (fitted, Blackwell's FP8 rate ended at its bound): in the
      // throughput corpus attention is a small share of the step at 4K-8K tokens, and an earlier
      // corpus fit (0.234 forward, 0.564 backward: a backward faster than its forward) let them
      // absorb whatever else those rows differ in.
      {"attn_fwd_eff", &K::attn_fwd_eff, 0.1, 0.95, false, 0.545,
       "attention forward rate on long chunks / BF16 dense peak"},
      {"attn_bwd_eff", &K::attn_bwd_eff, 0.1, 0.95, false, 0.47,
       "attention backward rate on long chunks / BF16 dense peak"},
      {"attn_half_tokens", &K::attn_half_tokens, 0, 16384, false, 230,
       "query chunk tokens at which attention runs at half rate"},
      {"attn_fp8_eff", &K::attn_fp8_eff, 0.1, 0.95, false, 0.45,
       "FP8 attention rate / FP8 dense peak"},
      {"attn_call_s", &K::attn_call_s, 0, 1e-3, true, 20e-6,
       "fixed seconds per attention kernel call"},
      {"ring_step_s", &K::ring_step_s, 0, 1e-3, true, 30e-6, "fixed seconds per CP ring step"},
      {"ring_overlap", &K::ring_overlap, 0, 1, true, 1.0,
       "share of ring transfer attention can hide"},
      {"hbm_eff", &K::hbm_eff, 0.3, 0.95, false, 0.75, "elementwise kernels' HBM rate / peak"},
      {"elementwise_passes", &K::elementwise_passes, 0, 200, false, 55,
       "HBM bytes of norms, residuals, activations per token per layer, in tokens x hidden x 2"},
      {"cast_passes", &K::cast_passes, 0, 200, false, 30,
       "HBM bytes of FP8/FP4 casts of GEMM inputs and gradients per token per layer, in tokens x "
       "hidden x 2"},
      {"moe_permute_passes", &K::moe_permute_passes, 0, 100, false, 12,
       "HBM bytes of router, permute, unpermute per routed token, in hidden x 2"},
      {"moe_dropless_imbalance", &K::moe_dropless_imbalance, 1, 3, true, 1.15,
       "dropless MoE: busiest expert's tokens / mean (token drop caps it at the capacity)"},
      {"layer_overhead_s", &K::layer_overhead_s, 0, 5e-3, true, 52.5e-6,
       "host and launch seconds per layer per micro-batch, forward + backward"},
      {"cuda_graph_overhead", &K::cuda_graph_overhead, 0, 1, true, 0.3,
       "share of layer_overhead_s left when CUDA graphs are on"},
      {"cuda_graph_full_overhead", &K::cuda_graph_full_overhead, 0, 1, true, 0.1,
       "share of layer_overhead_s left when the whole iteration is one CUDA graph"},
      {"nvlink_eff", &K::nvlink_eff, 0.3, 1, false, 0.82, "NCCL busbw / NVLink rate"},
      {"nic_eff", &K::nic_eff, 0.3, 1, false, 0.96, "NCCL busbw / NIC rate"},
      // Not fitted: no corpus row runs CP's a2a or a2a+p2p, so a fit could only move it through
      // the MoE rows' EP dispatch, which has its own constant. When one constant priced both,
      // the fit put Hopper's at 0.25 of NVLink: a third of what NCCL's all-to-all measures, and
      // every H100 plan charged Ulysses that (issue 27).
      {"a2a_nvlink_eff", &K::a2a_nvlink_eff, 0.1, 1, false, 0.82,
       "NCCL all-to-all busbw / NVLink rate (CP a2a and a2a+p2p)"},
      {"ep_a2a_nvlink_eff", &K::ep_a2a_nvlink_eff, 0.1, 1, true, 0.95,
       "MoE dispatch + combine busbw / NVLink rate (Megatron's EP token dispatcher)"},
      // Across domains the NIC, not the kernel, bounds an all-to-all: NCCL reaches 0.96 of a
      // 400G CX-7 and DeepEP's RDMA dispatch / combine 0.86-1.16 of it. Not fitted: fitted on
      // the corpus it ended at its bound (1.0) in every variant of issue 27's fits.
      {"a2a_nic_eff", &K::a2a_nic_eff, 0.1, 1, false, 0.96, "all-to-all busbw / NIC rate"},
      {"pcie_a2a_eff", &K::pcie_a2a_eff, 0.05, 1, false, 0.35, "all-to-all busbw / PCIe rate"},
      {"nvlink_latency_s", &K::nvlink_latency_s, 0, 1e-4, false, 5e-6,
       "per-message latency inside an NVLink domain"},
      {"nic_latency_s", &K::nic_latency_s, 0, 1e-3, false, 15e-6,
       "per-message latency across domains"},
      {"tp_overlap", &K::tp_overlap, 0, 1, true, 0.8,
       "share of TP collectives tp_comm_overlap hides"},
      // Not fitted: the term is capped by the compute beside it; a fitted share ended at 1.0.
      {"ep_overlap", &K::ep_overlap, 0, 1, false, 1.0,
       "share of EP dispatch / combine overlap_moe_expert_parallel_comm hides"},
      // Not fitted: no two corpus rows differ in GPU count alone, so the corpus cannot see it.
      {"gpu_speed_spread", &K::gpu_speed_spread, 0, 0.05, false, 0.01,
       "standard deviation of one GPU's speed / its SKU's mean speed"},
      {"mamba_eff", &K::mamba_eff, 0.02, 0.95, true, 0.05,
       "Mamba-2 SSD / gated delta net scan rate / BF16 dense peak"},
      {"reserved_gib", &K::reserved_gib, 0, 16, false, 2.0, "GiB not available to tensors (fixed)"},
      {"reserved_fraction", &K::reserved_fraction, 0, 0.3, false, 0.05,
       "share of device memory not available to tensors"},
  };
  return catalog;
}

const std::vector<RateRatioBound>& rate_ratio_bounds() {
  // The FP8 dense peak is twice the BF16 one on Hopper and Blackwell (gpu_specs.cpp), so an
  // achieved FP8 / BF16 GEMM rate ratio of 1.5-1.9x on large GEMMs (cuBLAS 12 on H100: NVIDIA,
  // "New cuBLAS 12.0 Features and Matrix Multiplication Performance on NVIDIA Hopper GPUs",
  // developer.nvidia.com blog; issue 27) is an efficiency ratio of 0.75-0.95. Unbounded, the
  // fit let the BF16 rate absorb whatever else the BF16 rows differ in (Hopper 0.43 vs 0.68:
  // 3.2x).
  static constexpr std::string_view kCublas =
      "cuBLAS FP8 / BF16 GEMM rate 1.5-1.9x on large GEMMs (NVIDIA cuBLAS 12.0 Hopper blog), "
      "over a 2x peak ratio";
  static const std::vector<RateRatioBound> bounds = {
      {"gemm_eff_fp8_tensor", "gemm_eff_bf16", 0.75, 0.95, kCublas},
      {"gemm_eff_fp8_block", "gemm_eff_bf16", 0.75, 0.95, kCublas},
      {"gemm_eff_mxfp8", "gemm_eff_bf16", 0.75, 0.95, kCublas},
  };
  return bounds;
}

std::string_view fit_group(std::string_view constant, GpuGeneration g) {
  for (const char* n : {"elementwise_passes", "cast_passes", "moe_permute_passes",
                        "moe_dropless_imbalance", "cuda_graph_overhead", "cuda_graph_full_overhead",
                        "tp_overlap", "ep_overlap", "ring_overlap", "mamba_eff"})
    if (constant == n) return "all";
  bool blackwell = g == GpuGeneration::kBlackwell || g == GpuGeneration::kBlackwellUltra;
  for (const char* n :
       {"gemm_eff_bf16", "gemm_eff_fp8_tensor", "gemm_eff_fp8_block", "gemm_eff_mxfp8",
        "gemm_half_tokens", "gemm_half_width", "ep_a2a_nvlink_eff", "layer_overhead_s"})
    if (blackwell && constant == n) return "blackwell_family";
  return generation_name(g);
}

namespace {

const ConstantInfo* info_of(std::string_view name) {
  for (const ConstantInfo& c : constant_catalog())
    if (c.name == name) return &c;
  return nullptr;
}

std::size_t index_of(std::string_view name) {
  const auto& cat = constant_catalog();
  for (std::size_t i = 0; i < cat.size(); ++i)
    if (cat[i].name == name) return i;
  return cat.size();
}

/// The source of a fit_start value: the corpus fit behind the values marked fitted (an earlier
/// joint fit; the shipped fit, fitted_constants.json, names its own rows), else the prior's.
constexpr const char* kCorpusFit =
    "fitted on measured_runs.json: the 157 priced rows of the validation corpus (Bridge "
    "performance summary 25.09-26.08 and NeMo long-sequence CP rows; recipes/corpus), all GPU "
    "generations jointly, coordinate descent on mean |log(predicted / measured)| (in-sample)";

bool fitted_on_corpus(std::string_view name) {
  for (const char* f : {"gemm_eff_bf16", "gemm_eff_fp8_tensor", "gemm_eff_mxfp8", "gemm_eff_nvfp4",
                        "gemm_half_tokens", "layer_overhead_s", "mamba_eff", "ep_a2a_nvlink_eff"})
    if (name == f) return true;
  return false;
}

/// The value a constant had before any corpus fit: a spec, a kernel benchmark or a stated
/// assumption (prior_source). The fitter starts from these and is pulled back toward them.
struct PriorValue {
  std::string_view name;
  double value;
};
constexpr PriorValue kPriorValues[] = {
    {"gemm_eff_bf16", 0.70},      {"gemm_eff_fp8_tensor", 0.60}, {"gemm_eff_mxfp8", 0.60},
    {"gemm_eff_fp8_block", 0.56}, {"gemm_eff_nvfp4", 0.40},      {"gemm_half_tokens", 256},
    {"attn_fwd_eff", 0.545},      {"attn_bwd_eff", 0.47},        {"elementwise_passes", 55},
    {"cast_passes", 30},          {"moe_permute_passes", 12},    {"layer_overhead_s", 150e-6},
    {"mamba_eff", 0.25},          {"a2a_nvlink_eff", 0.82},      {"ep_a2a_nvlink_eff", 0.82},
};

const char* prior_source(std::string_view name) {
  if (name == "gemm_eff_bf16")
    return "assumption: 70 % of dense peak, the class cuBLAS reaches for large bf16 GEMMs";
  if (name == "gemm_eff_fp8_tensor" || name == "gemm_eff_mxfp8")
    return "cuBLAS FP8 GEMMs run 1.5-1.9x the BF16 rate on large GEMMs (NVIDIA cuBLAS 12.0 "
           "Hopper blog) over a 2x peak: 0.60 / 0.70 of their peaks is 1.7x";
  if (name == "gemm_eff_fp8_block")
    return "assumption: block scaling a little below per-tensor FP8 (1.6x the BF16 rate)";
  if (name == "gemm_eff_nvfp4") return "assumption: NVFP4 reaches 40 % of the FP4 peak";
  if (name == "gemm_half_tokens") return "assumption: a GEMM with 256 rows runs at half rate";
  if (name == "gemm_half_width")
    return "assumption: no narrow-expert penalty (0) until the corpus shows one; CUTLASS and "
           "cuBLAS grouped GEMMs tile N and K in 128-256 columns, so experts a few tiles wide "
           "pay their epilogue and pipeline fill per tile";
  if (name == "attn_fwd_eff")
    return "cuDNN fused attention fwd 539/989 TFLOP/s at 16k tokens, H100 (FA3 paper fig. 5, "
           "topology_bench.md §6.3)";
  if (name == "attn_bwd_eff")
    return "cuDNN fused attention bwd 516/989 non-causal at 16k, less the causal loss "
           "(topology_bench.md §6.3)";
  if (name == "attn_half_tokens")
    return "cuDNN fused attention 484 TFLOP/s at 2k vs 539 at 16k tokens (FA3 paper fig. 5)";
  if (name == "attn_fp8_eff")
    return "cuDNN FP8 attention fwd ~900/1979 TFLOP/s on H100 (topology_bench.md §6.3)";
  if (name == "attn_call_s") return "assumption: tens of µs per fused-attention call";
  if (name == "ring_step_s") return "assumption: tens of µs per ring step (sync, launches)";
  if (name == "ring_overlap") return "TE's ring double-buffers KV (full overlap assumed)";
  if (name == "hbm_eff") return "assumption: elementwise kernels reach 75 % of HBM bandwidth";
  if (name == "elementwise_passes")
    return "counted for a SwiGLU layer (ffn 3.5x hidden, GQA), in reads + writes of tokens x "
           "hidden x 2 bytes: forward 23 (2 RMSNorms 2 each, RoPE on q and k 2.5, 2 residual "
           "adds 3 each, SwiGLU reads 2 ffn and writes 1 ffn: 10.5), backward 32 (norms 3 each, "
           "residual grads 3 each, SwiGLU reads 3 ffn and writes 2 ffn: 17.5, RoPE 2.5)";
  if (name == "cast_passes")
    return "counted for the same layer: forward casts of the 4 GEMM inputs (hidden, hidden, "
           "hidden, ffn: read 2 bytes, write 1) ~8, backward casts of the 4 output gradients "
           "~15.5, columnwise copies for the weight gradients ~7";
  if (name == "moe_permute_passes")
    return "counted per routed token copy: permute read + write (2) and unpermute read, write "
           "and weighted combine (3) forward, the same backward (5), router and index gathers (2)";
  if (name == "moe_dropless_imbalance")
    return "assumption: the busiest expert gets ~15 % more than the mean without a capacity";
  if (name == "layer_overhead_s") return "assumption: ~150 µs of launches per layer fwd+bwd";
  if (name == "cuda_graph_overhead") return "assumption: CUDA graphs remove ~70 % of launches";
  if (name == "nvlink_eff" || name == "a2a_nvlink_eff")
    return "NCCL busbw ~370 of 450 GB/s on H100 (nccl-tests #212); A100 240/300, B200 722/900";
  if (name == "ep_a2a_nvlink_eff")
    return "starts at NCCL's all-to-all rate (busbw ~370 of 450 GB/s on H100, nccl-tests #212); "
           "DeepEP's intra-node dispatch / combine reach 153-158 of ~160 GB/s on H800 "
           "(deepseek-ai/DeepEP README)";
  if (name == "nic_eff") return "~48 of 50 GB/s per 400G CX-7 (nccl-tests #319)";
  if (name == "a2a_nic_eff")
    return "~48 of 50 GB/s per 400G CX-7 (nccl-tests #319); DeepEP inter-node dispatch/combine "
           "43-58 GB/s per 50 GB/s NIC, EP16-64 (deepseek-ai/DeepEP README)";
  if (name == "pcie_a2a_eff")
    return "assumption: PCIe all-to-all crosses the host bridge, ~1/3 of the PCIe rate";
  if (name == "nvlink_latency_s" || name == "nic_latency_s")
    return "assumption: NCCL's order of magnitude (µs inside a node, 10-20 µs across IB); NCCL's "
           "tuner charges a ring step 3.4 µs on NVLink and 14 µs on the network (Simple "
           "protocol, src/graph/tuning.cc @5067397)";
  if (name == "tp_overlap") return "assumption: userbuffers hide ~80 % of TP collectives";
  if (name == "ep_overlap")
    return "structure: the 1F1B a2a overlap hides EP dispatch / combine up to the other "
           "micro-batch's compute beside it (Megatron-LM overlap_moe_expert_parallel_comm), all "
           "of it; fitted as a further share it ended at its bound 1.0";
  if (name == "gpu_speed_spread")
    return "GPUs of one SKU in one cluster differ in speed by 8 % on average, up to 22 %, with "
           "outliers 1.5x slower than the median (Sinha et al., \"Not All GPUs Are Created "
           "Equal\", SC'22, arXiv 2208.11035: Summit, Vortex, Frontera, Longhorn, Corona); read "
           "as the range of a cluster's thousands of GPUs, about 8 standard deviations of normal "
           "draws: 1 %";
  if (name == "cuda_graph_full_overhead")
    return "assumption: a whole-iteration graph leaves ~10 % of the per-layer host cost";
  if (name == "mamba_eff") return "assumption: SSD scan kernels at ~25 % of BF16 peak";
  if (name == "reserved_gib" || name == "reserved_fraction")
    return "assumption: context, NCCL buffers, fragmentation; Fujii et al. (arXiv 2411.06465)";
  return "";
}

const char* fit_start_source(std::string_view name) {
  if (name == "gemm_eff_fp8_tensor" || name == "gemm_eff_fp8_block" || name == "gemm_eff_mxfp8")
    return "0.85-0.92 of the BF16 fit_start: inside the cuBLAS FP8 / BF16 GEMM rate ratio of "
           "1.5-1.9x over a 2x peak (rate_ratio_bounds)";
  return fitted_on_corpus(name) ? kCorpusFit : prior_source(name);
}

}  // namespace

ModelConstants make_fit_start_constants() {
  ModelConstants c;
  const auto& cat = constant_catalog();
  for (int g = 0; g < kGpuGenerations; ++g) {
    c.source_[g].resize(cat.size());
    for (std::size_t i = 0; i < cat.size(); ++i) {
      c.gen_[g].*(cat[i].member) = cat[i].fit_start;
      c.source_[g][i] = fit_start_source(cat[i].name);
    }
  }
  return c;
}

ModelConstants make_prior_constants() {
  ModelConstants c = make_fit_start_constants();
  const auto& cat = constant_catalog();
  for (int g = 0; g < kGpuGenerations; ++g) {
    for (std::size_t i = 0; i < cat.size(); ++i)
      c.source_[g][i] = prior_source(cat[i].name);
    for (const PriorValue& p : kPriorValues)
      c.gen_[g].*(info_of(p.name)->member) = p.value;
  }
  return c;
}

const ModelConstants& ModelConstants::priors() {
  static const ModelConstants prior = make_prior_constants();
  return prior;
}

const ModelConstants& ModelConstants::fit_start() {
  static const ModelConstants start = make_fit_start_constants();
  return start;
}

std::vector<std::string> ModelConstants::names(bool all) const {
  std::vector<std::string> out;
  for (int g = 0; g < kGpuGenerations; ++g) {
    for (const ConstantInfo& c : constant_catalog()) {
      if (!all && !c.fittable) continue;
      out.push_back(std::string(generation_name(static_cast<GpuGeneration>(g))) + "." +
                    std::string(c.name));
    }
  }
  return out;
}

namespace {

struct Split {
  GpuGeneration gen;
  std::string_view name;
};

std::optional<Split> split(std::string_view qualified) {
  size_t dot = qualified.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto gen = parse_generation(qualified.substr(0, dot));
  if (!gen) return std::nullopt;
  return Split{*gen, qualified.substr(dot + 1)};
}

}  // namespace

std::optional<double> ModelConstants::get(std::string_view qualified) const {
  auto s = split(qualified);
  if (!s) return std::nullopt;
  const ConstantInfo* info = info_of(s->name);
  if (info == nullptr) return std::nullopt;
  return of(s->gen).*(info->member);
}

bool ModelConstants::set(GpuGeneration g, std::string_view name, double value, std::string source) {
  const ConstantInfo* info = info_of(name);
  if (info == nullptr || !(value >= info->min && value <= info->max)) return false;
  auto gi = static_cast<std::size_t>(g);
  gen_[gi].*(info->member) = value;
  if (source_[gi].size() != constant_catalog().size())
    source_[gi].resize(constant_catalog().size());
  source_[gi][index_of(name)] = std::move(source);
  return true;
}

bool ModelConstants::set(std::string_view qualified, double value, std::string source) {
  auto s = split(qualified);
  if (!s) return false;
  return set(s->gen, s->name, value, std::move(source));
}

const ConstantInfo* ModelConstants::info(std::string_view qualified) {
  auto s = split(qualified);
  return s ? info_of(s->name) : nullptr;
}

std::string ModelConstants::source(std::string_view qualified) const {
  auto s = split(qualified);
  if (!s) return "";
  std::size_t i = index_of(s->name);
  const auto& sources = source_[static_cast<std::size_t>(s->gen)];
  return i < sources.size() ? sources[i] : "";
}

}  // namespace hcp
