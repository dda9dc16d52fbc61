// The hardware table: every GPU fact the project uses, in one place (src/hardware/gpu_specs.cpp).
// Per GPU model: its name and the name fragments that identify it, its PCI device ids, compute
// capability, memory, dense tensor-core peaks per precision, HBM bandwidth, NVLink (links, rate per
// link and per GPU), NVLink domain and the cluster profile check-log assumes for it. Rows without a
// generation (Pascal, Volta) are named by PCI id only: the cost model cannot price them. The cost
// model (hardware.cpp), `probe --save` (the saved profile carries the figures of the probed
// device), the topology readers (a GPU's name and SM from its PCI id, the NVLink rate per link)
// and check-log (the GPU a log names, the profile it implies) all read it. Every row cites its
// datasheet; the shipped cluster profiles (recipes/clusters/*.yaml) are tested against it
// (tests/hardware/gpu_specs_test.cpp). This module depends on nothing else of the project.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hcp {

/// GPU generations the model keeps separate constants for (model_constants.h).
enum class GpuGeneration { kAmpere, kAda, kHopper, kBlackwell, kBlackwellUltra };
inline constexpr int kGpuGenerations = 5;

/// Return "ampere", "ada", "hopper", "blackwell" or "blackwell_ultra".
const char* generation_name(GpuGeneration g);
/// Parse a generation_name(); nullopt when unknown.
std::optional<GpuGeneration> parse_generation(std::string_view text);
/// Return the generation of a compute capability x10 (80 -> Ampere, 89 -> Ada, 90 -> Hopper,
/// 100 -> Blackwell, 103 -> Blackwell Ultra); nullopt when unknown.
std::optional<GpuGeneration> generation_of_sm(int sm);

/// An NVIDIA PCI device id and the product name the probes give a GPU that reports it (pci.ids).
struct GpuPciId {
  int device_id;     ///< PCI device id (vendor 0x10de).
  const char* name;  ///< "A100-SXM4-80GB", "H100-NVL", ...
};

/// One device's published figures. Peaks are dense (no sparsity), per GPU, in TFLOP/s; 0 means
/// the precision has no tensor-core path on this device (or, on a row without a generation, that
/// the figure is not entered).
struct GpuSpec {
  const char* key;  ///< Canonical short name: "H100-SXM", "B300", ...
  /// Fragments of a device name that identify this row when all appear in it (after
  /// normalisation: upper case, '-' for ' ' and '_', "NVIDIA" / "GeForce" / "Tesla" dropped). The
  /// first is the GPU model every variant shares ("H100" for H100 and H100-PCIE): gpu_model().
  std::vector<std::string> name_parts;
  /// The generation whose constants price this GPU; nullopt when the cost model keeps none for it
  /// (Pascal, Volta): such a row is known by PCI id only and find_gpu_spec() skips it.
  std::optional<GpuGeneration> generation;
  int sm;                  ///< Compute capability x10.
  double memory_gib;       ///< Usable device memory as nvidia-smi reports it, GiB.
  double bf16_tflops;      ///< Dense BF16 tensor-core peak (FP32 accumulate).
  double fp8_tflops;       ///< Dense FP8 peak (also MXFP8 on Blackwell).
  double fp4_tflops;       ///< Dense FP4 (NVFP4) peak; 0 before Blackwell.
  double hbm_gbs;          ///< Memory bandwidth, GB/s.
  int nvlink_links;        ///< NVLinks per GPU (0: none).
  double nvlink_link_gbs;  ///< NVLink GB/s per link per direction (0: none).
  double nvlink_gbs;       ///< NVLink GB/s per GPU per direction (links x rate per link; 0: none).
  int nvlink_domain;       ///< GPUs of the usual NVLink domain (1: no NVLink, 2: bridge pairs).
  std::vector<GpuPciId> pci_ids;  ///< The device ids whose product names this row matches.
  /// The shipped cluster profile check-log assumes for a log that names this GPU model and is
  /// given no --cluster or --topology ("": none, check-log falls back to its default).
  const char* log_cluster;
  const char* source;  ///< Where the figures come from.
};

/// Return the whole table, priced rows and rows known by PCI id only (for listing and tests).
const std::vector<GpuSpec>& gpu_spec_table();

/// True when the cost model can price the row's GPU (it has a generation).
bool is_priced(const GpuSpec& spec);

/// Return the GPU model of a row, its first name part ("H100" for H100-PCIE, "A100" for A100-40).
const std::string& gpu_model(const GpuSpec& spec);

/// Find the spec of a device by the name nvidia-smi, NVML or a profile gives ("NVIDIA H100 80GB
/// HBM3", "H100-SXM5-80GB", "NVIDIA GB200", "NVIDIA GeForce RTX 4090"): the first priced row
/// whose name parts all appear in the name, so longer names come first (GB200 before B200, L40S
/// before L40); nullptr when unknown or not priced.
const GpuSpec* find_gpu_spec(std::string_view device_name);

/// A GPU identified by its PCI device id: the product name and compute capability x10.
struct PciGpu {
  std::string name;
  int sm = 0;
};

/// Find a GPU by its NVIDIA PCI device id, priced or not; nullopt when unknown.
std::optional<PciGpu> find_pci_gpu(int device_id);

/// NVLink GB/s per link per direction of a compute capability x10: the rate of the NVLink
/// device of the table with the highest SM at or below `sm` (devices older than every NVLink
/// device of the table take the oldest one's rate); 0 when `sm` <= 0. 20 for SM60 (NVLink 1),
/// 25 for SM70-SM99 (NVLink 2-4), 50 from SM100 (NVLink 5).
double nvlink_link_gbs_of_sm(int sm);

}  // namespace hcp
