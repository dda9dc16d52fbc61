// Cluster profiles (recipes/clusters/*.yaml): what the planner and the group placement need to
// know about a machine type. `probe --save` writes the same format.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {

struct ClusterProfile {
  std::string name;         ///< "dgx-h100"
  std::string description;  ///< One line for people.
  std::string gpu_name;     ///< "H100-SXM5-80GB"
  int gpu_sm = 0;           ///< Compute capability x10 (80, 90, 100).
  int gpus_per_node = 8;
  int nvlink_domain = 8;           ///< GPUs sharing one NVLink domain (72 on GB200 NVL72).
  double nvlink_gbps_per_gpu = 0;  ///< NVLink GB/s per GPU per direction (0: PCIe only).
  double pcie_gbps_per_gpu = 0;    ///< PCIe GB/s per GPU per direction.
  int nics_per_node = 0;
  double nic_gbits = 0;  ///< Gb/s of each NIC.
  double gpu_memory_gib = 0;
  double bf16_dense_tflops = 0;  ///< Dense BF16 tensor-core TFLOP/s per GPU.
  double fp8_dense_tflops = 0;   ///< Dense FP8 TFLOP/s per GPU (0: unknown or no FP8 path).
  /// False when the file omits nvlink_domain and the loader took gpus_per_node (one node per
  /// domain); the model announces it.
  bool nvlink_domain_given = true;
  std::map<std::string, std::string> sources;  ///< Field name -> where the figure comes from.
};

/// A source that begins so records an assumption, not a reading: `probe --save` writes it where
/// its capture could not tell, and the model names every such field when it prices the profile.
inline constexpr std::string_view kAssumedSourcePrefix = "assumed: ";

/// Read a profile from a YAML file (recipes/clusters/NAME.yaml or `probe --save` output).
Result<ClusterProfile> load_cluster_profile(const std::string& path);
/// Resolve a shipped profile by name ("dgx-h100") or read a path.
Result<ClusterProfile> find_cluster_profile(const std::string& name_or_path);
/// Return the names of the shipped profiles.
std::vector<std::string> cluster_profile_names();
/// Write a profile in the same YAML format.
std::string cluster_profile_yaml(const ClusterProfile& profile);

}  // namespace hcp
