// Hardware: the achieved rates the cost model uses, from a cluster profile's specs (completed from
// the GPU spec table by device name), one generation's named constants (model_constants.h, each
// with its source) and, when given, a calibration file.
#include <algorithm>
#include <sstream>
#include <string>

#include "hcp/gpu_specs.h"
#include "hcp/model.h"

namespace hcp {

double Hardware::attn_flops(double tokens) const {
  double rate = peak_tflops * 1e12 * attn_efficiency;
  if (attn_half_tokens <= 0) return rate;
  return rate * tokens / (tokens + attn_half_tokens);
}

namespace {

/// The generation of a profile's GPU: its compute capability, else the spec table's entry, else
/// Hopper (the generation whose constants have the most published anchors). find_gpu_spec only
/// returns priced rows, so a non-null spec has a generation (value_or never falls back).
GpuGeneration generation_of(const ClusterProfile& profile, const GpuSpec* spec) {
  if (auto g = generation_of_sm(profile.gpu_sm)) {
    // SM 100 covers B200/GB200; the B300/GB300 entries of the table say Blackwell Ultra.
    if (spec != nullptr && *g == GpuGeneration::kBlackwell) return spec->generation.value_or(*g);
    return *g;
  }
  if (spec != nullptr) return spec->generation.value_or(GpuGeneration::kHopper);
  return GpuGeneration::kHopper;
}

/// "cluster profile P: bf16_dense_tflops is 0 (or missing): used 989 TFLOP/s from <table>".
std::string substitution(const std::string& profile, const char* field, double given, double used,
                         const char* unit, const std::string& table) {
  std::ostringstream figure;
  figure << used;
  std::string what = given < 0 ? "is negative" : "is 0 or missing";
  return profile + ": " + field + " " + what + ": used " + figure.str() + " " + unit + " from " +
         table;
}

/// The sentence for a profile without fp8_dense_tflops: the table's FP8 peak, scaled by the
/// profile's BF16 figure over the table's when they differ; no FP8 path means the BF16 rate.
std::string fp8_substitution(const std::string& from, const ClusterProfile& profile,
                             const GpuSpec& spec, double used, double scale,
                             const std::string& table) {
  std::string note =
      substitution(from, "fp8_dense_tflops", profile.fp8_dense_tflops, used, "TFLOP/s", table);
  if (used <= 0) return note + " (no FP8 path: FP8 runs at the BF16 rate)";
  if (scale == 1) return note;
  std::ostringstream ratio;
  ratio << " (the table's " << spec.fp8_tflops << " x the profile's bf16_dense_tflops "
        << profile.bf16_dense_tflops << " / the table's " << spec.bf16_tflops << ")";
  return note + ratio.str();
}

/// The sentence for a profile without gpu_sm: the generation the model's constants are for.
std::string generation_substitution(const std::string& from, GpuGeneration generation,
                                    const std::string& gpu_name, const std::string& table) {
  std::string where = table.empty() ? "assumed (no GPU spec for '" + gpu_name +
                                          "'; the generation with the most published anchors)"
                                    : "from " + table;
  return from + ": gpu_sm is 0 or missing: used generation " + generation_name(generation) + " " +
         where;
}

}  // namespace

GpuGeneration gpu_generation(const ClusterProfile& profile) {
  return generation_of(profile, find_gpu_spec(profile.gpu_name));
}

Hardware hardware_from_profile(const ClusterProfile& profile, const ModelConstants& constants) {
  Hardware hw;
  const GpuSpec* spec = find_gpu_spec(profile.gpu_name);
  hw.gpu_name = profile.gpu_name;
  hw.generation = generation_of(profile, spec);
  hw.k = constants.of(hw.generation);
  const GenerationConstants& k = hw.k;
  std::string gen = generation_name(hw.generation);
  hw.gpus_per_node = std::max(1, profile.gpus_per_node);
  hw.nvlink_domain = std::max(hw.gpus_per_node, profile.nvlink_domain);
  std::string from = "cluster profile " + profile.name;
  std::string table = spec != nullptr
                          ? std::string("GPU spec table ") + spec->key + ": " + spec->source
                          : std::string();
  if (profile.gpu_sm <= 0) {
    hw.substituted.push_back(generation_substitution(from, hw.generation, profile.gpu_name, table));
  }
  for (const auto& [field, source] : profile.sources) {
    if (source.rfind(kAssumedSourcePrefix, 0) == 0) {
      hw.substituted.push_back(from + ": " + field + " is an assumption, not a reading: " +
                               source.substr(kAssumedSourcePrefix.size()));
    }
  }
  if (!profile.nvlink_domain_given) {
    hw.substituted.push_back(from + ": nvlink_domain is missing: used gpus_per_node (" +
                             std::to_string(hw.nvlink_domain) +
                             " GPUs: one node per NVLink domain)");
  }
  hw.peak_tflops = profile.bf16_dense_tflops;
  std::string peak_from = from + " (bf16_dense_tflops)";
  if (hw.peak_tflops <= 0 && spec != nullptr) {
    hw.peak_tflops = spec->bf16_tflops;
    peak_from = table;
    hw.substituted.push_back(substitution(from, "bf16_dense_tflops", profile.bf16_dense_tflops,
                                          spec->bf16_tflops, "TFLOP/s", table));
  }
  // FP8 / FP4 peaks scale with the profile's BF16 figure (a profile may state a different clock
  // or power class than the datasheet row).
  double scale = spec != nullptr && spec->bf16_tflops > 0 ? hw.peak_tflops / spec->bf16_tflops : 1;
  hw.fp8_tflops = spec != nullptr ? spec->fp8_tflops * scale : 0;
  std::string fp8_from = spec != nullptr ? table : "no GPU spec for '" + profile.gpu_name + "'";
  if (profile.fp8_dense_tflops > 0) {
    hw.fp8_tflops = profile.fp8_dense_tflops;
    fp8_from = from + " (fp8_dense_tflops)";
  } else if (spec != nullptr) {
    hw.fp8_substituted = fp8_substitution(from, profile, *spec, hw.fp8_tflops, scale, table);
  }
  hw.fp4_tflops = spec != nullptr ? spec->fp4_tflops * scale : 0;
  hw.hbm_gbs = spec != nullptr ? spec->hbm_gbs : 0;
  hw.gemm_efficiency = k.gemm_eff_bf16;
  hw.attn_efficiency = k.attn_fwd_eff;
  hw.attn_half_tokens = k.attn_half_tokens;
  hw.has_nvlink = profile.nvlink_gbps_per_gpu > 0;
  hw.pcie_gbs = profile.pcie_gbps_per_gpu;
  double intra = hw.has_nvlink ? profile.nvlink_gbps_per_gpu : profile.pcie_gbps_per_gpu;
  hw.nvlink_gbs = intra * k.nvlink_eff;
  hw.nvlink_a2a_gbs = hw.has_nvlink ? intra * k.a2a_nvlink_eff : intra * k.pcie_a2a_eff;
  hw.ep_nvlink_a2a_gbs = hw.has_nvlink ? intra * k.ep_a2a_nvlink_eff : intra * k.pcie_a2a_eff;
  double nic_per_gpu = profile.nics_per_node * profile.nic_gbits / 8.0 / hw.gpus_per_node;
  hw.nic_gbs = nic_per_gpu * k.nic_eff;
  hw.nic_a2a_gbs = nic_per_gpu * k.a2a_nic_eff;
  hw.nvlink_latency_s = k.nvlink_latency_s;
  hw.nic_latency_s = k.nic_latency_s;
  hw.memory_gib = profile.gpu_memory_gib;
  std::string memory_from = from + " (gpu_memory_gib)";
  if (hw.memory_gib <= 0 && spec != nullptr) {
    hw.memory_gib = spec->memory_gib;
    memory_from = table;
    hw.substituted.push_back(substitution(from, "gpu_memory_gib", profile.gpu_memory_gib,
                                          spec->memory_gib, "GiB", table));
  }
  hw.reserved_gib = k.reserved_gib + k.reserved_fraction * hw.memory_gib;
  auto constant = [&](const char* name) {
    return constants.source(gen + "." + name) + " [" + gen + "." + name + "]";
  };
  hw.sources = {
      {"generation", gen + (profile.gpu_sm > 0 ? " (gpu_sm " + std::to_string(profile.gpu_sm) + ")"
                                               : std::string(" (device name)"))},
      {"peak_tflops", peak_from},
      {"fp8_tflops", fp8_from},
      {"fp4_tflops", spec != nullptr ? table : "no GPU spec for '" + profile.gpu_name + "'"},
      {"hbm_gbs", spec != nullptr ? table : "no GPU spec for '" + profile.gpu_name + "'"},
      {"gemm_efficiency", constant("gemm_eff_bf16")},
      {"attn_efficiency", constant("attn_fwd_eff")},
      {"attn_half_tokens", constant("attn_half_tokens")},
      {"nvlink_gbs", from + (hw.has_nvlink ? " NVLink x " : " PCIe x ") + constant("nvlink_eff")},
      {"nvlink_a2a_gbs", from + (hw.has_nvlink ? " NVLink x " + constant("a2a_nvlink_eff")
                                               : " PCIe x " + constant("pcie_a2a_eff"))},
      {"ep_nvlink_a2a_gbs", from + (hw.has_nvlink ? " NVLink x " + constant("ep_a2a_nvlink_eff")
                                                  : " PCIe x " + constant("pcie_a2a_eff"))},
      {"nic_gbs", from + " NICs x " + constant("nic_eff")},
      {"nic_a2a_gbs", from + " NICs x " + constant("a2a_nic_eff")},
      {"memory_gib", memory_from},
  };
  return hw;
}

std::vector<std::string> substitutions_used(const Hardware& hw, const TrainingSetup& setup) {
  std::vector<std::string> notes = hw.substituted;
  bool fp8 = setup.precision != Precision::kBf16 || setup.fp8_attention;
  if (fp8 && !hw.fp8_substituted.empty()) notes.push_back(hw.fp8_substituted);
  return notes;
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

std::optional<std::string> calibration_device_mismatch(const Hardware& hw, const Calibration& cal,
                                                       const std::string& name) {
  const GpuSpec* measured = find_gpu_spec(cal.device);
  const GpuSpec* planned = find_gpu_spec(hw.gpu_name);
  if (measured == nullptr || planned == nullptr || measured == planned) return std::nullopt;
  return "calibration " + name + " was measured on " + cal.device + ", not on the plan's " +
         hw.gpu_name + ": its figures are used as measured";
}

void apply_calibration(Hardware& hw, const Calibration& cal, const std::string& name) {
  std::string from = "calibration " + name;
  const CalibrationSummary& m = cal.summary;
  auto mismatch = calibration_device_mismatch(hw, cal, name);
  if (m.has_figures() && mismatch) hw.substituted.push_back(*mismatch);
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
  // The bench measures NCCL's all-to-all: CP's a2a runs at it; the MoE dispatcher keeps its
  // fitted share of that rate (ep_a2a_nvlink_eff over a2a_nvlink_eff).
  double ep_share = hw.nvlink_a2a_gbs > 0 ? hw.ep_nvlink_a2a_gbs / hw.nvlink_a2a_gbs : 1.0;
  take(m.intra_node_a2a_gbps, hw.nvlink_a2a_gbs, "nvlink_a2a_gbs", "intra_node_a2a_gbps");
  if (m.intra_node_a2a_gbps && *m.intra_node_a2a_gbps > 0) {
    hw.ep_nvlink_a2a_gbs = *m.intra_node_a2a_gbps * ep_share;
    replace_source(hw, "ep_nvlink_a2a_gbs",
                   from +
                       " (intra_node_a2a_gbps) x ep_a2a_nvlink_eff / a2a_nvlink_eff (the "
                       "MoE dispatcher's fitted share of NCCL's all-to-all)");
  }
  take(m.inter_node_p2p_gbps, hw.nic_gbs, "nic_gbs", "inter_node_p2p_gbps");
  take(m.inter_node_a2a_gbps, hw.nic_a2a_gbs, "nic_a2a_gbs", "inter_node_a2a_gbps");
}

}  // namespace hcp
