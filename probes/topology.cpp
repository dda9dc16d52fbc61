// Topology model: names, PCI ids (read from the hardware table), derived fields (finalize) and
// merging of sources.
#include "hcp/topology.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <numeric>

#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/gpu_specs.h"
#include "hcp/text_util.h"
#include "topology_internal.h"

namespace hcp {

const char* affinity_name(Affinity a) {
  switch (a) {
    case Affinity::kSameSwitch:
      return "same-switch";
    case Affinity::kHostBridge:
      return "host-bridge";
    case Affinity::kSameNuma:
      return "same-numa";
    case Affinity::kCrossSocket:
      return "cross-socket";
    case Affinity::kUnknown:
      break;
  }
  return "unknown";
}

const char* nic_kind_name(NicKind k) {
  switch (k) {
    case NicKind::kInfiniBand:
      return "ib";
    case NicKind::kRoce:
      return "roce";
    case NicKind::kEfa:
      return "efa";
    case NicKind::kEthernet:
      return "eth";
    case NicKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string normalize_bus_id(const std::string& id) {
  std::string lower;
  for (char c : id) {
    if (!std::isspace(static_cast<unsigned char>(c)))
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  unsigned long domain = 0;
  unsigned bus = 0, dev = 0, func = 0;
  char tail = 0;
  if (std::sscanf(lower.c_str(), "%lx:%x:%x.%x%c", &domain, &bus, &dev, &func, &tail) == 4) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%04lx:%02x:%02x.%x", domain, bus, dev, func);
    return buf;
  }
  if (std::sscanf(lower.c_str(), "%x:%x.%x%c", &bus, &dev, &func, &tail) == 3) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "0000:%02x:%02x.%x", bus, dev, func);
    return buf;
  }
  return lower;
}

// GPU names, SMs and NVLink rates come from the hardware table (gpu_specs.h).

std::string gpu_name_from_device_id(int device_id) {
  auto gpu = find_pci_gpu(device_id);
  return gpu ? gpu->name : "";
}

int gpu_sm_from_device_id(int device_id) {
  auto gpu = find_pci_gpu(device_id);
  return gpu ? gpu->sm : 0;
}

double nvlink_gbps_per_link(int sm) {
  return nvlink_link_gbs_of_sm(sm);
}

namespace probe_detail {

void resize_gpu_tables(Topology& topo) {
  size_t n = topo.gpus.size();
  auto& nv = topo.nvlink;
  nv.matrix.resize(n);
  for (size_t i = 0; i < n; ++i) {
    nv.matrix[i].resize(n, -1);
    nv.matrix[i][i] = 0;
  }
  nv.switch_links.resize(n, -1);
  nv.cpu_links.resize(n, 0);
  for (auto& nic : topo.nics)
    nic.gpu_affinity.resize(n, Affinity::kUnknown);
}

double checked_pcie_gbps(double gbps, const std::string& where,
                         std::vector<std::string>& warnings) {
  if (gbps == 0) return 0;  // not given
  if (auto why = physical_range_error(gbps, kPcieGBps)) {
    warnings.push_back(where + ": PCIe rate " + format_number_for_error(gbps) + " GB/s is " + *why +
                       "; taken as unknown");
    return 0;
  }
  return gbps;
}

Status check_gpu_count(size_t gpus, const std::string& source) {
  if (gpus <= static_cast<size_t>(kMaxGpusPerNode)) return Ok{};
  return Error{source + ": more than " + std::to_string(kMaxGpusPerNode) +
                   " GPUs in one node's topology (nvidia-smi numbers them GPU0..GPU" +
                   std::to_string(kMaxGpusPerNode - 1) + ")",
               {},
               {}};
}

Gpu make_pci_gpu(int index, const std::string& bus_id, int device_id) {
  Gpu gpu;
  gpu.index = index;
  gpu.pci_bus_id = normalize_bus_id(bus_id);
  gpu.pci_device_id = device_id;
  gpu.name = gpu_name_from_device_id(device_id);
  gpu.sm = gpu_sm_from_device_id(device_id);
  return gpu;
}

void fill_switch_matrix(NvlinkInfo& nv) {
  size_t n = nv.switch_links.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j || nv.switch_links[i] <= 0 || nv.switch_links[j] <= 0) continue;
      int shared = std::min(nv.switch_links[i], nv.switch_links[j]);
      if (nv.matrix[i][j] <= 0) nv.matrix[i][j] = shared;
    }
  }
  if (std::any_of(nv.switch_links.begin(), nv.switch_links.end(), [](int l) { return l > 0; }))
    nv.via_switch = true;
}

}  // namespace probe_detail

