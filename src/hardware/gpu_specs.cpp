// The hardware table (include/hcp/gpu_specs.h): the one place that holds GPU facts. Peaks are the
// datasheets' dense figures (the datasheets print sparse figures with an asterisk; dense = sparse /
// 2). Memory is the datasheet's capacity taken as GiB (nvidia-smi reports 79.6-80 GiB for "80GB"
// parts), except B300 / GB300 whose 288 GB are given as 268 GiB as the shipped dgx-b300 /
// gb300-nvl72 profiles do. NVLink per GPU is links x rate per link, both per direction.
#include "hcp/gpu_specs.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

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

namespace {

/// A row the cost model cannot price (no generation): a GPU known by PCI id, with its compute
/// capability and NVLink links; the figures only pricing needs are left 0.
GpuSpec unpriced_row(const char* key, std::vector<std::string> name_parts, int sm, int nvlink_links,
                     double nvlink_link_gbs, std::vector<GpuPciId> pci_ids, const char* source) {
  return GpuSpec{.key = key,
                 .name_parts = std::move(name_parts),
                 .generation = std::nullopt,
                 .sm = sm,
                 .memory_gib = 0,
                 .bf16_tflops = 0,
                 .fp8_tflops = 0,
                 .fp4_tflops = 0,
                 .hbm_gbs = 0,
                 .nvlink_links = nvlink_links,
                 .nvlink_link_gbs = nvlink_link_gbs,
                 .nvlink_gbs = nvlink_links * nvlink_link_gbs,
                 .nvlink_domain = 0,
                 .pci_ids = std::move(pci_ids),
                 .log_cluster = "",
                 .source = source};
}

}  // namespace

