// Reader for NCCL topology XML: NCCL_TOPO_FILE hints (PCI skeletons) and NCCL_TOPO_DUMP_FILE
// dumps (<gpu> with <nvlink>, <nic><net speed>). Format per NCCL src/graph/xml.cc (v2.28).
#include <pugixml.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "topology_internal.h"

namespace hcp {
namespace {

using probe_detail::kMaxNvlinksPerPair;

/// Deepest <pci> nesting read. A PCI tree is a few switches deep; NCCL itself reads at most
/// NCCL_TOPO_XML_MAX_NODES = 256 elements in a topology file (NVIDIA/nccl v2.30.4-1
/// src/graph/topo.h:192), so no file NCCL accepts nests anywhere near this. The limit keeps the
/// recursive walk's stack bounded on hostile input.
constexpr size_t kMaxPciDepth = 64;

struct Context {
  const std::string& text;
  const std::string& source;
};

std::string at(const Context& ctx, const pugi::xml_node& node) {
  ptrdiff_t offset = node.offset_debug();
  int line = 1, col = 1;
  for (ptrdiff_t i = 0; i < offset && i < static_cast<ptrdiff_t>(ctx.text.size()); ++i) {
    if (ctx.text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return ctx.source + ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// Integer attribute in [lo, hi] (decimal or 0x hex); nullopt when absent; error when junk.
Result<std::optional<long>> int_attr(const Context& ctx, const pugi::xml_node& node,
                                     const char* name, long lo, long hi) {
  pugi::xml_attribute a = node.attribute(name);
  if (!a) return std::optional<long>{};
  std::string v = a.value();
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(v.c_str(), &end, 0);
  if (v.empty() || end == v.c_str() || *end != '\0' || errno != 0) {
    return Error{
        at(ctx, node) + ": <" + node.name() + "> " + name + "=\"" + v + "\" is not a number",
        {},
        {}};
  }
  if (n < lo || n > hi) {
    return Error{at(ctx, node) + ": <" + node.name() + "> " + name + "=\"" + v +
                     "\" out of range " + std::to_string(lo) + ".." + std::to_string(hi),
                 {},
                 {}};
  }
  return std::optional<long>{n};
}

struct GpuRec {
  std::string bus;
  std::optional<long> dev;
  int sm = 0;
  int device_id = 0;
  int numa = -1;
  int cpu = -1;  ///< Position of the <cpu> element.
  std::vector<std::string> ancestors;
  double pcie_gbps = 0;
  bool has_gpu_element = false;
  int switch_links = 0, cpu_links = 0;
  std::vector<std::pair<std::string, int>> gpu_links;  ///< Peer bus id, count.
};

struct NicRec {
  Nic nic;
  int cpu = -1;
  std::vector<std::string> ancestors;
};

struct Walk {
  std::vector<GpuRec> gpus;
  std::vector<NicRec> nics;
  int unclassified = 0;
  std::vector<std::string> warnings;
};

long class_of(const pugi::xml_node& pci) {
  std::string c = pci.attribute("class").value();
  return c.empty() ? -1 : std::strtol(c.c_str(), nullptr, 16);
}

long hex_attr(const pugi::xml_node& n, const char* name) {
  std::string v = n.attribute(name).value();
  return v.empty() ? 0 : std::strtol(v.c_str(), nullptr, 16);
}

/// PCIe GB/s per direction from "16 GT/s" / "32.0 GT/s PCIe" and the lane count.
double pcie_gbps(const pugi::xml_node& pci) {
  double gts = std::atof(pci.attribute("link_speed").value());
  int width = pci.attribute("link_width").as_int(0);
  if (gts <= 0 || width <= 0) return 0;
  double per_lane = gts < 8 ? gts * 0.1 : gts * 128.0 / 130.0 / 8.0;  // 8b/10b vs 128b/130b
  return per_lane * width;
}

NicKind kind_from_pci(long cls, long vendor, const std::string& name) {
  if (name.rfind("rdmap", 0) == 0 || vendor == 0x1d0f) return NicKind::kEfa;
  if (cls >> 8 == 0x0207) return NicKind::kInfiniBand;
  if (cls >> 8 == 0x0200) return vendor == 0x15b3 ? NicKind::kRoce : NicKind::kEthernet;
  return NicKind::kUnknown;
}

Status read_nvlinks(const Context& ctx, const pugi::xml_node& gpu, GpuRec& rec) {
  for (pugi::xml_node l : gpu.children("nvlink")) {
    auto count = int_attr(ctx, l, "count", 1, kMaxNvlinksPerPair);
    if (!count) return count.error();
    int c = count->value_or(1);
    std::string target = l.attribute("target").value();
    std::string tclass = l.attribute("tclass").value();
    long tc = tclass.empty() ? 0 : std::strtol(tclass.c_str(), nullptr, 16);
    bool invisible =
        target.find("ffffffff") != std::string::npos || target.rfind("fffffff:", 0) == 0;
    if (tc == 0x068000 || invisible) {
      rec.switch_links += c;
    } else if (tc == 0x068001) {
      rec.cpu_links += c;
    } else {
      rec.gpu_links.emplace_back(normalize_bus_id(target), c);
    }
  }
  return Ok{};
}

Status read_nic(const Context& ctx, const pugi::xml_node& nic, const pugi::xml_node* pci, int cpu,
                int numa, const std::vector<std::string>& ancestors, Walk& w) {
  long cls = pci ? class_of(*pci) : -1;
  long vendor = pci ? hex_attr(*pci, "vendor") : 0;
  std::string bus = pci ? normalize_bus_id(pci->attribute("busid").value()) : "";
  bool any = false;
  for (pugi::xml_node net : nic.children("net")) {
    auto speed =
        int_attr(ctx, net, "speed", -1, static_cast<long>(probe_detail::kMaxNicGbps * 1000));
    if (!speed) return speed.error();
    auto port = int_attr(ctx, net, "port", 0, 64);
    if (!port) return port.error();
    NicRec r;
    r.nic.name = net.attribute("name").value();
    if (r.nic.name.empty()) r.nic.name = bus.empty() ? "net" : bus;
    r.nic.gbps = speed->value_or(0) > 0 ? static_cast<double>(**speed) / 1000.0 : 0;
    r.nic.port = static_cast<int>(port->value_or(0));
    r.nic.kind = kind_from_pci(cls, vendor, r.nic.name);
    r.nic.pci_bus_id = bus;
    r.nic.numa_node = numa;
    r.cpu = cpu;
    r.ancestors = ancestors;
    w.nics.push_back(r);
    any = true;
  }
  if (!any && pci != nullptr) {
    NicRec r;
    r.nic.name = bus;
    r.nic.pci_bus_id = bus;
    r.nic.kind = kind_from_pci(cls, vendor, "");
    r.nic.numa_node = numa;
    r.cpu = cpu;
    r.ancestors = ancestors;
    w.nics.push_back(r);
  }
  return Ok{};
}

Status walk_pci(const Context& ctx, const pugi::xml_node& pci, int cpu, int numa,
                std::vector<std::string>& ancestors, Walk& w) {
  std::string bus = normalize_bus_id(pci.attribute("busid").value());
  long cls = class_of(pci);
  bool is_gpu_class = cls >> 8 == 0x0302 || cls >> 8 == 0x0300;
  pugi::xml_node gpu = pci.child("gpu");
  if (gpu || is_gpu_class) {
    GpuRec rec;
    rec.bus = bus;
    rec.device_id = static_cast<int>(hex_attr(pci, "device"));
    rec.numa = numa;
    rec.cpu = cpu;
    rec.ancestors = ancestors;
    rec.pcie_gbps = probe_detail::checked_pcie_gbps(pcie_gbps(pci), at(ctx, pci), w.warnings);
    if (gpu) {
      rec.has_gpu_element = true;
      auto dev = int_attr(ctx, gpu, "dev", 0, 1023);
      if (!dev) return dev.error();
      rec.dev = *dev;
      auto sm = int_attr(ctx, gpu, "sm", 10, 200);
      if (!sm) return sm.error();
      rec.sm = static_cast<int>(sm->value_or(0));
      auto links = read_nvlinks(ctx, gpu, rec);
      if (!links) return links;
    }
    w.gpus.push_back(rec);
    return probe_detail::check_gpu_count(w.gpus.size(), ctx.source);
  }
  pugi::xml_node nic = pci.child("nic");
  if (nic || cls >> 8 == 0x0207 || cls >> 8 == 0x0200) {
    pugi::xml_node empty;
    return read_nic(ctx, nic ? nic : empty, &pci, cpu, numa, ancestors, w);
  }
  bool has_children = false;
  if (ancestors.size() >= kMaxPciDepth) {
    return Error{at(ctx, pci) + ": <pci> nested deeper than " + std::to_string(kMaxPciDepth) +
                     " levels (a PCI tree is a few switches deep)",
                 {},
                 {}};
  }
  ancestors.push_back(bus);
  for (pugi::xml_node child : pci.children("pci")) {
    has_children = true;
    auto s = walk_pci(ctx, child, cpu, numa, ancestors, w);
    if (!s) return s;
  }
  ancestors.pop_back();
  if (!has_children && cls < 0) ++w.unclassified;
  return Ok{};
}

/// "00000000,ffffffff" (32-bit groups, most significant first) -> "32-63".
std::string mask_to_list(const std::string& mask) {
  std::vector<unsigned long> groups;
  size_t start = 0;
  while (start <= mask.size()) {
    size_t comma = mask.find(',', start);
    std::string g =
        mask.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    groups.push_back(std::strtoul(g.c_str(), nullptr, 16));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::reverse(groups.begin(), groups.end());
  std::string out;
  int run_start = -1;
  int total = static_cast<int>(groups.size()) * 32;
  for (int cpu = 0; cpu <= total; ++cpu) {
    bool set = cpu < total && ((groups[cpu / 32] >> (cpu % 32)) & 1UL);
    if (set && run_start < 0) run_start = cpu;
    if (!set && run_start >= 0) {
      out += (out.empty() ? "" : ",") + std::to_string(run_start);
      if (cpu - 1 > run_start) out += "-" + std::to_string(cpu - 1);
      run_start = -1;
    }
  }
  return out;
}

Affinity nccl_affinity(const GpuRec& g, const NicRec& n) {
  if (g.cpu < 0 || n.cpu < 0) return Affinity::kUnknown;
  if (g.cpu != n.cpu) return Affinity::kCrossSocket;
  for (const auto& a : n.ancestors)
    if (std::find(g.ancestors.begin(), g.ancestors.end(), a) != g.ancestors.end())
      return Affinity::kSameSwitch;
  return Affinity::kSameNuma;
}

/// GPU indices: <gpu dev> when present, else PCI bus order after the numbered ones.
void assign_indices(std::vector<GpuRec>& gpus) {
  long next = 0;
  for (const auto& g : gpus)
    if (g.dev) next = std::max(next, *g.dev + 1);
  std::vector<GpuRec*> rest;
  for (auto& g : gpus)
    if (!g.dev) rest.push_back(&g);
  std::sort(rest.begin(), rest.end(), [](GpuRec* a, GpuRec* b) { return a->bus < b->bus; });
  for (GpuRec* g : rest)
    g->dev = next++;
}

Result<Topology> build(const Context& ctx, Walk& w) {
  Topology topo;
  topo.sources.push_back("nccl-topo:" + ctx.source);
  topo.host = probe_detail::base_name(ctx.source);
  topo.warnings = w.warnings;
  assign_indices(w.gpus);
  std::map<long, int> seen;
  std::set<std::string> buses;
  for (const auto& g : w.gpus) {
    if (seen[*g.dev]++ > 0)
      return Error{ctx.source + ": two GPUs with dev=" + std::to_string(*g.dev), {}, {}};
    // One PCI function is one GPU: a second <pci> with its bus id is a corrupt capture, and its
    // NVLinks (named by bus id) could not be told apart.
    if (!g.bus.empty() && !buses.insert(g.bus).second)
      return Error{ctx.source + ": two GPUs at PCI bus id " + g.bus, {}, {}};
    Gpu gpu = probe_detail::make_pci_gpu(static_cast<int>(*g.dev), g.bus, g.device_id);
    if (g.sm > 0) gpu.sm = g.sm;
    gpu.numa_node = g.numa;
    gpu.pcie_gbps = g.pcie_gbps;
    topo.gpus.push_back(gpu);
  }
  for (const auto& n : w.nics)
    topo.nics.push_back(n.nic);
  // Dual-port adapters list one <net> per port under the same name.
  std::map<std::string, int> names;
  for (auto& nic : topo.nics)
    if (names[nic.name]++ > 0 && nic.port > 0) nic.name += ":" + std::to_string(nic.port);
  probe_detail::resize_gpu_tables(topo);
  for (size_t k = 0; k < w.nics.size(); ++k)
    for (size_t i = 0; i < w.gpus.size(); ++i)
      topo.nics[k].gpu_affinity[i] = nccl_affinity(w.gpus[i], w.nics[k]);

  auto& nv = topo.nvlink;
  bool any_gpu_element = false;
  for (size_t i = 0; i < w.gpus.size(); ++i) {
    const GpuRec& g = w.gpus[i];
    if (!g.has_gpu_element) continue;
    any_gpu_element = true;
    nv.switch_links[i] = g.switch_links;
    nv.cpu_links[i] = g.cpu_links;
    for (size_t j = 0; j < w.gpus.size(); ++j)
      if (j != i) nv.matrix[i][j] = 0;
    for (const auto& [peer, count] : g.gpu_links) {
      // A named copy: clang before 16 cannot capture a structured binding in a lambda.
      const std::string& peer_bus = peer;
      auto it = std::find_if(w.gpus.begin(), w.gpus.end(),
                             [&](const GpuRec& o) { return o.bus == peer_bus; });
      if (it == w.gpus.end()) {
        topo.warnings.push_back(ctx.source + ": GPU " + std::to_string(*g.dev) +
                                " has NVLinks to " + peer + ", which is not in the file");
        continue;
      }
      nv.matrix[i][it - w.gpus.begin()] += count;
    }
  }
  probe_detail::fill_switch_matrix(nv);
  if (!any_gpu_element && !w.gpus.empty())
    topo.notes.push_back(ctx.source + ": topology hint without <gpu> elements: NVLink counts " +
                         "are filled in by NCCL at run time and unknown here");
  if (w.unclassified > 0)
    topo.warnings.push_back(ctx.source + ": " + std::to_string(w.unclassified) +
                            " PCI devices have no class (topology hint; NCCL identifies them at " +
                            "run time): GPUs and NICs among them are not counted");
  finalize_topology(topo);
  return topo;
}

}  // namespace

Result<Topology> parse_nccl_topo(const std::string& text, const std::string& source) {
  auto ok = probe_detail::check_text(text, source, "NCCL topology XML");
  if (!ok) return ok.error();
  ok = probe_detail::check_xml_markup(text, source, "NCCL topology XML");
  if (!ok) return ok.error();
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  Context ctx{text, source};
  if (!parsed) {
    int line = 1, col = 1;
    for (ptrdiff_t i = 0; i < parsed.offset && i < static_cast<ptrdiff_t>(text.size()); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return Error{source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                     ": malformed XML: " + parsed.description(),
                 {},
                 {}};
  }
  pugi::xml_node root = doc.document_element();
  if (std::string(root.name()) != "system") {
    return Error{source + ": not an NCCL topology XML: root element <" + std::string(root.name()) +
                     ">, expected <system>",
                 {},
                 {}};
  }
  Walk w;
  Topology numa_info;
  int cpu_pos = 0;
  for (pugi::xml_node cpu : root.children("cpu")) {
    auto numa = int_attr(ctx, cpu, "numaid", -1, probe_detail::kMaxNumaNode);
    if (!numa) return numa.error();
    int numa_id = static_cast<int>(numa->value_or(-1));
    if (numa_id >= 0) {
      NumaNode node;
      node.os_index = numa_id;
      node.cpus = mask_to_list(cpu.attribute("affinity").value());
      numa_info.numa_nodes.push_back(node);
    }
    std::vector<std::string> ancestors;
    for (pugi::xml_node child : cpu.children()) {
      Status s = Ok{};
      if (std::string(child.name()) == "pci")
        s = walk_pci(ctx, child, cpu_pos, numa_id, ancestors, w);
      if (std::string(child.name()) == "nic")
        s = read_nic(ctx, child, nullptr, cpu_pos, numa_id, ancestors, w);
      if (!s) return s.error();
    }
    ++cpu_pos;
  }
  if (cpu_pos == 0) return Error{source + ": NCCL topology XML has no <cpu> element", {}, {}};
  auto topo = build(ctx, w);
  if (!topo) return topo;
  topo->numa_nodes = numa_info.numa_nodes;
  return topo;
}

Result<Topology> load_nccl_topo(const std::string& path) {
  auto text = probe_detail::read_text_file(path);
  if (!text) return text.error();
  return parse_nccl_topo(*text, path);
}

}  // namespace hcp
