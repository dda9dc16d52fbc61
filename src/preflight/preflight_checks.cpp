// Preflight checks of the node (GPU count, NVLink health, NICs, group placement) and of the NCCL
// variables that pin or exclude NICs and transports.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "hcp/layout.h"
#include "hcp/preflight.h"
#include "hcp/rules.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const std::string* value_of(const EnvMap& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

bool multi_node(const LaunchShape& launch) {
  return launch.nodes && *launch.nodes > 1;
}

/// NICs that carry RDMA traffic (InfiniBand, RoCE, EFA, or of unknown kind).
std::vector<const Nic*> rdma_nics(const Topology& node) {
  std::vector<const Nic*> out;
  for (const Nic& n : node.nics)
    if (n.kind != NicKind::kEthernet) out.push_back(&n);
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item.substr(0, item.find(':')));
  return out;
}

/// True when the NIC carries its device name ("mlx5_0"), not a placeholder ("NIC0", a bus id).
bool has_device_name(const Nic* nic) {
  const std::string& n = nic->name;
  bool placeholder = n.size() > 3 && n.rfind("NIC", 0) == 0 &&
                     std::all_of(n.begin() + 3, n.end(), [](char c) { return std::isdigit(c); });
  return !n.empty() && !placeholder && n.find(':') == std::string::npos;
}

/// NCCL_IB_HCA parsed: "^" excludes, "=" matches exactly, otherwise entries are name prefixes
/// (a ":port" suffix is ignored).
struct HcaFilter {
  bool exclude = false;
  bool exact = false;
  std::vector<std::string> entries;

  bool names(const std::string& entry, const Nic& nic) const {
    return exact ? nic.name == entry : nic.name.rfind(entry, 0) == 0;
  }
  bool lists(const Nic& nic) const {
    return std::any_of(entries.begin(), entries.end(),
                       [&](const std::string& e) { return names(e, nic); });
  }
  /// True when NCCL would use this NIC under the filter.
  bool selects(const Nic& nic) const { return lists(nic) != exclude; }
};

HcaFilter parse_ib_hca(std::string text) {
  HcaFilter f;
  f.exclude = !text.empty() && text.front() == '^';
  if (f.exclude) text.erase(0, 1);
  f.exact = !text.empty() && text.front() == '=';
  if (f.exact) text.erase(0, 1);
  f.entries = split_list(text);
  return f;
}

/// The NCCL_IB_HCA filter when it is set and the node's RDMA NICs carry device names to match.
std::optional<HcaFilter> ib_hca_filter(const EnvMap& env, const std::vector<const Nic*>& nics) {
  const std::string* hca = value_of(env, "NCCL_IB_HCA");
  // Captures without a NIC legend name ports "NIC0" or by PCI bus id: nothing to compare.
  if (!hca || hca->empty() || nics.empty() ||
      !std::all_of(nics.begin(), nics.end(), has_device_name))
    return std::nullopt;
  return parse_ib_hca(*hca);
}

/// NCCL_IB_HCA as a finding quotes it: whole when short, else its first 120 bytes and the number
/// of names (a value of 400,000 names made one 3.6 MB line).
std::string quoted_hca(const std::string& hca, size_t names) {
  constexpr size_t kMaxQuoted = 120;
  if (hca.size() <= kMaxQuoted) return "'" + hca + "'";
  return "'" + std::string(utf8_prefix(hca, kMaxQuoted)) + "...' (" + std::to_string(names) +
         " names, " + std::to_string(hca.size()) + " bytes)";
}

void check_ib_hca(const EnvMap& env, const Topology& node, std::vector<Diagnostic>& out) {
  auto nics = rdma_nics(node);
  auto filter = ib_hca_filter(env, nics);
  if (!filter) return;
  const std::string& hca = *value_of(env, "NCCL_IB_HCA");
  const std::string key = "env:NCCL_IB_HCA";
  int selected = static_cast<int>(
      std::count_if(nics.begin(), nics.end(), [&](const Nic* n) { return filter->selects(*n); }));
  std::set<std::string_view> reported;  // Each unknown name once, however often it repeats.
  for (const std::string& entry : filter->entries) {
    if (!reported.insert(entry).second) continue;
    bool known = std::any_of(nics.begin(), nics.end(),
                             [&](const Nic* n) { return filter->names(entry, *n); });
    if (!known && !filter->exclude)
      out.push_back(finding("PF101", key,
                            "NCCL_IB_HCA names '" + entry + "', which this node does not have"));
  }
  int total = static_cast<int>(nics.size());
  if (selected == 0) {
    out.push_back(finding("PF101", key,
                          "NCCL_IB_HCA=" + quoted_hca(hca, filter->entries.size()) +
                              " leaves none of the node's " + std::to_string(total) +
                              " RDMA NICs to NCCL",
                          "none_selected"));
  } else if (selected < total) {
    out.push_back(finding("PF101", key,
                          "NCCL_IB_HCA=" + quoted_hca(hca, filter->entries.size()) +
                              " pins NCCL to " + std::to_string(selected) + " of the node's " +
                              std::to_string(total) + " RDMA NICs",
                          "subset"));
  }
}

