// Many nodes: compare every node's topology with the majority (GPU count, NVLink matrix, NIC
// count, NIC speeds) so one odd node in a large job is named by host.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "hcp/topology.h"

namespace hcp {
namespace {

std::string matrix_key(const Topology& t) {
  std::string key;
  for (const auto& row : t.nvlink.matrix) {
    for (int v : row)
      key += std::to_string(v) + ",";
    key += ";";
  }
  return key;
}

/// Distinct known speeds of the fabric NICs ("200,400"); NIC counts are compared separately.
std::string speeds_key(const Topology& t) {
  std::set<double> speeds;
  for (const auto& n : t.nics)
    if (n.kind != NicKind::kEthernet && n.gbps > 0) speeds.insert(n.gbps);
  std::string key;
  for (double s : speeds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    key += (key.empty() ? "" : ",") + std::string(buf);
  }
  return key.empty() ? "unknown" : key;
}

/// Fabric ports whose state is ACTIVE ("unknown" when no port state is known, as in captures).
std::string active_fabric_ports(const Topology& t) {
  int known = 0, active = 0;
  for (const auto& n : t.nics) {
    if (n.kind == NicKind::kEthernet || n.state == PortState::kUnknown) continue;
    ++known;
    active += port_active(n.state) ? 1 : 0;
  }
  return known == 0 ? "unknown" : std::to_string(active);
}

std::string fabric_nic_count(const Topology& t) {
  return std::to_string(std::count_if(t.nics.begin(), t.nics.end(),
                                      [](const Nic& n) { return n.kind != NicKind::kEthernet; }));
}

/// One compared property: how to read it and how to describe a difference.
struct Property {
  std::function<std::string(const Topology&)> key;
  std::function<std::string(const std::string& mine, const std::string& majority)> describe;
};

}  // namespace

std::string majority_of(const std::vector<std::string>& keys) {
  std::map<std::string, int> count;
  for (const auto& k : keys)
    ++count[k];
  std::string best;
  int best_n = -1;
  for (const auto& k : keys)  // first-seen wins ties, so rank order decides
    if (count[k] > best_n) {
      best = k;
      best_n = count[k];
    }
  return best;
}

ClusterSummary summarize_cluster(const std::vector<Topology>& all) {
  // Several ranks on one host probe the same node: keep the first per host.
  std::vector<const Topology*> nodes;
  std::set<std::string> seen;
  for (const auto& t : all)
    if (seen.insert(t.host).second) nodes.push_back(&t);

  ClusterSummary s;
  s.node_count = static_cast<int>(nodes.size());
  for (const auto* t : nodes)
    s.hosts.push_back(t->host);
  const std::vector<Property> props = {
      {[](const Topology& t) { return std::to_string(t.gpus.size()); },
       [](const std::string& m, const std::string& maj) {
         return m + " GPUs (majority: " + maj + ")";
       }},
      {matrix_key,
       [](const std::string&, const std::string&) {
         return std::string("NVLink matrix differs from the majority");
       }},
      {fabric_nic_count,
       [](const std::string& m, const std::string& maj) {
         return m + " NICs (majority: " + maj + ")";
       }},
      {speeds_key,
       [](const std::string& m, const std::string& maj) {
         return "NIC speeds " + m + " Gb/s (majority: " + maj + ")";
       }},
      {active_fabric_ports,
       [](const std::string& m, const std::string& maj) {
         return m + " active NIC ports (majority: " + maj + ")";
       }},
  };
  std::map<std::string, NodeDifference> diffs;
  for (const auto& p : props) {
    std::vector<std::string> keys;
    for (const auto* t : nodes)
      keys.push_back(p.key(*t));
    std::string majority = majority_of(keys);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (keys[i] == majority) continue;
      auto& d = diffs[nodes[i]->host];
      d.host = nodes[i]->host;
      d.differences.push_back(p.describe(keys[i], majority));
    }
  }
  for (const auto* t : nodes)
    if (diffs.count(t->host)) s.odd_nodes.push_back(diffs[t->host]);
  return s;
}

nlohmann::json cluster_summary_to_json(const ClusterSummary& s) {
  nlohmann::json odd = nlohmann::json::array();
  for (const auto& d : s.odd_nodes)
    odd.push_back({{"host", d.host}, {"differences", d.differences}});
  return {{"nodes", s.node_count}, {"hosts", s.hosts}, {"differing_nodes", odd}};
}

std::string cluster_summary_text(const ClusterSummary& s) {
  std::ostringstream out;
  out << "Cluster: " << s.node_count << " node" << (s.node_count == 1 ? "" : "s") << "\n";
  if (s.odd_nodes.empty()) {
    out << "All nodes match (GPU count, NVLink matrix, NIC count and speed).\n";
    return out.str();
  }
  out << "Nodes that differ from the majority:\n";
  for (const auto& d : s.odd_nodes) {
    out << "  " << d.host << ":";
    for (size_t k = 0; k < d.differences.size(); ++k)
      out << (k ? "; " : " ") << d.differences[k];
    out << "\n";
  }
  return out.str();
}

}  // namespace hcp
