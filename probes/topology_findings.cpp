// Findings about a node's topology: what a CP/TP layout on it should know about.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "hcp/topology.h"

namespace hcp {
namespace {

Diagnostic finding(const char* id, Severity s, std::string message, std::string fix) {
  Diagnostic d;
  d.id = id;
  d.severity = s;
  d.message = std::move(message);
  d.key = "topology";
  d.fix = std::move(fix);
  return d;
}

std::string format_gbps(double v) {
  std::ostringstream ss;
  ss << v;
  return ss.str();
}

/// Most frequent value (ties: the larger).
int mode_of(const std::vector<int>& values) {
  std::map<int, int> count;
  for (int v : values)
    ++count[v];
  int best = 0, best_n = 0;
  for (const auto& [v, c] : count)
    if (c >= best_n) {
      best = v;
      best_n = c;
    }
  return best;
}

void check_asymmetric(const Topology& t, std::vector<Diagnostic>& out) {
  const auto& m = t.nvlink.matrix;
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = i + 1; j < m.size(); ++j)
      if (m[i][j] >= 0 && m[j][i] >= 0 && m[i][j] != m[j][i])
        out.push_back(finding("TOPO001", Severity::kWarning,
                              "NVLink asymmetric: GPU " + std::to_string(t.gpus[i].index) + " -> " +
                                  std::to_string(t.gpus[j].index) + " has " +
                                  std::to_string(m[i][j]) + " links, the reverse " +
                                  std::to_string(m[j][i]),
                              "check `nvidia-smi nvlink -s` on both GPUs; a link may be down"));
}

void check_links_down(const Topology& t, std::vector<Diagnostic>& out) {
  std::vector<int> known;
  for (int l : t.nvlink.links_per_gpu)
    if (l >= 0) known.push_back(l);
  int majority = known.size() >= 2 ? mode_of(known) : 0;
  for (size_t i = 0; i < t.gpus.size(); ++i) {
    int links = i < t.nvlink.links_per_gpu.size() ? t.nvlink.links_per_gpu[i] : -1;
    const Gpu& g = t.gpus[i];
    if (g.nvlinks_down > 0) {
      out.push_back(finding("TOPO002", Severity::kWarning,
                            "GPU " + std::to_string(g.index) + " has " +
                                std::to_string(g.nvlinks_down) + " NVLinks down",
                            "reset the GPU or check the NVLink/NVSwitch fabric (nvidia-smi nvlink "
                            "-s, fabric manager)"));
    } else if (majority > 0 && links >= 0 && links < majority) {
      out.push_back(finding("TOPO002", Severity::kWarning,
                            "GPU " + std::to_string(g.index) + " has " + std::to_string(links) +
                                " active NVLinks, most GPUs have " + std::to_string(majority) +
                                ": links down or disabled",
                            "check `nvidia-smi nvlink -s` and the fabric manager; collectives over "
                            "this GPU run at its reduced bandwidth"));
    }
  }
}

/// NICs that carry training traffic: Ethernet management ports are left out when any
/// InfiniBand/RoCE/EFA (or unnamed) NIC exists.
std::vector<const Nic*> fabric_nics(const Topology& t) {
  std::vector<const Nic*> fabric, all;
  for (const auto& n : t.nics) {
    all.push_back(&n);
    if (n.kind != NicKind::kEthernet) fabric.push_back(&n);
  }
  return fabric.empty() ? all : fabric;
}

void check_gpu_without_nic(const Topology& t, std::vector<Diagnostic>& out) {
  auto nics = fabric_nics(t);
  // GPUs grouped by their best NIC level, so one finding names them all.
  std::map<Affinity, std::vector<int>> by_level;
  std::map<Affinity, std::set<std::string>> nearest_nics;
  for (size_t i = 0; i < t.gpus.size(); ++i) {
    Affinity best = Affinity::kUnknown;
    std::string nearest;
    for (const Nic* n : nics) {
      if (i >= n->gpu_affinity.size()) continue;
      Affinity a = n->gpu_affinity[i];
      if (a < best) {
        best = a;
        nearest = n->name;
      }
    }
    if (best == Affinity::kUnknown || best == Affinity::kSameSwitch) continue;
    by_level[best].push_back(t.gpus[i].index);
    nearest_nics[best].insert(nearest);
  }
  for (const auto& [level, gpus] : by_level) {
    std::string list, nics_text;
    for (size_t k = 0; k < gpus.size(); ++k)
      list += (k ? "," : "") + std::to_string(gpus[k]);
    for (const auto& n : nearest_nics[level])
      nics_text += (nics_text.empty() ? "" : ", ") + n;
    out.push_back(finding("TOPO003", Severity::kWarning,
                          std::string(gpus.size() == 1 ? "GPU " : "GPUs ") + list +
                              (gpus.size() == 1 ? " has" : " have") +
                              (gpus.size() == 1 ? " no NIC on its" : " no NIC on their") +
                              " PCIe switch (nearest: " + nics_text + ", " + affinity_name(level) +
                              ")",
                          "GPUDirect RDMA from these GPUs crosses the PCIe root or the CPU; expect "
                          "lower inter-node bandwidth, or route through NVLink peers (NCCL PXN)"));
  }
}

void check_mixed_speed(const Topology& t, std::vector<Diagnostic>& out) {
  std::map<double, std::vector<std::string>> by_speed;
  for (const Nic* n : fabric_nics(t))
    if (n->gbps > 0) by_speed[n->gbps].push_back(n->name);
  if (by_speed.size() < 2) return;
  std::string list;
  for (const auto& [gbps, names] : by_speed) {
    list += (list.empty() ? "" : "; ") + format_gbps(gbps) + " Gb/s:";
    for (const auto& n : names)
      list += " " + n;
  }
  out.push_back(finding("TOPO004", Severity::kWarning, "NICs of mixed speed (" + list + ")",
                        "NCCL rings run at the slowest NIC; set NCCL_IB_HCA to the fast ones"));
}

void check_numa_split(const Topology& t, std::vector<Diagnostic>& out) {
  std::map<int, std::vector<int>> by_node;
  for (const auto& g : t.gpus)
    if (g.numa_node >= 0) by_node[g.numa_node].push_back(g.index);
  if (by_node.size() < 2) return;
  std::string list;
  for (const auto& [node, gpus] : by_node) {
    list += (list.empty() ? "" : "; ") + std::string("node ") + std::to_string(node) + ": GPU";
    for (size_t k = 0; k < gpus.size(); ++k)
      list += (k ? "," : " ") + std::to_string(gpus[k]);
  }
  out.push_back(finding("TOPO005", Severity::kInfo, "GPUs split across NUMA nodes (" + list + ")",
                        "bind each rank's CPU threads and memory to its GPU's NUMA node "
                        "(numactl, or the launcher's --cpu-bind)"));
}

}  // namespace

std::vector<Diagnostic> topology_findings(const Topology& topo) {
  std::vector<Diagnostic> out;
  check_asymmetric(topo, out);
  check_links_down(topo, out);
  check_gpu_without_nic(topo, out);
  check_mixed_speed(topo, out);
  check_numa_split(topo, out);
  return out;
}

}  // namespace hcp
