// Preflight on many nodes: rank 0 combines every node's report into one cluster verdict, naming
// the nodes that fail or differ from the majority (hardware, versions, CP-relevant variables).
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "hcp/preflight.h"
#include "hcp/rules.h"
#include "hcp/text_util.h"
#include "preflight_format.h"

namespace hcp {
namespace {

using namespace preflight_format;

/// A cluster finding: about the nodes together, so without a recipe key.
Diagnostic cluster_finding(const char* id, std::string message) {
  return finding(id, "", std::move(message));
}

std::string label_of(const NodePreflight& n) {
  return n.host.empty() ? "rank " + std::to_string(n.rank) : n.host;
}

int cluster_exit_code(const std::vector<NodePreflight>& nodes, bool go) {
  bool bad_input = false, unprobed = false;
  for (const NodePreflight& n : nodes) {
    bad_input = bad_input || n.exit_code == 2;
    unprobed = unprobed || n.exit_code == 3;
  }
  if (bad_input) return 2;
  if (unprobed) return 3;
  return go ? 0 : 1;
}

/// Accumulates findings, each distinct one once with the nodes that reported it.
class FindingMerger {
 public:
  void add(const std::string& source, const Diagnostic& d, const std::string& host) {
    auto key = std::make_tuple(source, d.id(), static_cast<int>(d.severity()), d.key, d.message);
    auto [it, fresh] = index_.emplace(key, merged_.size());
    if (fresh) merged_.push_back({source, d, {}, false});
    std::vector<std::string>& hosts = merged_[it->second].hosts;
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  std::vector<ClusterFinding> take(size_t checked_nodes) {
    for (ClusterFinding& f : merged_)
      f.every_node = f.hosts.size() == checked_nodes && checked_nodes > 1;
    std::stable_sort(merged_.begin(), merged_.end(),
                     [](const ClusterFinding& a, const ClusterFinding& b) {
                       return a.diagnostic.severity() > b.diagnostic.severity();
                     });
    return std::move(merged_);
  }

 private:
  std::map<std::tuple<std::string, std::string, int, std::string, std::string>, size_t> index_;
  std::vector<ClusterFinding> merged_;
};

/// One compared fact of the nodes (a package version, a variable): its value on each node.
struct Fact {
  std::string label;                ///< "transformer-engine", "CUDA driver", "NCCL_IB_HCA".
  const char* id;                   ///< PF301 or PF302.
  std::vector<std::string> values;  ///< By position in the checked nodes.
};

std::string json_text(const nlohmann::json& j, const std::string& key, const char* missing) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string(missing);
}

/// Package versions, the driver and the CP-relevant variables of every checked node.
std::vector<Fact> software_facts(const std::vector<const NodePreflight*>& nodes) {
  std::set<std::string> packages, variables;
  for (const NodePreflight* n : nodes) {
    const nlohmann::json& env = n->report->environment;
    if (auto it = env.find("packages"); it != env.end() && it->is_object())
      for (const auto& [name, v] : it->items())
        packages.insert(name);
    if (auto it = env.find("variables"); it != env.end() && it->is_object())
      for (const auto& [name, v] : it->items())
        variables.insert(name);
  }
  std::vector<Fact> facts;
  auto collect = [&](const std::string& label, const char* id, const std::string& section,
                     const std::string& key, const char* missing) {
    Fact f{label, id, {}};
    for (const NodePreflight* n : nodes) {
      const nlohmann::json& env = n->report->environment;
      const nlohmann::json& part = section.empty() ? env : env.value(section, nlohmann::json());
      f.values.push_back(part.is_object() ? json_text(part, key, missing) : missing);
    }
    facts.push_back(std::move(f));
  };
  for (const std::string& p : packages)
    collect(p, "PF301", "packages", p, "not installed");
  collect("CUDA driver", "PF302", "", "driver_version", "unknown");
  for (const std::string& v : variables)
    collect(v, "PF302", "variables", v, "unset");
  return facts;
}

/// Software and variable differences: findings and per-host difference lines.
void compare_software(const std::vector<const NodePreflight*>& nodes, FindingMerger& merger,
                      std::map<std::string, std::vector<std::string>>& differences) {
  for (const Fact& f : software_facts(nodes)) {
    std::string majority = majority_of(f.values);
    std::string odd;
    std::vector<std::string> hosts;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (f.values[i] == majority) continue;
      std::string host = label_of(*nodes[i]);
      std::string line = f.label + " " + f.values[i] + " (majority: " + majority + ")";
      differences[host].push_back(line);
      odd += (odd.empty() ? "" : ", ") + f.values[i] + " on " + host;
      hosts.push_back(host);
    }
    if (hosts.empty()) continue;
    Diagnostic d = cluster_finding(
        f.id, f.label + " differs across the nodes: " + odd + " (majority: " + majority + ")");
    for (const std::string& h : hosts)
      merger.add("cluster", d, h);
  }
}

/// GPU count, NVLink matrix and NICs against the majority (the probe's comparison).
void compare_hardware(const std::vector<const NodePreflight*>& nodes, FindingMerger& merger,
                      std::map<std::string, std::vector<std::string>>& differences) {
  std::vector<Topology> topologies;
  for (const NodePreflight* n : nodes) {
    if (!n->topology) continue;
    topologies.push_back(*n->topology);
    topologies.back().host = label_of(*n);
  }
  for (const NodeDifference& odd : summarize_cluster(topologies).odd_nodes) {
    std::string joined;
    for (const std::string& d : odd.differences) {
      differences[odd.host].push_back(d);
      joined += (joined.empty() ? "" : "; ") + d;
    }
    merger.add("cluster",
               cluster_finding("PF303", odd.host + " differs from the other nodes: " + joined),
               odd.host);
  }
}

/// Several preflight ranks on one host (PF304) and fewer hosts than the launch says (PF305).
void check_coverage(const std::vector<NodePreflight>& nodes, const LaunchShape& launch,
                    FindingMerger& merger) {
  std::map<std::string, int> ranks_per_host;
  for (const NodePreflight& n : nodes)
    ++ranks_per_host[label_of(n)];
  for (const auto& [host, ranks] : ranks_per_host) {
    if (ranks < 2) continue;
    merger.add("cluster",
               cluster_finding("PF304", std::to_string(ranks) + " preflight ranks ran on " + host +
                                            "; the cluster report counts it once"),
               host);
  }
  int64_t hosts = static_cast<int64_t>(ranks_per_host.size());
  if (launch.nodes && *launch.nodes > hosts) {
    merger.add("cluster",
               cluster_finding("PF305", "the launch has " + std::to_string(*launch.nodes) +
                                            " nodes but preflight ran on " + std::to_string(hosts)),
               label_of(nodes.front()));
  }
}

}  // namespace