const std::vector<GpuSpec>& gpu_spec_table() {
  using G = GpuGeneration;
  // Order matters for matching: longer, more specific keys first (find_gpu_spec takes the first
  // row whose name parts all appear in the normalised device name). Each row's figures are the
  // datasheet's named in its `source`; NVLink link counts and per-link rates are topology_bench.md
  // §4's table (hwloc topology-nvml.c, NVIDIA product pages); PCI ids are pci.ids' (the hwloc
  // fixtures' README); compute capabilities are the CUDA C++ Programming Guide's. log_cluster is
  // the shipped profile (recipes/clusters/) of the model's HGX/NVL72 system that check-log has
  // assumed for GB200, B200, H200, H100 and A100 logs; other models have none.
  static const std::vector<GpuSpec> table = {
      {.key = "GB300",
       .name_parts = {"GB300"},
       .generation = G::kBlackwellUltra,
       .sm = 103,            // compute capability 10.3 (SM103, Blackwell Ultra)
       .memory_gib = 268,    // 288 GB = 268 GiB
       .bf16_tflops = 2500,  // 360 PF sparse / 72 / 2
       .fp8_tflops = 5000,   // 720 PF sparse / 72 / 2
       .fp4_tflops = 15000,  // 1080 PF dense / 72
       .hbm_gbs = 8000,      // 576 TB/s / 72
       .nvlink_links = 18,   // NVLink 5: 18 links x 50 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 50,
       .nvlink_gbs = 900,
       .nvlink_domain = 72,  // NVL72: one 72-GPU NVLink domain
       .pci_ids = {},
       .log_cluster = "",
       .source = "NVIDIA GB300 NVL72 datasheet: per 72 GPUs 360 PF BF16 / 720 PF FP8 sparse, 1080 "
                 "PF FP4 dense, 20 TB HBM3e at 576 TB/s (up to 288 GB per GPU), NVLink5 130 TB/s "
                 "(900 GB/s per GPU per direction)"},
      {.key = "GB200",
       .name_parts = {"GB200"},
       .generation = G::kBlackwell,
       .sm = 100,            // compute capability 10.0 (SM100, Blackwell)
       .memory_gib = 186,    // 13.4 TB / 72
       .bf16_tflops = 2500,  // 360 PF sparse / 72 / 2
       .fp8_tflops = 5000,   // 720 PF sparse / 72 / 2
       .fp4_tflops = 10000,  // 1440 PF sparse / 72 / 2
       .hbm_gbs = 8000,      // 576 TB/s / 72
       .nvlink_links = 18,   // NVLink 5: 18 links x 50 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 50,
       .nvlink_gbs = 900,
       .nvlink_domain = 72,  // NVL72: one 72-GPU NVLink domain
       .pci_ids = {},
       .log_cluster = "gb200-nvl72",
       .source = "NVIDIA GB200 NVL72 datasheet: per 72 GPUs 360 PF FP16/BF16, 720 PF FP8, 1440 PF "
                 "FP4 (sparse), 13.4 TB HBM3e at 576 TB/s, NVLink5 130 TB/s"},
      {.key = "B300",
       .name_parts = {"B300"},
       .generation = G::kBlackwellUltra,
       .sm = 103,            // compute capability 10.3 (SM103, Blackwell Ultra)
       .memory_gib = 268,    // 288 GB = 268 GiB
       .bf16_tflops = 2250,  // 36 PF sparse / 8 / 2
       .fp8_tflops = 4500,   // 72 PF sparse / 8 / 2
       .fp4_tflops = 13500,  // 108 PF dense / 8
       .hbm_gbs = 8000,      // as GB300 (576 TB/s / 72); the HGX B300 text cited gives none
       .nvlink_links = 18,   // NVLink 5: 18 links x 50 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 50,
       .nvlink_gbs = 900,
       .nvlink_domain = 8,  // HGX: the 8 GPUs of one board
       .pci_ids = {},
       .log_cluster = "",
       .source =
           "NVIDIA HGX B300 datasheet: per 8 GPUs 36 PF FP16/BF16 and 72 PF FP8 (sparse), 108 PF "
           "FP4 dense, 2.3 TB HBM3e (288 GB per GPU), NVLink5 1.8 TB/s per GPU (bidirectional)"},
      {.key = "B200",
       .name_parts = {"B200"},
       .generation = G::kBlackwell,
       .sm = 100,            // compute capability 10.0 (SM100, Blackwell)
       .memory_gib = 180,    // 1.44 TB / 8
       .bf16_tflops = 2250,  // 36 PF sparse / 8 / 2
       .fp8_tflops = 4500,   // 72 PF sparse / 8 / 2
       .fp4_tflops = 9000,   // 144 PF sparse / 8 / 2
       .hbm_gbs = 7700,      // 62 TB/s / 8 = 7.75 TB/s, kept as 7.7
       .nvlink_links = 18,   // NVLink 5: 18 links x 50 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 50,
       .nvlink_gbs = 900,
       .nvlink_domain = 8,             // HGX: the 8 GPUs of one board
       .pci_ids = {{0x2901, "B200"}},  // pci.ids
       .log_cluster = "dgx-b200",
       .source =
           "NVIDIA HGX B200 datasheet: per 8 GPUs 36 PF FP16/BF16, 72 PF FP8, 144 PF FP4 (sparse), "
           "1.44 TB HBM3e (180 GB per GPU) at 62 TB/s, NVLink5 1.8 TB/s per GPU (bidirectional)"},
      {.key = "H200",
       .name_parts = {"H200"},
       .generation = G::kHopper,
       .sm = 90,            // compute capability 9.0 (SM90, Hopper)
       .memory_gib = 141,   // 141 GB
       .bf16_tflops = 989,  // 1979 sparse / 2
       .fp8_tflops = 1979,  // 3958 sparse / 2
       .fp4_tflops = 0,
       .hbm_gbs = 4800,     // 4.8 TB/s
       .nvlink_links = 18,  // NVLink 4: 18 links x 25 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 450,
       .nvlink_domain = 8,                       // HGX: 8 GPUs on NVSwitch
       .pci_ids = {{0x2335, "H200-SXM-141GB"}},  // pci.ids
       .log_cluster = "dgx-h200",
       .source = "NVIDIA H200 datasheet (SXM): BF16 1979 / FP8 3958 TFLOPS sparse, 141 GB HBM3e at "
                 "4.8 TB/s, NVLink 900 GB/s (bidirectional)"},
      {.key = "H800",
       .name_parts = {"H800"},
       .generation = G::kHopper,
       .sm = 90,            // compute capability 9.0 (SM90, Hopper)
       .memory_gib = 80,    // 80 GB
       .bf16_tflops = 989,  // 1979 sparse / 2
       .fp8_tflops = 1979,  // 3958 sparse / 2
       .fp4_tflops = 0,
       .hbm_gbs = 3350,    // 3.35 TB/s
       .nvlink_links = 8,  // NVLink 4, H800 variant: 8 links x 25 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 200,
       .nvlink_domain = 8,                       // HGX: 8 GPUs on NVSwitch
       .pci_ids = {{0x2324, "H800-SXM5-80GB"}},  // pci.ids
       .log_cluster = "",
       .source = "NVIDIA H800 SXM5 datasheet: BF16 1979 / FP8 3958 TFLOPS sparse, 80 GB HBM3 at "
                 "3.35 TB/s, NVLink 400 GB/s (bidirectional; 8 links, topology_bench.md §4)"},
      {.key = "H100-PCIE",
       .name_parts = {"H100", "PCIE"},
       .generation = G::kHopper,
       .sm = 90,            // compute capability 9.0 (SM90, Hopper)
       .memory_gib = 80,    // 80 GB
       .bf16_tflops = 756,  // 1513 sparse / 2
       .fp8_tflops = 1513,  // 3026 sparse / 2
       .fp4_tflops = 0,
       .hbm_gbs = 2000,  // 2 TB/s
       .nvlink_links =
           12,  // NVLink 4 over three bridges: 12 links x 25 GB/s = 600 GB/s bidirectional
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 300,
       .nvlink_domain = 2,                       // bridged pairs
       .pci_ids = {{0x2331, "H100-PCIE-80GB"}},  // pci.ids
       .log_cluster = "dgx-h100",
       .source = "NVIDIA H100 PCIe datasheet: BF16 1513 / FP8 3026 TFLOPS sparse, 80 GB HBM2e at 2 "
                 "TB/s, NVLink bridge 600 GB/s (bidirectional) between GPU pairs"},
      {.key = "H100",
       .name_parts = {"H100"},
       .generation = G::kHopper,
       .sm = 90,            // compute capability 9.0 (SM90, Hopper)
       .memory_gib = 80,    // 80 GB
       .bf16_tflops = 989,  // 1979 sparse / 2
       .fp8_tflops = 1979,  // 3958 sparse / 2
       .fp4_tflops = 0,
       .hbm_gbs = 3350,     // 3.35 TB/s
       .nvlink_links = 18,  // NVLink 4: 18 links x 25 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 450,
       .nvlink_domain = 8,                                             // HGX: 8 GPUs on NVSwitch
       .pci_ids = {{0x2321, "H100-NVL"}, {0x2330, "H100-SXM5-80GB"}},  // pci.ids
       .log_cluster = "dgx-h100",
       .source =
           "NVIDIA H100 SXM5 datasheet: BF16 1979 / FP8 3958 TFLOPS sparse, 80 GB HBM3 at 3.35 "
           "TB/s, NVLink 900 GB/s (bidirectional); topology_bench.md §5 (989 dense BF16)"},
      {.key = "A800",
       .name_parts = {"A800"},
       .generation = G::kAmpere,
       .sm = 80,            // compute capability 8.0 (SM80, Ampere)
       .memory_gib = 80,    // 80 GB
       .bf16_tflops = 312,  // 312 dense
       .fp8_tflops = 0,     // no FP8 tensor cores before Ada/Hopper
       .fp4_tflops = 0,
       .hbm_gbs = 2039,    // 2039 GB/s
       .nvlink_links = 8,  // NVLink 3, A800 variant: 8 links x 25 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 200,
       .nvlink_domain = 8,                       // HGX: 8 GPUs on NVSwitch
       .pci_ids = {{0x20f3, "A800-SXM4-80GB"}},  // pci.ids
       .log_cluster = "",
       .source = "NVIDIA A800 SXM4 datasheet: BF16 312 TFLOPS dense (624 sparse), 80 GB HBM2e at "
                 "2039 GB/s, NVLink 400 GB/s (bidirectional)"},
      {.key = "A100-PCIE",
       .name_parts = {"A100", "PCIE"},
       .generation = G::kAmpere,
       .sm = 80,            // compute capability 8.0 (SM80, Ampere)
       .memory_gib = 80,    // 80 GB
       .bf16_tflops = 312,  // 312 dense
       .fp8_tflops = 0,     // no FP8 tensor cores before Ada/Hopper
       .fp4_tflops = 0,
       .hbm_gbs = 1935,  // 1935 GB/s
       .nvlink_links =
           12,  // NVLink 3 over three bridges: 12 links x 25 GB/s = 600 GB/s bidirectional
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 300,
       .nvlink_domain = 2,                                                   // bridged pairs
       .pci_ids = {{0x20b5, "A100-PCIE-80GB"}, {0x20f1, "A100-PCIE-40GB"}},  // pci.ids
       .log_cluster = "dgx-a100",
       .source = "NVIDIA A100 PCIe datasheet: BF16 312 TFLOPS dense, 80 GB HBM2e at 1935 GB/s, "
                 "NVLink bridge 600 GB/s (bidirectional) for 2 GPUs"},
      {.key = "A100-40",
       .name_parts = {"A100", "40G"},
       .generation = G::kAmpere,
       .sm = 80,            // compute capability 8.0 (SM80, Ampere)
       .memory_gib = 40,    // 40 GB
       .bf16_tflops = 312,  // 312 dense
       .fp8_tflops = 0,     // no FP8 tensor cores before Ada/Hopper
       .fp4_tflops = 0,
       .hbm_gbs = 1555,     // 1555 GB/s
       .nvlink_links = 12,  // NVLink 3: 12 links x 25 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 300,
       .nvlink_domain = 8,                       // HGX: 8 GPUs on NVSwitch
       .pci_ids = {{0x20b0, "A100-SXM4-40GB"}},  // pci.ids
       .log_cluster = "dgx-a100",
       .source = "NVIDIA A100 SXM4 datasheet: BF16 312 TFLOPS dense, 40 GB HBM2 at 1555 GB/s, "
                 "NVLink 600 GB/s (bidirectional)"},
      {.key = "A100",
       .name_parts = {"A100"},
       .generation = G::kAmpere,
       .sm = 80,            // compute capability 8.0 (SM80, Ampere)
       .memory_gib = 80,    // 80 GB
       .bf16_tflops = 312,  // 312 dense
       .fp8_tflops = 0,     // no FP8 tensor cores before Ada/Hopper
       .fp4_tflops = 0,
       .hbm_gbs = 2039,     // 2039 GB/s
       .nvlink_links = 12,  // NVLink 3: 12 links x 25 GB/s (topology_bench.md §4)
       .nvlink_link_gbs = 25,
       .nvlink_gbs = 300,
       .nvlink_domain = 8,  // HGX: 8 GPUs on NVSwitch
       .pci_ids = {{0x20b2, "A100-SXM4-80GB"}, {0x20b3, "A100-SXM-64GB"}},  // pci.ids
       .log_cluster = "dgx-a100",
       .source = "NVIDIA A100 SXM4 datasheet: BF16 312 TFLOPS dense, 80 GB HBM2e at 2039 GB/s, "
                 "NVLink 600 GB/s (bidirectional)"},
      {.key = "L40S",
       .name_parts = {"L40S"},
       .generation = G::kAda,
       .sm = 89,            // compute capability 8.9 (SM89, Ada)
       .memory_gib = 48,    // 48 GB
       .bf16_tflops = 362,  // the datasheet's dense 362.05 (733 sparse)
       .fp8_tflops = 733,   // 1466 sparse / 2
       .fp4_tflops = 0,
       .hbm_gbs = 864,     // GDDR6, 864 GB/s
       .nvlink_links = 0,  // no NVLink
       .nvlink_link_gbs = 0,
       .nvlink_gbs = 0,
       .nvlink_domain = 1,  // no NVLink
       .pci_ids = {},
       .log_cluster = "",
       .source = "NVIDIA L40S datasheet: BF16 733 / FP8 1466 TFLOPS sparse, 48 GB GDDR6 at 864 "
                 "GB/s, no NVLink (PCIe Gen4 x16)"},
      {.key = "L40",
       .name_parts = {"L40"},  // After L40S: "L40" is part of "L40S".
       .generation = G::kAda,
       .sm = 89,            // compute capability 8.9 (SM89, Ada)
       .memory_gib = 48,    // 48 GB
       .bf16_tflops = 181,  // the datasheet's dense 181.05 (362.1 sparse)
       .fp8_tflops = 362,   // 724 sparse / 2
       .fp4_tflops = 0,
       .hbm_gbs = 864,     // GDDR6, 864 GB/s
       .nvlink_links = 0,  // no NVLink
       .nvlink_link_gbs = 0,
       .nvlink_gbs = 0,
       .nvlink_domain = 1,  // no NVLink
       .pci_ids = {},
       .log_cluster = "",
       .source = "NVIDIA L40 datasheet: BF16 362.1 / FP8 724 TFLOPS sparse, 48 GB GDDR6 at 864 "
                 "GB/s, no NVLink (PCIe Gen4 x16)"},
      {.key = "L20",
       .name_parts = {"L20"},
       .generation = G::kAda,
       .sm = 89,              // compute capability 8.9 (SM89, Ada)
       .memory_gib = 48,      // 48 GB
       .bf16_tflops = 119.5,  // 119.5 dense
       .fp8_tflops = 239,     // 239 dense
       .fp4_tflops = 0,
       .hbm_gbs = 864,     // GDDR6, 864 GB/s
       .nvlink_links = 0,  // no NVLink
       .nvlink_link_gbs = 0,
       .nvlink_gbs = 0,
       .nvlink_domain = 1,  // no NVLink
       .pci_ids = {},
       .log_cluster = "",
       .source = "NVIDIA L20 datasheet: FP16/BF16 119.5 TFLOPS dense (239 sparse), FP8 239 dense, "
                 "48 GB GDDR6 at 864 GB/s, no NVLink (PCIe Gen4 x16)"},
      {.key = "RTX 4090",
       .name_parts = {"RTX 4090"},
       .generation = G::kAda,
       .sm = 89,              // compute capability 8.9 (SM89, Ada)
       .memory_gib = 24,      // 24 GB
       .bf16_tflops = 165.2,  // 165.2 dense, FP32 accumulate
       .fp8_tflops = 330.3,   // 330.3 dense, FP32 accumulate
       .fp4_tflops = 0,
       .hbm_gbs = 1008,    // GDDR6X, 1008 GB/s
       .nvlink_links = 0,  // no NVLink
       .nvlink_link_gbs = 0,
       .nvlink_gbs = 0,
       .nvlink_domain = 1,  // no NVLink
       .pci_ids = {},
       .log_cluster = "",
       .source = "NVIDIA Ada Lovelace architecture whitepaper (RTX 4090): BF16 165.2 / FP8 330.3 "
                 "TFLOPS dense with FP32 accumulate, 24 GB GDDR6X at 1008 GB/s, no NVLink"},
      // Known by PCI id only: the cost model keeps no constants for Pascal or Volta, so these rows
      // have no generation, and memory, peaks, bandwidth and NVLink domain are not entered (0).
      // Compute capabilities: CUDA C++ Programming Guide. NVLink: topology_bench.md §4's table
      // (NVLink 1 on P100: 4 links x 20 GB/s; NVLink 2 on V100: 6 links x 25 GB/s).
      unpriced_row("P100-PCIE", {"P100", "PCIE"}, 60, 0, 0,
                   {{0x15f7, "P100-PCIE-12GB"}, {0x15f8, "P100-PCIE-16GB"}},
                   "NVIDIA Tesla P100 PCIe datasheet: compute capability 6.0, no NVLink"),
      unpriced_row("P100-SXM2", {"P100"}, 60, 4, 20, {{0x15f9, "P100-SXM2-16GB"}},
                   "NVIDIA Tesla P100 SXM2 datasheet: NVLink 1, 160 GB/s bidirectional (4 links)"),
      unpriced_row(
          "V100-SXM", {"V100"}, 70, 6, 25,
          {{0x1db1, "V100-SXM2-16GB"}, {0x1db5, "V100-SXM2-32GB"}, {0x1db8, "V100-SXM3-32GB"}},
          "NVIDIA Tesla V100 SXM2 datasheet: NVLink 2, 300 GB/s bidirectional (6 links)"),
      unpriced_row(
          "V100-PCIE", {"V100", "PCIE"}, 70, 0, 0,
          {{0x1db4, "V100-PCIE-16GB"}, {0x1db6, "V100-PCIE-32GB"}, {0x1df6, "V100S-PCIE-32GB"}},
          "NVIDIA Tesla V100 / V100S PCIe datasheets: compute capability 7.0, no NVLink"),
  };
  return table;
}

