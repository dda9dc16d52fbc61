// Topology as JSON (ARCHITECTURE.md §4) and as a readable summary; JSON read back.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "hcp/text_util.h"
#include "topology_internal.h"

namespace hcp {
namespace {

using nlohmann::json;

json num_or_null(double v) {
  return v > 0 ? json(v) : json(nullptr);
}
json int_or_null(int v) {
  return v >= 0 ? json(v) : json(nullptr);
}
json str_or_null(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

/// The common value when every GPU agrees, else the smallest known one; null when none known.
template <typename T>
json common_min(const std::vector<T>& values, T unknown) {
  bool any = false;
  T best{};
  for (T v : values) {
    if (v == unknown) continue;
    if (!any || v < best) best = v;
    any = true;
  }
  return any ? json(best) : json(nullptr);
}

json gpu_json(const Gpu& g, const NvlinkInfo& nv, size_t i) {
  return json{{"index", g.index},
              {"pci_bus_id", str_or_null(g.pci_bus_id)},
              {"numa_node", int_or_null(g.numa_node)},
              {"name", str_or_null(g.name)},
              {"sm", g.sm > 0 ? json(g.sm) : json(nullptr)},
              {"memory_gib", num_or_null(g.memory_gib)},
              {"pcie_gbps", num_or_null(g.pcie_gbps)},
              {"cpu_affinity", str_or_null(g.cpu_affinity)},
              {"numa_affinity", str_or_null(g.numa_affinity)},
              {"nvlinks", int_or_null(nv.links_per_gpu[i])},
              {"nvlink_gbps", num_or_null(nv.gbps_per_gpu[i])},
              {"nvlinks_down", int_or_null(g.nvlinks_down)}};
}

json nic_json(const Nic& n) {
  json levels = json::array();
  for (Affinity a : n.gpu_affinity)
    levels.push_back(affinity_name(a));
  return json{
      {"name", n.name},
      {"netdev", str_or_null(n.netdev)},
      {"kind", nic_kind_name(n.kind)},
      {"gbps", num_or_null(n.gbps)},
      {"numa_node", int_or_null(n.numa_node)},
      {"pci_bus_id", str_or_null(n.pci_bus_id)},
      {"port", n.port > 0 ? json(n.port) : json(nullptr)},
      {"state", n.state == PortState::kUnknown ? json(nullptr) : json(port_state_name(n.state))},
      {"phys_state", str_or_null(n.phys_state)},
      {"nearest_gpus", n.nearest_gpus},
      {"affinity", affinity_name(n.nearest_level)},
      {"gpu_affinity", levels}};
}

json matrix_json(const std::vector<std::vector<int>>& m) {
  json rows = json::array();
  for (const auto& r : m) {
    json row = json::array();
    for (int v : r)
      row.push_back(int_or_null(v));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

nlohmann::json topology_to_json(const Topology& t) {
  json gpus = json::array();
  for (size_t i = 0; i < t.gpus.size(); ++i)
    gpus.push_back(gpu_json(t.gpus[i], t.nvlink, i));
  json nics = json::array();
  for (const auto& n : t.nics)
    nics.push_back(nic_json(n));
  json numa = json::array();
  for (const auto& n : t.numa_nodes)
    numa.push_back({{"os_index", n.os_index}, {"cpus", n.cpus}, {"memory_gib", n.memory_gib}});
  const auto& nv = t.nvlink;
  json switch_links = json::array(), cpu_links = json::array();
  for (int v : nv.switch_links)
    switch_links.push_back(int_or_null(v));
  for (int v : nv.cpu_links)
    cpu_links.push_back(v);
  return json{{"host", t.host},
              {"gpus", gpus},
              {"nvlink",
               {{"links_per_gpu", common_min(nv.links_per_gpu, -1)},
                {"gbps_per_gpu", common_min(nv.gbps_per_gpu, 0.0)},
                {"gbps_per_link", num_or_null(nv.gbps_per_link)},
                {"via_switch", nv.via_switch},
                {"matrix", matrix_json(nv.matrix)},
                {"switch_links", switch_links},
                {"cpu_links", cpu_links}}},
              {"nics", nics},
              {"gpus_per_node", t.gpus_per_node},
              {"numa_nodes", numa},
              {"cpus", {{"packages", t.packages}, {"cores", t.cores}, {"threads", t.pus}}},
              {"sources", t.sources},
              {"warnings", t.warnings},
              {"notes", t.notes}};
}

namespace {

int get_int(const json& j, const char* key, int unknown) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : unknown;
}
double get_num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}
std::string get_str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Affinity affinity_from(const std::string& s) {
  for (Affinity a :
       {Affinity::kSameSwitch, Affinity::kHostBridge, Affinity::kSameNuma, Affinity::kCrossSocket})
    if (s == affinity_name(a)) return a;
  return Affinity::kUnknown;
}
NicKind kind_from(const std::string& s) {
  for (NicKind k : {NicKind::kInfiniBand, NicKind::kRoce, NicKind::kEfa, NicKind::kEthernet})
    if (s == nic_kind_name(k)) return k;
  return NicKind::kUnknown;
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

Result<Topology> topology_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("gpus") || !j["gpus"].is_array())
    return Error{source + ": not hcp-plan probe JSON (no \"gpus\" array)", {}, {}};
  Topology t;
  t.host = get_str(j, "host");
  for (const auto& g : j["gpus"]) {
    if (!g.is_object()) return Error{source + ": \"gpus\" entries must be objects", {}, {}};
    Gpu gpu;
    gpu.index = get_int(g, "index", -1);
    gpu.pci_bus_id = get_str(g, "pci_bus_id");
    gpu.numa_node = get_int(g, "numa_node", -1);
    gpu.name = get_str(g, "name");
    gpu.sm = get_int(g, "sm", 0);
    gpu.memory_gib = get_num(g, "memory_gib");
    gpu.pcie_gbps = get_num(g, "pcie_gbps");
    gpu.cpu_affinity = get_str(g, "cpu_affinity");
    gpu.numa_affinity = get_str(g, "numa_affinity");
    gpu.nvlinks_down = get_int(g, "nvlinks_down", -1);
    t.gpus.push_back(gpu);
  }
  probe_detail::resize_gpu_tables(t);
  size_t n = t.gpus.size();
  if (j.contains("nvlink") && j["nvlink"].is_object()) {
    const json& nv = j["nvlink"];
    if (nv.contains("matrix") && nv["matrix"].is_array()) {
      const json& m = nv["matrix"];
      if (m.size() != n)
        return Error{source + ": nvlink.matrix has " + std::to_string(m.size()) + " rows for " +
                         std::to_string(n) + " GPUs",
                     {},
                     {}};
      for (size_t i = 0; i < n; ++i) {
        if (!m[i].is_array() || m[i].size() != n)
          return Error{source + ": nvlink.matrix row " + std::to_string(i) + " is not " +
                           std::to_string(n) + " long",
                       {},
                       {}};
        for (size_t k = 0; k < n; ++k)
          t.nvlink.matrix[i][k] = m[i][k].is_number_integer() ? m[i][k].get<int>() : -1;
      }
    }
    auto ints = [&](const char* key, std::vector<int>& dst, int unknown) {
      if (!nv.contains(key) || !nv[key].is_array()) return;
      for (size_t i = 0; i < nv[key].size() && i < n; ++i)
        dst[i] = nv[key][i].is_number_integer() ? nv[key][i].get<int>() : unknown;
    };
    ints("switch_links", t.nvlink.switch_links, -1);
    ints("cpu_links", t.nvlink.cpu_links, 0);
    t.nvlink.via_switch = nv.value("via_switch", false);
  }
  if (j.contains("nics") && j["nics"].is_array()) {
    for (const auto& jn : j["nics"]) {
      Nic nic;
      nic.name = get_str(jn, "name");
      nic.netdev = get_str(jn, "netdev");
      nic.kind = kind_from(get_str(jn, "kind"));
      nic.gbps = get_num(jn, "gbps");
      nic.numa_node = get_int(jn, "numa_node", -1);
      nic.pci_bus_id = get_str(jn, "pci_bus_id");
      nic.port = get_int(jn, "port", 0);
      nic.state = port_state_from(get_str(jn, "state"));
      nic.phys_state = get_str(jn, "phys_state");
      nic.gpu_affinity.assign(n, Affinity::kUnknown);
      if (jn.contains("gpu_affinity") && jn["gpu_affinity"].is_array())
        for (size_t i = 0; i < jn["gpu_affinity"].size() && i < n; ++i)
          if (jn["gpu_affinity"][i].is_string())
            nic.gpu_affinity[i] = affinity_from(jn["gpu_affinity"][i].get<std::string>());
      t.nics.push_back(nic);
    }
  }
  if (j.contains("numa_nodes") && j["numa_nodes"].is_array())
    for (const auto& jn : j["numa_nodes"])
      t.numa_nodes.push_back(
          {get_int(jn, "os_index", 0), get_str(jn, "cpus"), get_num(jn, "memory_gib")});
  if (j.contains("cpus") && j["cpus"].is_object()) {
    t.packages = get_int(j["cpus"], "packages", 0);
    t.cores = get_int(j["cpus"], "cores", 0);
    t.pus = get_int(j["cpus"], "threads", 0);
  }
  t.sources = strings(j, "sources");
  t.warnings = strings(j, "warnings");
  t.notes = strings(j, "notes");
  finalize_topology(t);
  return t;
}

// --- Text ----------------------------------------------------------------------------------------

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}
std::string int_or_dash(int v) {
  return v >= 0 ? std::to_string(v) : "-";
}
std::string num_or_dash(double v) {
  return v > 0 ? fmt(v) : "-";
}

void gpu_table(const Topology& t, std::ostringstream& out) {
  // The name column is as wide as the longest name ("NVIDIA H100 80GB HBM3" from NVML: 21).
  size_t name_width = 18;
  for (const Gpu& g : t.gpus)
    name_width = std::max(name_width, text_columns(or_dash(g.name)) + 2);
  out << "GPUs: " << t.gpus.size() << "\n";
  out << "  " << pad_column("GPU", 5) << pad_column("PCI bus id", 14) << pad_column("NUMA", 6)
      << pad_column("name", name_width) << pad_column("PCIe GB/s", 11) << pad_column("NVLinks", 9)
      << "NVLink GB/s\n";
  for (size_t i = 0; i < t.gpus.size(); ++i) {
    const Gpu& g = t.gpus[i];
    out << "  " << pad_column(std::to_string(g.index), 5) << pad_column(or_dash(g.pci_bus_id), 14)
        << pad_column(int_or_dash(g.numa_node), 6) << pad_column(or_dash(g.name), name_width)
        << pad_column(num_or_dash(g.pcie_gbps), 11)
        << pad_column(int_or_dash(t.nvlink.links_per_gpu[i]), 9)
        << num_or_dash(t.nvlink.gbps_per_gpu[i]) << "\n";
  }
}

void nvlink_matrix(const Topology& t, std::ostringstream& out) {
  const auto& m = t.nvlink.matrix;
  bool any = false;
  for (const auto& row : m)
    for (int v : row)
      any = any || v > 0;
  if (!any) {
    out << (nvlink_unknown(t) ? "NVLink: unknown from these sources\n"
                              : "NVLink: none (PCIe only)\n");
    return;
  }
  out << "NVLink matrix (links between GPU pairs"
      << (t.nvlink.via_switch ? ", through NVSwitch" : "") << "; ? = unknown):\n  "
      << std::string(7, ' ');
  for (const auto& g : t.gpus)
    out << pad_column("GPU" + std::to_string(g.index), 6);
  out << "\n";
  for (size_t i = 0; i < m.size(); ++i) {
    out << "  " << pad_column("GPU" + std::to_string(t.gpus[i].index), 7);
    for (size_t j = 0; j < m.size(); ++j) {
      std::string cell = i == j         ? "X"
                         : m[i][j] < 0  ? "?"
                         : m[i][j] == 0 ? "-"
                                        : std::to_string(m[i][j]);
      out << pad_column(cell, 6);
    }
    out << "\n";
  }
}

std::string gpu_list(const std::vector<int>& gpus) {
  std::string s;
  for (size_t k = 0; k < gpus.size(); ++k)
    s += (k ? "," : "") + std::to_string(gpus[k]);
  return s.empty() ? "-" : s;
}

void nic_table(const Topology& t, std::ostringstream& out) {
  out << "NICs: " << t.nics.size() << "\n";
  if (t.nics.empty()) return;
  out << "  " << pad_column("NIC", 14) << pad_column("kind", 8) << pad_column("Gb/s", 7)
      << pad_column("state", 9) << pad_column("NUMA", 6) << pad_column("PCI bus id", 14)
      << "nearest GPUs (affinity)\n";
  for (const auto& n : t.nics) {
    std::string name = n.name + (n.netdev.empty() ? "" : " (" + n.netdev + ")");
    out << "  " << pad_column(name, 14) << pad_column(nic_kind_name(n.kind), 8)
        << pad_column(num_or_dash(n.gbps), 7)
        << pad_column(n.state == PortState::kUnknown ? "-" : port_state_name(n.state), 9)
        << pad_column(int_or_dash(n.numa_node), 6) << pad_column(or_dash(n.pci_bus_id), 14)
        << gpu_list(n.nearest_gpus)
        << (n.nearest_level == Affinity::kUnknown
                ? ""
                : std::string(" (") + affinity_name(n.nearest_level) + ")")
        << "\n";
  }
}

void cpu_summary(const Topology& t, std::ostringstream& out) {
  if (t.packages > 0 || t.pus > 0)
    out << "CPUs: " << t.packages << " packages, " << t.cores << " cores, " << t.pus
        << " hardware threads\n";
  if (t.numa_nodes.empty()) return;
  out << "NUMA nodes: " << t.numa_nodes.size() << "\n";
  for (const auto& n : t.numa_nodes) {
    out << "  node " << n.os_index << ": CPUs " << or_dash(n.cpus);
    if (n.memory_gib > 0) out << ", " << fmt(std::round(n.memory_gib * 10) / 10) << " GiB";
    out << "\n";
  }
}

}  // namespace

std::string topology_text(const Topology& t, const std::vector<Diagnostic>& findings) {
  std::ostringstream out;
  out << "Topology of " << (t.host.empty() ? "this node" : one_line(t.host)) << " (sources:";
  for (const auto& s : t.sources)
    out << " " << one_line(s);
  out << ")\n";
  cpu_summary(t, out);
  if (t.gpus.empty()) {
    out << "GPUs: none (no NVIDIA GPU found)\n";
  } else {
    gpu_table(t, out);
    nvlink_matrix(t, out);
  }
  nic_table(t, out);
  if (!findings.empty()) {
    out << "Findings:\n";
    for (const auto& d : findings) {
      out << "  " << diagnostic_headline(d) << "\n";
      if (!d.fix().empty()) out << "    " << diagnostic_fix_line(d) << "\n";
    }
  }
  for (const auto& w : t.warnings)
    out << "warning: " << one_line(w) << "\n";
  for (const auto& n : t.notes)
    out << "note: " << one_line(n) << "\n";
  return out.str();
}

}  // namespace hcp
