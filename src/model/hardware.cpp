// Hardware: the achieved rates the cost model uses, from a cluster profile's specs and, when
// given, a calibration file. Each default below states its source; none is fitted to published
// end-to-end training throughput.
#include <algorithm>
#include <string>

#include "hcp/model.h"

namespace hcp {

namespace {

// cuDNN fused attention (TE's FusedAttention backend) forward, BF16, head dim 128, causal, on
// H100 SXM5: 539 TFLOP/s at 16k tokens = 0.545 of the 989 TFLOP/s dense peak; 484 at 2k tokens.
// Source: FlashAttention-3 paper (arXiv 2407.08608) fig. 5, as tabulated in
// reference/topology_bench.md §6.3. Used for every GPU kind as a fraction of its peak.
constexpr double kAttnEfficiency = 0.545;
// Query chunk length at which attention runs at half its long-chunk rate, from the same two
// points: 484/539 = n/(n + n_half) at n = 2048 gives n_half ≈ 230 tokens.
constexpr double kAttnHalfTokens = 230;
// Large BF16 GEMMs (cuBLAS, hidden ≥ 4096): assumption of 70 % of dense peak, the utilisation
// class cuBLAS reaches for large square-ish bf16 problems on Hopper; replace with calibration.
constexpr double kGemmEfficiency = 0.70;
// NCCL bus bandwidth inside an NVSwitch domain for a2a / all-gather / send-recv: ≈ 370 of
// 450 GB/s per direction on H100 ("~20 % protocol overhead", NCCL maintainer in
// NVIDIA/nccl-tests #212; per-link constants A100 240/300, B200 722/900 give the same ratio).
constexpr double kNvlinkEfficiency = 0.82;
// Inter-node per NIC: ≈ 48 of 50 GB/s on 400G CX-7 (NVIDIA/nccl-tests #319).
constexpr double kNicEfficiency = 0.96;
// Per-message latency: assumption of NCCL's order of magnitude for large send/recv messages
// (a few µs inside a node, ~10-20 µs across IB); only matters for many small ring steps.
constexpr double kNvlinkLatencyS = 5e-6;
constexpr double kNicLatencyS = 15e-6;
// Memory not available to tensors: CUDA context (~0.5 GiB), NCCL buffers and allocator
// fragmentation. Assumption; Fujii et al. (arXiv 2411.06465) found no OOM below 80 % of
// HBM for their estimate, so we reserve 2 GiB plus 5 % of HBM.
constexpr double kReservedGiB = 2.0;
constexpr double kReservedFraction = 0.05;

}  // namespace

double Hardware::attn_flops(double tokens) const {
  double rate = peak_tflops * 1e12 * attn_efficiency;
  if (attn_half_tokens <= 0) return rate;
  return rate * tokens / (tokens + attn_half_tokens);
}

Hardware hardware_from_profile(const ClusterProfile& profile) {
  Hardware hw;
  hw.gpu_name = profile.gpu_name;
  hw.gpus_per_node = std::max(1, profile.gpus_per_node);
  hw.nvlink_domain = std::max(hw.gpus_per_node, profile.nvlink_domain);
  hw.peak_tflops = profile.bf16_dense_tflops;
  hw.gemm_efficiency = kGemmEfficiency;
  hw.attn_efficiency = kAttnEfficiency;
  hw.attn_half_tokens = kAttnHalfTokens;
  double intra =
      profile.nvlink_gbps_per_gpu > 0 ? profile.nvlink_gbps_per_gpu : profile.pcie_gbps_per_gpu;
  hw.nvlink_gbs = intra * kNvlinkEfficiency;
  hw.nvlink_a2a_gbs = hw.nvlink_gbs;
  double nic_per_gpu = profile.nics_per_node * profile.nic_gbits / 8.0 / hw.gpus_per_node;
  hw.nic_gbs = nic_per_gpu * kNicEfficiency;
  hw.nic_a2a_gbs = hw.nic_gbs;
  hw.nvlink_latency_s = kNvlinkLatencyS;
  hw.nic_latency_s = kNicLatencyS;
  hw.memory_gib = profile.gpu_memory_gib;
  hw.reserved_gib = kReservedGiB + kReservedFraction * profile.gpu_memory_gib;
  std::string from = "cluster profile " + profile.name;
  hw.sources = {
      {"peak_tflops", from + " (bf16_dense_tflops)"},
      {"gemm_efficiency", "assumption 0.70 of peak for large bf16 GEMMs"},
      {"attn_efficiency", "cuDNN fused attention fwd 539/989 TFLOP/s (FA3 paper fig. 5)"},
      {"attn_half_tokens", "cuDNN fused attention 484 TFLOP/s at 2k vs 539 at 16k tokens"},
      {"nvlink_gbs", from + " NVLink x 0.82 (NCCL busbw, nccl-tests #212)"},
      {"nvlink_a2a_gbs", from + " NVLink x 0.82 (NCCL busbw, nccl-tests #212)"},
      {"nic_gbs", from + " NICs x 0.96 (nccl-tests #319)"},
      {"nic_a2a_gbs", from + " NICs x 0.96 (nccl-tests #319)"},
      {"memory_gib", from + " (gpu_memory_gib)"},
  };
  return hw;
}

namespace {

void replace_source(Hardware& hw, const std::string& key, const std::string& source) {
  for (auto& [name, where] : hw.sources) {
    if (name == key) {
      where = source;
      return;
    }
  }
  hw.sources.emplace_back(key, source);
}

}  // namespace

void apply_calibration(Hardware& hw, const Calibration& cal, const std::string& name) {
  std::string from = "calibration " + name;
  const CalibrationSummary& m = cal.summary;
  if (m.attention_tflops && hw.peak_tflops > 0) {
    hw.attn_efficiency = *m.attention_tflops / hw.peak_tflops;
    replace_source(hw, "attn_efficiency", from + " (attention_tflops)");
  }
  auto take = [&](const std::optional<double>& measured, double& field, const char* key,
                  const char* json_key) {
    if (!measured || *measured <= 0) return;
    field = *measured;
    replace_source(hw, key, from + " (" + json_key + ")");
  };
  take(m.intra_node_p2p_gbps, hw.nvlink_gbs, "nvlink_gbs", "intra_node_p2p_gbps");
  take(m.intra_node_a2a_gbps, hw.nvlink_a2a_gbs, "nvlink_a2a_gbs", "intra_node_a2a_gbps");
  take(m.inter_node_p2p_gbps, hw.nic_gbs, "nic_gbs", "inter_node_p2p_gbps");
  take(m.inter_node_a2a_gbps, hw.nic_a2a_gbs, "nic_a2a_gbs", "inter_node_a2a_gbps");
}

}  // namespace hcp