bool is_priced(const GpuSpec& spec) {
  return spec.generation.has_value();
}

const std::string& gpu_model(const GpuSpec& spec) {
  return spec.name_parts.front();
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

/// True when `part` appears in `device`; a part starting with 'B' must not follow a 'G' ("B200"
/// is contained in "GB200": the Grace-Blackwell rows come first and take those names).
bool contains_part(const std::string& device, const std::string& part) {
  size_t at = device.find(part);
  if (at == std::string::npos) return false;
  return !(part[0] == 'B' && at > 0 && device[at - 1] == 'G');
}

bool matches(const std::string& device, const GpuSpec& spec) {
  if (device == normalise(spec.key))
    return true;  // The table's own key (probe --gpu-name A100-40).
  return std::all_of(spec.name_parts.begin(), spec.name_parts.end(), [&](const std::string& part) {
    return contains_part(device, normalise(part));
  });
}

}  // namespace

const GpuSpec* find_gpu_spec(std::string_view device_name) {
  std::string device = normalise(device_name);
  if (device.empty()) return nullptr;
  for (const GpuSpec& spec : gpu_spec_table()) {
    if (is_priced(spec) && matches(device, spec)) return &spec;
  }
  return nullptr;
}

namespace {

/// The name of `device_id` among `ids`, or nullptr.
const char* name_of_pci_id(const std::vector<GpuPciId>& ids, int device_id) {
  for (const GpuPciId& id : ids)
    if (id.device_id == device_id) return id.name;
  return nullptr;
}

/// Every (sm, NVLink rate per link) of the table, for devices with NVLink.
std::vector<std::pair<int, double>> nvlink_rates() {
  std::vector<std::pair<int, double>> rates;
  for (const GpuSpec& s : gpu_spec_table())
    if (s.nvlink_links > 0) rates.emplace_back(s.sm, s.nvlink_link_gbs);
  std::sort(rates.begin(), rates.end());
  return rates;
}

}  // namespace

std::optional<PciGpu> find_pci_gpu(int device_id) {
  for (const GpuSpec& s : gpu_spec_table())
    if (const char* name = name_of_pci_id(s.pci_ids, device_id)) return PciGpu{name, s.sm};
  return std::nullopt;
}

double nvlink_link_gbs_of_sm(int sm) {
  if (sm <= 0) return 0;
  static const std::vector<std::pair<int, double>> rates = nvlink_rates();
  if (rates.empty()) return 0;
  double rate = rates.front().second;  // Older than every NVLink device: the oldest NVLink.
  for (const auto& [device_sm, link_gbs] : rates)
    if (device_sm <= sm) rate = link_gbs;
  return rate;
}

}  // namespace hcp
