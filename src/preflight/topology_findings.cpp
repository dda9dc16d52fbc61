// Findings about a node's topology (TOPO001-TOPO005): what a CP/TP layout on it should know
// about. `probe` describes the node with them; preflight, about to launch on it, reports them with
// the severity its catalog cases give there (a broken NVLink blocks the launch). Severity and fix
// come from the catalog entries (src/rules/rules_launch.cpp).
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "hcp/preflight.h"
#include "hcp/rules.h"

namespace hcp {
namespace {

/// Who reports the findings: `probe` (about the topology) or preflight (about the node a launch
/// starts on).
struct Reporting {
  bool preflight = false;
  std::string key() const { return preflight ? "node" : "topology"; }
};

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

void check_asymmetric(const Topology& t, const Reporting& by, std::vector<Diagnostic>& out) {
  const auto& m = t.nvlink.matrix;
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = i + 1; j < m.size(); ++j)
      if (m[i][j] >= 0 && m[j][i] >= 0 && m[i][j] != m[j][i])
        out.push_back(finding("TOPO001", by.key(),
                              "NVLink asymmetric: GPU " + std::to_string(t.gpus[i].index) + " -> " +
                                  std::to_string(t.gpus[j].index) + " has " +
                                  std::to_string(m[i][j]) + " links, the reverse " +
                                  std::to_string(m[j][i]),
                              by.preflight ? "preflight" : ""));
}

void check_links_down(const Topology& t, const Reporting& by, std::vector<Diagnostic>& out) {
  std::vector<int> known;
  for (int l : t.nvlink.links_per_gpu)
    if (l >= 0) known.push_back(l);
  int majority = known.size() >= 2 ? mode_of(known) : 0;
  for (size_t i = 0; i < t.gpus.size(); ++i) {
    int links = i < t.nvlink.links_per_gpu.size() ? t.nvlink.links_per_gpu[i] : -1;
    const Gpu& g = t.gpus[i];
    if (g.nvlinks_down > 0) {
      out.push_back(finding("TOPO002", by.key(),
                            "GPU " + std::to_string(g.index) + " has " +
                                std::to_string(g.nvlinks_down) + " NVLinks down",
                            by.preflight ? "preflight" : ""));
    } else if (majority > 0 && links >= 0 && links < majority) {
      out.push_back(finding("TOPO002", by.key(),
                            "GPU " + std::to_string(g.index) + " has " + std::to_string(links) +
                                " active NVLinks, most GPUs have " + std::to_string(majority) +
                                ": links down or disabled",
                            by.preflight ? "fewer_links_preflight" : "fewer_links"));
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

void check_gpu_without_nic(const Topology& t, const Reporting& by, std::vector<Diagnostic>& out) {
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
    out.push_back(finding("TOPO003", by.key(),
                          std::string(gpus.size() == 1 ? "GPU " : "GPUs ") + list +
                              (gpus.size() == 1 ? " has" : " have") +
                              (gpus.size() == 1 ? " no NIC on its" : " no NIC on their") +
                              " PCIe switch (nearest: " + nics_text + ", " + affinity_name(level) +
                              ")"));
  }
}

void check_mixed_speed(const Topology& t, const Reporting& by, std::vector<Diagnostic>& out) {
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
  out.push_back(finding("TOPO004", by.key(), "NICs of mixed speed (" + list + ")"));
}

void check_numa_split(const Topology& t, const Reporting& by, std::vector<Diagnostic>& out) {
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
  out.push_back(finding("TOPO005", by.key(), "GPUs split across NUMA nodes (" + list + ")"));
}

std::vector<Diagnostic> findings_for(const Topology& topo, const Reporting& by) {
  std::vector<Diagnostic> out;
  check_asymmetric(topo, by, out);
  check_links_down(topo, by, out);
  check_gpu_without_nic(topo, by, out);
  check_mixed_speed(topo, by, out);
  check_numa_split(topo, by, out);
  return out;
}

}  // namespace

std::vector<Diagnostic> topology_findings(const Topology& topo) {
  return findings_for(topo, Reporting{.preflight = false});
}

std::vector<Diagnostic> preflight_topology_findings(const Topology& node) {
  return findings_for(node, Reporting{.preflight = true});
}

}  // namespace hcp