namespace {

using probe_detail::resize_gpu_tables;

// Reorder GPUs by index (then bus id) and permute every per-GPU table with them.
void sort_gpus(Topology& topo) {
  size_t n = topo.gpus.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Gpu& x = topo.gpus[a];
    const Gpu& y = topo.gpus[b];
    if (x.index != y.index) return x.index < y.index;
    return x.pci_bus_id < y.pci_bus_id;
  });
  bool identity = true;
  for (size_t i = 0; i < n; ++i)
    identity = identity && order[i] == i;
  if (identity) return;
  Topology copy = topo;
  auto& nv = topo.nvlink;
  for (size_t i = 0; i < n; ++i) {
    topo.gpus[i] = copy.gpus[order[i]];
    nv.switch_links[i] = copy.nvlink.switch_links[order[i]];
    nv.cpu_links[i] = copy.nvlink.cpu_links[order[i]];
    for (size_t j = 0; j < n; ++j)
      nv.matrix[i][j] = copy.nvlink.matrix[order[i]][order[j]];
    for (size_t k = 0; k < topo.nics.size(); ++k)
      topo.nics[k].gpu_affinity[i] = copy.nics[k].gpu_affinity[order[i]];
  }
}

int total_links(const NvlinkInfo& nv, size_t i) {
  int cpu = nv.cpu_links[i] > 0 ? nv.cpu_links[i] : 0;
  if (nv.switch_links[i] > 0) return nv.switch_links[i] + cpu;
  int sum = cpu;
  for (size_t j = 0; j < nv.matrix[i].size(); ++j) {
    if (j == i) continue;
    if (nv.matrix[i][j] < 0) return -1;
    sum += nv.matrix[i][j];
  }
  return sum;
}

int first_known_sm(const Topology& topo) {
  for (const auto& g : topo.gpus)
    if (g.sm > 0) return g.sm;
  return 0;
}

void derive_nic_nearest(Topology& topo) {
  for (auto& nic : topo.nics) {
    nic.nearest_gpus.clear();
    nic.nearest_level = Affinity::kUnknown;
    for (const auto a : nic.gpu_affinity)
      if (a < nic.nearest_level) nic.nearest_level = a;
    if (nic.nearest_level == Affinity::kUnknown) continue;
    for (size_t i = 0; i < nic.gpu_affinity.size(); ++i)
      if (nic.gpu_affinity[i] == nic.nearest_level) nic.nearest_gpus.push_back(topo.gpus[i].index);
  }
}

}  // namespace

void finalize_topology(Topology& topo) {
  resize_gpu_tables(topo);
  sort_gpus(topo);
  auto& nv = topo.nvlink;
  size_t n = topo.gpus.size();
  nv.gbps_per_link = nvlink_gbps_per_link(first_known_sm(topo));
  nv.links_per_gpu.assign(n, -1);
  nv.gbps_per_gpu.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    nv.links_per_gpu[i] = total_links(nv, i);
    if (nv.links_per_gpu[i] >= 0 && nv.gbps_per_link > 0)
      nv.gbps_per_gpu[i] = nv.links_per_gpu[i] * nv.gbps_per_link;
  }
  derive_nic_nearest(topo);
  topo.gpus_per_node = static_cast<int>(n);
}

// --- Merging -----------------------------------------------------------------------------------