void check_transport_switches(const EnvMap& env, const Topology& node, const LaunchShape& launch,
                              const Recipe& recipe, std::vector<Diagnostic>& out) {
  bool rdma = !rdma_nics(node).empty();
  if (const std::string* v = value_of(env, "NCCL_SOCKET_IFNAME"))
    out.push_back(finding("PF102", "env:NCCL_SOCKET_IFNAME",
                          "NCCL_SOCKET_IFNAME='" + *v +
                              "' pins NCCL's bootstrap (and any socket transport) to those "
                              "interfaces"));
  const std::string* net = value_of(env, "NCCL_NET");
  if (net && lower(*net) == "socket" && multi_node(launch) && rdma)
    out.push_back(finding("PF103", "env:NCCL_NET",
                          "NCCL_NET=Socket sends inter-node traffic over TCP although the node has "
                          "RDMA NICs"));
  const std::string* ib_off = value_of(env, "NCCL_IB_DISABLE");
  if (ib_off && *ib_off == "1" && multi_node(launch) && rdma)
    out.push_back(finding("PF104", "env:NCCL_IB_DISABLE",
                          "NCCL_IB_DISABLE=1 turns off InfiniBand/RoCE for a multi-node launch"));
  Layout p = layout_of(recipe);
  const std::string* p2p_off = value_of(env, "NCCL_P2P_DISABLE");
  if (p2p_off && *p2p_off == "1" && (p.tp > 1 || p.cp > 1))
    out.push_back(finding("PF105", "env:NCCL_P2P_DISABLE",
                          "NCCL_P2P_DISABLE=1 routes TP/CP traffic inside the node through host "
                          "memory instead of NVLink"));
  const std::string* nvls = value_of(env, "NCCL_NVLS_ENABLE");
  if (nvls && *nvls == "0")
    out.push_back(finding("PF106", "env:NCCL_NVLS_ENABLE",
                          "NCCL_NVLS_ENABLE=0 disables NVLink SHARP collectives"));
}

/// GPU count against the launch shape.
void check_gpu_count(const Topology& node, const LaunchShape& launch,
                     std::vector<Diagnostic>& out) {
  int64_t visible = static_cast<int64_t>(node.gpus.size());
  if (visible == 0) {
    out.push_back(finding(
        "PF201", "node",
        "no NVIDIA GPU visible on this node" +
            (launch.gpus_per_node && !launch.gpus_from_probe
                 ? " (the launch asks for " + std::to_string(*launch.gpus_per_node) + " per node)"
                 : std::string()),
        "no_gpu"));
    return;
  }
  if (!launch.gpus_per_node || launch.gpus_from_probe) return;
  int64_t wanted = *launch.gpus_per_node;
  if (visible < wanted)
    out.push_back(finding("PF201", "node",
                          std::to_string(visible) + " GPUs visible, the launch asks for " +
                              std::to_string(wanted) + " per node"));
  else if (visible > wanted)
    out.push_back(finding("PF201", "node",
                          std::to_string(visible) + " GPUs visible, the launch uses " +
                              std::to_string(wanted) + " per node; the rest stay idle",
                          "idle"));
}

void check_nics(const Topology& node, const LaunchShape& launch, std::vector<Diagnostic>& out) {
  if (!multi_node(launch) || node.gpus.empty()) return;
  if (rdma_nics(node).empty())
    out.push_back(finding("PF203", "node",
                          "the launch spans " + std::to_string(*launch.nodes) +
                              " nodes but this node shows no InfiniBand/RoCE/EFA NIC" +
                              (node.nics.empty() ? "" : " (only Ethernet)")));
}

/// "mlx5_2 (DOWN, Disabled)"; the port is named when the HCA has several ("mlx5_0:2").
std::string port_label(const Nic& nic) {
  std::string label = nic.name + (nic.port > 1 ? ":" + std::to_string(nic.port) : "");
  label += std::string(" (") + port_state_name(nic.state);
  if (!nic.phys_state.empty()) label += ", " + nic.phys_state;
  return label + ")";
}