nlohmann::json node_preflight_to_json(const NodePreflight& n) {
  nlohmann::json j = {{"rank", n.rank},       {"host", n.host},    {"exit_code", n.exit_code},
                      {"problem", n.problem}, {"report", nullptr}, {"topology", nullptr}};
  if (n.report) j["report"] = preflight_json(*n.report);
  if (n.topology) j["topology"] = topology_to_json(*n.topology);
  return j;
}

Result<NodePreflight> node_preflight_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("rank") || !j["rank"].is_number_integer() ||
      !j.contains("exit_code") || !j["exit_code"].is_number_integer())
    return Error{"malformed node report from " + source + ": expected rank and exit_code",
                 Location{source, 0, 0}, ""};
  NodePreflight n;
  n.rank = j["rank"].get<int>();
  n.host = j.value("host", "");
  n.exit_code = j["exit_code"].get<int>();
  n.problem = j.value("problem", "");
  if (j.contains("report") && !j["report"].is_null()) {
    auto r = preflight_report_from_json(j["report"], source);
    if (!r) return r.error();
    n.report = std::move(*r);
  }
  if (j.contains("topology") && !j["topology"].is_null()) {
    auto t = topology_from_json(j["topology"], source);
    if (!t) return t.error();
    n.topology = std::move(*t);
  }
  return n;
}

ClusterPreflightReport aggregate_preflight(std::vector<NodePreflight> nodes) {
  ClusterPreflightReport c;
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const NodePreflight& a, const NodePreflight& b) { return a.rank < b.rank; });
  std::vector<const NodePreflight*> checked;
  for (const NodePreflight& n : nodes)
    if (n.report) checked.push_back(&n);
  if (!checked.empty()) {
    c.recipe = checked.front()->report->recipe;
    c.launch = checked.front()->report->launch;
  }
  FindingMerger merger;
  for (const NodePreflight* n : checked)
    for (const PreflightFinding& f : n->report->findings)
      merger.add(f.source, f.diagnostic, label_of(*n));
  std::map<std::string, std::vector<std::string>> differences;
  compare_hardware(checked, merger, differences);
  compare_software(checked, merger, differences);
  if (!nodes.empty()) check_coverage(nodes, c.launch, merger);
  c.findings = merger.take(checked.size());
  for (const NodePreflight* n : checked) {
    auto it = differences.find(label_of(*n));
    if (it != differences.end()) c.differing_nodes.push_back({it->first, it->second});
  }
  std::vector<Diagnostic> all;
  for (const ClusterFinding& f : c.findings)
    all.push_back(f.diagnostic);
  c.summary = summarize(all);
  bool every_node_go = !checked.empty() && checked.size() == nodes.size();
  for (const NodePreflight* n : checked)
    every_node_go = every_node_go && n->report->go;
  c.go = every_node_go && c.summary.errors == 0;
  c.exit_code = cluster_exit_code(nodes, c.go);
  c.nodes = std::move(nodes);
  return c;
}