namespace {

std::string gpu_label(const Gpu& g) {
  return "GPU " + std::to_string(g.index) + (g.pci_bus_id.empty() ? "" : " (" + g.pci_bus_id + ")");
}

// Position of `g` in `gpus`: by bus id when both have one, else by index.
int find_gpu(const std::vector<Gpu>& gpus, const Gpu& g) {
  for (size_t i = 0; i < gpus.size(); ++i) {
    const Gpu& b = gpus[i];
    if (!b.pci_bus_id.empty() && !g.pci_bus_id.empty()) {
      if (b.pci_bus_id == g.pci_bus_id) return static_cast<int>(i);
    } else if (b.index == g.index) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

template <typename T>
void take_if_unset(T& base, const T& extra, const T& unset) {
  if (base == unset) base = extra;
}

void merge_gpu(Gpu& b, const Gpu& e, const std::string& source,
               std::vector<std::string>& warnings) {
  take_if_unset(b.pci_bus_id, e.pci_bus_id, std::string());
  take_if_unset(b.name, e.name, std::string());
  take_if_unset(b.pci_device_id, e.pci_device_id, 0);
  take_if_unset(b.sm, e.sm, 0);
  take_if_unset(b.memory_gib, e.memory_gib, 0.0);
  take_if_unset(b.pcie_gbps, e.pcie_gbps, 0.0);
  take_if_unset(b.cpu_affinity, e.cpu_affinity, std::string());
  take_if_unset(b.numa_affinity, e.numa_affinity, std::string());
  take_if_unset(b.nvlinks_down, e.nvlinks_down, -1);
  if (b.numa_node >= 0 && e.numa_node >= 0 && b.numa_node != e.numa_node)
    warnings.push_back(source + ": " + gpu_label(b) + " on NUMA node " +
                       std::to_string(e.numa_node) + ", earlier source said " +
                       std::to_string(b.numa_node) + "; kept " + std::to_string(b.numa_node));
  take_if_unset(b.numa_node, e.numa_node, -1);
}

int find_nic(const std::vector<Nic>& nics, const Nic& n) {
  for (size_t i = 0; i < nics.size(); ++i) {
    const Nic& b = nics[i];
    bool other_port = b.port > 0 && n.port > 0 && b.port != n.port;  // Ports of one HCA.
    if (other_port) continue;
    if (b.name == n.name || (!n.netdev.empty() && b.netdev == n.netdev) ||
        (!n.netdev.empty() && b.name == n.netdev) || (!b.netdev.empty() && n.name == b.netdev))
      return static_cast<int>(i);
    if (!b.pci_bus_id.empty() && b.pci_bus_id == n.pci_bus_id && b.port == n.port)
      return static_cast<int>(i);
  }
  return -1;
}

void merge_nic(Nic& b, const Nic& e, const std::vector<int>& gpu_map) {
  take_if_unset(b.netdev, e.netdev, std::string());
  take_if_unset(b.kind, e.kind, NicKind::kUnknown);
  take_if_unset(b.gbps, e.gbps, 0.0);
  take_if_unset(b.numa_node, e.numa_node, -1);
  take_if_unset(b.pci_bus_id, e.pci_bus_id, std::string());
  take_if_unset(b.port, e.port, 0);
  take_if_unset(b.state, e.state, PortState::kUnknown);
  take_if_unset(b.phys_state, e.phys_state, std::string());
  for (size_t i = 0; i < e.gpu_affinity.size() && i < gpu_map.size(); ++i) {
    Affinity& a = b.gpu_affinity[gpu_map[i]];
    if (a == Affinity::kUnknown) a = e.gpu_affinity[i];
  }
}

void merge_nvlink(Topology& base, const Topology& extra, const std::vector<int>& gpu_map,
                  const std::string& source) {
  auto& nv = base.nvlink;
  const auto& en = extra.nvlink;
  int conflicts = 0;
  for (size_t i = 0; i < gpu_map.size(); ++i) {
    int bi = gpu_map[i];
    take_if_unset(nv.switch_links[bi], en.switch_links[i], -1);
    take_if_unset(nv.cpu_links[bi], en.cpu_links[i], 0);
    for (size_t j = 0; j < gpu_map.size(); ++j) {
      int& cell = nv.matrix[bi][gpu_map[j]];
      int other = en.matrix[i][j];
      if (cell < 0) {
        cell = other;
      } else if (other >= 0 && other != cell) {
        ++conflicts;
      }
    }
  }
  nv.via_switch = nv.via_switch || en.via_switch;
  if (conflicts > 0)
    base.warnings.push_back(source + ": NVLink counts differ from an earlier source in " +
                            std::to_string(conflicts) + " matrix cells; kept the earlier ones");
}

}  // namespace

void merge_topology(Topology& base, const Topology& extra) {
  resize_gpu_tables(base);
  Topology e = extra;
  resize_gpu_tables(e);
  std::string source = e.sources.empty() ? std::string("input") : e.sources.front();
  if (!base.gpus.empty() && !e.gpus.empty() && base.gpus.size() != e.gpus.size())
    base.warnings.push_back(source + ": " + std::to_string(e.gpus.size()) +
                            " GPUs, earlier sources " + std::to_string(base.gpus.size()) +
                            "; the union is kept");
  std::vector<int> gpu_map(e.gpus.size());
  for (size_t i = 0; i < e.gpus.size(); ++i) {
    int at = find_gpu(base.gpus, e.gpus[i]);
    if (at < 0) {
      base.gpus.push_back(e.gpus[i]);
      resize_gpu_tables(base);
      at = static_cast<int>(base.gpus.size()) - 1;
    } else {
      merge_gpu(base.gpus[at], e.gpus[i], source, base.warnings);
    }
    gpu_map[i] = at;
  }
  merge_nvlink(base, e, gpu_map, source);
  for (const auto& nic : e.nics) {
    int at = find_nic(base.nics, nic);
    if (at < 0) {
      Nic fresh = nic;
      fresh.gpu_affinity.assign(base.gpus.size(), Affinity::kUnknown);
      base.nics.push_back(fresh);
      at = static_cast<int>(base.nics.size()) - 1;
    }
    merge_nic(base.nics[at], nic, gpu_map);
  }
  if (base.numa_nodes.empty()) base.numa_nodes = e.numa_nodes;
  take_if_unset(base.packages, e.packages, 0);
  take_if_unset(base.cores, e.cores, 0);
  take_if_unset(base.pus, e.pus, 0);
  take_if_unset(base.host, e.host, std::string());
  for (const auto& s : e.sources)
    base.sources.push_back(s);
  for (const auto& w : e.warnings)
    base.warnings.push_back(w);
  for (const auto& n : e.notes)
    base.notes.push_back(n);
  finalize_topology(base);
}

namespace {

/// True when GPUs [first, first + size) are joined pairwise by NVLink.
bool block_fully_linked(const std::vector<std::vector<int>>& m, size_t first, size_t size) {
  for (size_t i = first; i < first + size; ++i)
    for (size_t j = first; j < first + size; ++j)
      if (i != j && (m[i].size() <= j || m[i][j] <= 0)) return false;
  return true;
}

}  // namespace

bool nvlink_unknown(const Topology& node) {
  if (node.nvlink.via_switch) return false;
  const auto& m = node.nvlink.matrix;
  bool unknown = false;
  for (size_t i = 0; i < m.size(); ++i) {
    for (size_t j = 0; j < m[i].size(); ++j) {
      if (i != j && m[i][j] > 0) return false;
      unknown = unknown || (i != j && m[i][j] < 0);
    }
  }
  return unknown;
}

int64_t nvlink_domain_of(const Topology& node) {
  size_t n = node.gpus.size();
  if (n == 0) return 0;
  if (node.nvlink.via_switch) return static_cast<int64_t>(n);
  const auto& m = node.nvlink.matrix;
  if (m.size() != n) return 1;
  // Megatron places consecutive ranks on consecutive GPUs: the domain is the largest block size
  // dividing the node whose every block is fully NVLinked (8 on NVSwitch, 2 on bridge pairs).
  for (size_t size = n; size > 1; --size) {
    if (n % size != 0) continue;
    bool all = true;
    for (size_t first = 0; all && first < n; first += size)
      all = block_fully_linked(m, first, size);
    if (all) return static_cast<int64_t>(size);
  }
  return 1;
}

Status name_unnamed_gpus(Topology& topo, const std::string& device) {
  const GpuSpec* spec = find_gpu_spec(device);
  if (spec == nullptr) {
    std::vector<std::string> keys;
    for (const GpuSpec& s : gpu_spec_table())
      if (is_priced(s)) keys.emplace_back(s.key);
    std::string message = "--gpu-name: '" + device + "' is not in the GPU spec table";
    std::string near = closest_match(device, keys);
    if (!near.empty()) message += " (did you mean '" + near + "'?)";
    message += "; known:";
    for (const auto& k : keys)
      message += " " + k;
    Error e;
    e.message = message;
    e.key = "--gpu-name";
    return e;
  }
  for (Gpu& g : topo.gpus) {
    if (!g.name.empty()) continue;
    g.name = device;
    if (g.sm <= 0) g.sm = spec->sm;
  }
  finalize_topology(topo);
  return Ok{};
}

ClusterProfile cluster_profile_from_topology(const Topology& topo, const std::string& name) {
  ClusterProfile p;
  p.name = name;
  std::string source = topo.sources.empty() ? "probe" : topo.sources.front();
  for (size_t i = 1; i < topo.sources.size(); ++i)
    source += ", " + topo.sources[i];
  p.gpus_per_node = topo.gpus_per_node;
  p.sources["gpus_per_node"] = source;
  const Gpu* first = topo.gpus.empty() ? nullptr : &topo.gpus.front();
  p.description = "Probed by hcp-plan from " + source;
  const GpuSpec* spec = nullptr;
  std::string from;
  if (first != nullptr) {
    p.gpu_name = first->name;
    p.gpu_sm = first->sm;
    p.gpu_memory_gib = first->memory_gib;
    if (p.gpu_memory_gib > 0) p.sources["gpu_memory_gib"] = source;
    p.pcie_gbps_per_gpu = first->pcie_gbps;
    // Figures the probe cannot measure come from the GPU spec table by device name.
    spec = find_gpu_spec(first->name);
    if (spec != nullptr) {
      from = std::string("GPU spec table ") + spec->key + ": " + spec->source;
      p.bf16_dense_tflops = spec->bf16_tflops;
      p.sources["bf16_dense_tflops"] = from;
      if (spec->fp8_tflops > 0) {
        p.fp8_dense_tflops = spec->fp8_tflops;
        p.sources["fp8_dense_tflops"] = from;
      }
      if (p.gpu_sm <= 0) {
        p.gpu_sm = spec->sm;
        p.sources["gpu_sm"] = from;
      }
      if (p.gpu_memory_gib <= 0) {
        p.gpu_memory_gib = spec->memory_gib;
        p.sources["gpu_memory_gib"] = from;
      }
    }
  }
  // The slowest GPU decides what a collective can use.
  double min_gbps = 0;
  for (double g : topo.nvlink.gbps_per_gpu)
    if (g > 0 && (min_gbps == 0 || g < min_gbps)) min_gbps = g;
  bool any_link = topo.nvlink.via_switch;
  for (const auto& row : topo.nvlink.matrix)
    for (int links : row)
      any_link = any_link || links > 0;
  p.nvlink_gbps_per_gpu = min_gbps;
  p.sources["nvlink_gbps_per_gpu"] = source;
  if (min_gbps <= 0 && any_link && spec != nullptr) {
    // The capture shows NVLink but not its rate (no compute capability): the device's figure.
    p.nvlink_gbps_per_gpu = spec->nvlink_gbs;
    p.sources["nvlink_gbps_per_gpu"] = source + " (NVLink present); rate from " + from;
  }
  // The domain is what the NVLink matrix shows (all pairs NV# or NVSwitch: the whole node),
  // whether or not the link rate is known.
  p.nvlink_domain = any_link ? static_cast<int>(nvlink_domain_of(topo)) : 1;
  p.sources["nvlink_domain"] = source;
  if (nvlink_unknown(topo)) {
    // Nothing was measured: say that the PCIe-only values are an assumption to replace.
    const std::string assumed = std::string(kAssumedSourcePrefix) + "no NVLink, since " + source +
                                " does not show it; set nvlink_domain and nvlink_gbps_per_gpu by "
                                "hand";
    p.sources["nvlink_gbps_per_gpu"] = assumed;
    p.sources["nvlink_domain"] = assumed;
  }
  int fabric_nics = 0;
  double gbits = 0;
  for (const auto& nic : topo.nics) {
    if (nic.kind == NicKind::kEthernet) continue;
    ++fabric_nics;
    if (nic.gbps > 0 && (gbits == 0 || nic.gbps < gbits)) gbits = nic.gbps;
  }
  p.nics_per_node = fabric_nics;
  p.nic_gbits = gbits;
  p.sources["nics_per_node"] = source;
  return p;
}

}  // namespace hcp