/// The RDMA NICs NCCL would use: every one, or those NCCL_IB_HCA selects.
std::vector<const Nic*> nccl_rdma_nics(const EnvMap& env, const Topology& node) {
  auto nics = rdma_nics(node);
  if (auto filter = ib_hca_filter(env, nics))
    nics.erase(std::remove_if(nics.begin(), nics.end(),
                              [&](const Nic* n) { return !filter->selects(*n); }),
               nics.end());
  return nics;
}

/// PF206: RDMA ports that are not ACTIVE on a multi-node launch. Ports of unknown state
/// (captures without sysfs) are not judged.
void check_nic_state(const Topology& node, const LaunchShape& launch, const EnvMap& env,
                     std::vector<Diagnostic>& out) {
  if (!multi_node(launch)) return;
  auto nics = nccl_rdma_nics(env, node);
  size_t known = 0;
  std::vector<std::string> down;
  for (const Nic* n : nics) {
    if (n->state == PortState::kUnknown) continue;
    ++known;
    if (!port_active(n->state)) down.push_back(port_label(*n));
  }
  if (down.empty()) return;
  std::string list;
  for (const std::string& d : down)
    list += (list.empty() ? "" : ", ") + d;
  const char* scope = value_of(env, "NCCL_IB_HCA") ? " NCCL_IB_HCA selects" : " of this node";
  if (down.size() == nics.size()) {
    out.push_back(finding("PF206", "node",
                          "no RDMA NIC port" + std::string(scope) + " is ACTIVE: " + list +
                              "; NCCL would fall back to sockets or fail across the " +
                              std::to_string(*launch.nodes) + " nodes"));
    return;
  }
  out.push_back(finding("PF206", "node",
                        std::to_string(down.size()) + " of the " + std::to_string(nics.size()) +
                            " RDMA NIC ports" + scope + " are not ACTIVE: " + list +
                            (known < nics.size() ? " (others unknown)" : ""),
                        "some_down"));
}

/// TP groups and the HCP a2a level must stay inside the NVLink domain.
void check_placement(const Topology& node, const LaunchShape& launch, const Recipe& recipe,
                     std::vector<Diagnostic>& out) {
  int64_t domain = nvlink_domain_of(node);
  if (!launch.world_size || !launch.gpus_per_node || domain < 1) return;
  GroupOptions config = group_options_of(recipe, *launch.world_size);
  NodeShape shape{*launch.gpus_per_node, std::min<int64_t>(domain, *launch.gpus_per_node)};
  auto locality = layout_locality(config, shape);
  if (!locality) return;  // The rules report layouts that do not fit the world size.
  std::string where = " (NVLink domain of " + std::to_string(shape.nvlink_domain) + " GPUs)";
  if (!locality->tp.intra_domain())
    out.push_back(finding("PF204", "model.tensor_model_parallel_size",
                          "TP groups of " + std::to_string(config.layout.tp) +
                              " leave this node's NVLink domain" + where));
  if (locality->a2a_leaves_domain())
    out.push_back(finding("PF205", "model.hierarchical_context_parallel_sizes",
                          "the HCP a2a level leaves this node's NVLink domain" + where));
}

}  // namespace

std::vector<Diagnostic> nccl_env_findings(const EnvMap& env, const Topology& node,
                                          const LaunchShape& launch, const Recipe& recipe) {
  std::vector<Diagnostic> out;
  check_ib_hca(env, node, out);
  check_transport_switches(env, node, launch, recipe, out);
  for (Diagnostic& d : out)
    d.location = Location{"<environment>", 0, 0};
  return out;
}

std::string read_driver_version_under(const std::string& root) {
  return read_driver_version((std::filesystem::path(root) / "proc/driver/nvidia/version").string());
}

std::vector<Diagnostic> node_findings(const Topology& node, const LaunchShape& launch,
                                      const Recipe& recipe, const EnvMap& env) {
  std::vector<Diagnostic> out;
  check_gpu_count(node, launch, out);
  for (Diagnostic& d : preflight_topology_findings(node))
    out.push_back(std::move(d));
  check_nics(node, launch, out);
  check_nic_state(node, launch, env, out);
  check_placement(node, launch, recipe, out);
  for (Diagnostic& d : out)
    d.location = Location{node.host.empty() ? "<node>" : "<node " + node.host + ">", 0, 0};
  return out;
}

}  // namespace hcp