std::string cluster_preflight_text(const ClusterPreflightReport& c) {
  std::ostringstream ss;
  std::vector<std::string> failing;
  for (const NodePreflight& n : c.nodes)
    if (n.exit_code != 0) failing.push_back(label_of(n));
  ss << (c.go ? "GO" : "NO-GO") << " for the cluster: " << c.nodes.size()
     << (c.nodes.size() == 1 ? " node" : " nodes");
  if (!failing.empty()) {
    ss << ", " << failing.size() << " failing (";
    for (size_t i = 0; i < failing.size(); ++i)
      ss << (i ? ", " : "") << failing[i];
    ss << ")";
  }
  ss << "; " << counts_text(c.summary) << "\n";
  ss << "recipe " << one_line(c.recipe) << " on " << shape_text(c.launch) << "\n";
  ss << "\nnodes:\n";
  for (const NodePreflight& n : c.nodes) {
    ss << "  rank " << n.rank << "  " << label_of(n) << "  ";
    if (n.report)
      ss << (n.report->go ? "GO" : "NO-GO") << "  " << counts_text(n.report->summary) << "\n";
    else
      ss << "not checked (exit " << n.exit_code << "): " << n.problem << "\n";
  }
  if (!c.differing_nodes.empty()) {
    ss << "\nnodes that differ from the majority:\n";
    for (const NodeDifference& d : c.differing_nodes) {
      ss << "  " << d.host << ":";
      for (size_t i = 0; i < d.differences.size(); ++i)
        ss << (i ? "; " : " ") << d.differences[i];
      ss << "\n";
    }
  }
  for (const char* source : {"recipe", "environment", "node", "cluster"}) {
    std::ostringstream group;
    for (const ClusterFinding& f : c.findings) {
      if (f.source != source) continue;
      append_finding(group, f.diagnostic);
      if (f.every_node) {
        group << "      on every node\n";
      } else if (c.nodes.size() > 1) {
        group << "      on";
        for (size_t i = 0; i < f.hosts.size(); ++i)
          group << (i ? ", " : " ") << f.hosts[i];
        group << "\n";
      }
    }
    ss << "\n" << source << ":\n" << (group.str().empty() ? "  no findings\n" : group.str());
  }
  return ss.str();
}

nlohmann::json cluster_preflight_json(const ClusterPreflightReport& c) {
  nlohmann::json j;
  j["verdict"] = c.go ? "GO" : "NO-GO";
  j["exit_code"] = c.exit_code;
  j["summary"] = summary_json(c.summary);
  j["recipe"] = c.recipe;
  j["launch"] = launch_json(c.launch);
  j["nodes"] = nlohmann::json::array();
  for (const NodePreflight& n : c.nodes) {
    nlohmann::json node = {{"rank", n.rank}, {"host", label_of(n)}, {"problem", n.problem}};
    node["verdict"] = n.report ? (n.report->go ? "GO" : "NO-GO") : "NOT-CHECKED";
    node["summary"] = n.report ? summary_json(n.report->summary) : nlohmann::json(nullptr);
    node["environment"] = n.report ? n.report->environment : nlohmann::json(nullptr);
    node["node"] = n.report ? n.report->node : nlohmann::json(nullptr);
    j["nodes"].push_back(std::move(node));
  }
  j["differing_nodes"] = nlohmann::json::array();
  for (const NodeDifference& d : c.differing_nodes)
    j["differing_nodes"].push_back({{"host", d.host}, {"differences", d.differences}});
  j["diagnostics"] = nlohmann::json::array();
  for (const ClusterFinding& f : c.findings) {
    nlohmann::json d = finding_json(f.source, f.diagnostic);
    d["hosts"] = f.hosts;
    d["every_node"] = f.every_node;
    j["diagnostics"].push_back(std::move(d));
  }
  return j;
}

}  // namespace hcp
