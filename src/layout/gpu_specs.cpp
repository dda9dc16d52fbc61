// The GPU specification table (include/hcp/gpu_specs.h). Peaks are the datasheets' dense figures
// (the datasheets print sparse figures with an asterisk; dense = sparse / 2). Memory is the
// datasheet's capacity taken as GiB (nvidia-smi reports 79.6-80 GiB for "80GB" parts), except
// B300 / GB300 whose 288 GB are given as 268 GiB as the shipped dgx-b300 / gb300-nvl72 profiles do.
#include "hcp/gpu_specs.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace hcp {

const char* generation_name(GpuGeneration g) {
  switch (g) {
    case GpuGeneration::kAmpere:
      return "ampere";
    case GpuGeneration::kAda:
      return "ada";
    case GpuGeneration::kHopper:
      return "hopper";
    case GpuGeneration::kBlackwell:
      return "blackwell";
    case GpuGeneration::kBlackwellUltra:
      return "blackwell_ultra";
  }
  return "hopper";
}

std::optional<GpuGeneration> parse_generation(std::string_view text) {
  for (int i = 0; i < kGpuGenerations; ++i) {
    auto g = static_cast<GpuGeneration>(i);
    if (text == generation_name(g)) return g;
  }
  return std::nullopt;
}

std::optional<GpuGeneration> generation_of_sm(int sm) {
  if (sm >= 80 && sm <= 87) return GpuGeneration::kAmpere;
  if (sm == 89) return GpuGeneration::kAda;
  if (sm == 90) return GpuGeneration::kHopper;
  if (sm == 100) return GpuGeneration::kBlackwell;
  if (sm == 103) return GpuGeneration::kBlackwellUltra;
  return std::nullopt;
}

const std::vector<GpuSpec>& gpu_spec_table() {
  using G = GpuGeneration;
  // Order matters for matching: longer, more specific keys first (find_gpu_spec takes the first
  // key contained in the normalised device name).
  static const std::vector<GpuSpec> table = {
      {"GB300", G::kBlackwellUltra, 103, 268, 2500, 5000, 15000, 8000, 900, 72,
       "NVIDIA GB300 NVL72 datasheet: per 72 GPUs 360 PF BF16 / 720 PF FP8 sparse, 1080 PF FP4 "
       "dense, 20 TB HBM3e at 576 TB/s (up to 288 GB per GPU), NVLink5 130 TB/s (900 GB/s per GPU "
       "per direction)"},
      {"GB200", G::kBlackwell, 100, 186, 2500, 5000, 10000, 8000, 900, 72,
       "NVIDIA GB200 NVL72 datasheet: per 72 GPUs 360 PF FP16/BF16, 720 PF FP8, 1440 PF FP4 "
       "(sparse), 13.4 TB HBM3e at 576 TB/s, NVLink5 130 TB/s"},
      {"B300", G::kBlackwellUltra, 103, 268, 2250, 4500, 13500, 8000, 900, 8,
       "NVIDIA HGX B300 datasheet: per 8 GPUs 36 PF FP16/BF16 and 72 PF FP8 (sparse), 108 PF FP4 "
       "dense, 2.3 TB HBM3e (288 GB per GPU), NVLink5 1.8 TB/s per GPU (bidirectional)"},
      {"B200", G::kBlackwell, 100, 180, 2250, 4500, 9000, 7700, 900, 8,
       "NVIDIA HGX B200 datasheet: per 8 GPUs 36 PF FP16/BF16, 72 PF FP8, 144 PF FP4 (sparse), "
       "1.44 TB HBM3e (180 GB per GPU) at 62 TB/s, NVLink5 1.8 TB/s per GPU (bidirectional)"},
      {"H200", G::kHopper, 90, 141, 989, 1979, 0, 4800, 450, 8,
       "NVIDIA H200 datasheet (SXM): BF16 1979 / FP8 3958 TFLOPS sparse, 141 GB HBM3e at "
       "4.8 TB/s, NVLink 900 GB/s (bidirectional)"},
      {"H800", G::kHopper, 90, 80, 989, 1979, 0, 3350, 200, 8,
       "NVIDIA H800 SXM5 datasheet: BF16 1979 / FP8 3958 TFLOPS sparse, 80 GB HBM3 at 3.35 TB/s, "
       "NVLink 400 GB/s (bidirectional; 8 links, topology_bench.md §4)"},
      {"H100-PCIE", G::kHopper, 90, 80, 756, 1513, 0, 2000, 300, 2,
       "NVIDIA H100 PCIe datasheet: BF16 1513 / FP8 3026 TFLOPS sparse, 80 GB HBM2e at 2 TB/s, "
       "NVLink bridge 600 GB/s (bidirectional) between GPU pairs"},
      {"H100", G::kHopper, 90, 80, 989, 1979, 0, 3350, 450, 8,
       "NVIDIA H100 SXM5 datasheet: BF16 1979 / FP8 3958 TFLOPS sparse, 80 GB HBM3 at 3.35 TB/s, "
       "NVLink 900 GB/s (bidirectional); topology_bench.md §5 (989 dense BF16)"},
      {"A800", G::kAmpere, 80, 80, 312, 0, 0, 2039, 200, 8,
       "NVIDIA A800 SXM4 datasheet: BF16 312 TFLOPS dense (624 sparse), 80 GB HBM2e at 2039 GB/s, "
       "NVLink 400 GB/s (bidirectional)"},
      {"A100-PCIE", G::kAmpere, 80, 80, 312, 0, 0, 1935, 300, 2,
       "NVIDIA A100 PCIe datasheet: BF16 312 TFLOPS dense, 80 GB HBM2e at 1935 GB/s, NVLink "
       "bridge 600 GB/s (bidirectional) for 2 GPUs"},
      {"A100-40", G::kAmpere, 80, 40, 312, 0, 0, 1555, 300, 8,
       "NVIDIA A100 SXM4 datasheet: BF16 312 TFLOPS dense, 40 GB HBM2 at 1555 GB/s, NVLink "
       "600 GB/s (bidirectional)"},
      {"A100", G::kAmpere, 80, 80, 312, 0, 0, 2039, 300, 8,
       "NVIDIA A100 SXM4 datasheet: BF16 312 TFLOPS dense, 80 GB HBM2e at 2039 GB/s, NVLink "
       "600 GB/s (bidirectional)"},
      {"L40S", G::kAda, 89, 48, 362, 733, 0, 864, 0, 1,
       "NVIDIA L40S datasheet: BF16 733 / FP8 1466 TFLOPS sparse, 48 GB GDDR6 at 864 GB/s, no "
       "NVLink (PCIe Gen4 x16)"},
      {"L20", G::kAda, 89, 48, 119.5, 239, 0, 864, 0, 1,
       "NVIDIA L20 datasheet: FP16/BF16 119.5 TFLOPS dense (239 sparse), FP8 239 dense, 48 GB "
       "GDDR6 at 864 GB/s, no NVLink (PCIe Gen4 x16)"},
      {"RTX 4090", G::kAda, 89, 24, 165.2, 330.3, 0, 1008, 0, 1,
       "NVIDIA Ada Lovelace architecture whitepaper (RTX 4090): BF16 165.2 / FP8 330.3 TFLOPS "
       "dense with FP32 accumulate, 24 GB GDDR6X at 1008 GB/s, no NVLink"},
  };
  return table;
}

