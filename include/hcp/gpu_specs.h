// GPU specification table by device name: memory, dense tensor-core peaks per precision, HBM and
// NVLink bandwidth, generation. Used by the cost model (hardware.cpp) and by `probe --save` (the
// saved profile carries the figures of the probed device). Every row cites its datasheet.
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

/// One device's published figures. Peaks are dense (no sparsity), per GPU, in TFLOP/s; 0 means
/// the precision has no tensor-core path on this device.
struct GpuSpec {
  const char* key;  ///< Canonical short name: "H100-SXM", "B300", ...
  GpuGeneration generation;
  int sm;              ///< Compute capability x10.
  double memory_gib;   ///< Usable device memory as nvidia-smi reports it, GiB.
  double bf16_tflops;  ///< Dense BF16 tensor-core peak (FP32 accumulate).
  double fp8_tflops;   ///< Dense FP8 peak (also MXFP8 on Blackwell).
  double fp4_tflops;   ///< Dense FP4 (NVFP4) peak; 0 before Blackwell.
  double hbm_gbs;      ///< Memory bandwidth, GB/s.
  double nvlink_gbs;   ///< NVLink GB/s per GPU per direction (0: none).
  int nvlink_domain;   ///< GPUs of the usual NVLink domain (1: no NVLink, 2: bridge pairs).
  const char* source;  ///< Where the figures come from.
};

/// Return the whole table (for listing and tests).
const std::vector<GpuSpec>& gpu_spec_table();

/// Find the spec of a device by the name nvidia-smi, NVML or a profile gives ("NVIDIA H100 80GB
/// HBM3", "H100-SXM5-80GB", "NVIDIA GB200", "NVIDIA GeForce RTX 4090"); nullptr when unknown.
const GpuSpec* find_gpu_spec(std::string_view device_name);

}  // namespace hcp