namespace {

/// Upper-case, with '_' and ' ' turned into '-', "NVIDIA " / "GEFORCE " dropped.
std::string normalise(std::string_view name) {
  std::string s;
  for (char c : name) {
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    s += (u == '_' || u == ' ') ? '-' : u;
  }
  for (const char* drop : {"NVIDIA-", "GEFORCE-", "TESLA-"}) {
    size_t at = s.find(drop);
    if (at != std::string::npos) s.erase(at, std::string_view(drop).size());
  }
  return s;
}

bool matches(const std::string& device, const GpuSpec& spec) {
  std::string key = normalise(spec.key);
  if (device == key) return true;  // The table's own key (probe --gpu-name A100-40).
  if (key == "A100-40") {          // "A100-SXM4-40GB", "A100 40GB PCIe" (PCIe taken as SXM-class)
    return device.find("A100") != std::string::npos && device.find("40G") != std::string::npos;
  }
  if (key == "H100-PCIE" || key == "A100-PCIE") {
    std::string base = key.substr(0, 4);
    return device.find(base) != std::string::npos && device.find("PCIE") != std::string::npos;
  }
  if (device.find(key) == std::string::npos) return false;
  // "B200" is contained in "GB200": the GB keys come first, and a plain B key must not follow G.
  size_t at = device.find(key);
  if (key[0] == 'B' && at > 0 && device[at - 1] == 'G') return false;
  return true;
}

}  // namespace

const GpuSpec* find_gpu_spec(std::string_view device_name) {
  std::string device = normalise(device_name);
  if (device.empty()) return nullptr;
  for (const GpuSpec& spec : gpu_spec_table()) {
    if (matches(device, spec)) return &spec;
  }
  return nullptr;
}

}  // namespace hcp
