// hwloc reader: the live node or an XML export. GPUs come from PCI ids (vendor 0x10de, class
// 0x0302/0x0300) because Debian's hwloc has no CUDA/NVML plugin; NVLink comes from an
// NVLinkBandwidth distances matrix when the export has one (hwloc built with NVML).
#include <hwloc.h>
#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <type_traits>

#include "hcp/file_input.h"
#include "hwloc_internal.h"
#include "topology_internal.h"

namespace hcp::probe_detail {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using HwlocPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string bus_id_of(hwloc_obj_t pci) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain,
                pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
  return buf;
}

bool is_nvidia_gpu(hwloc_obj_t pci) {
  unsigned cls = pci->attr->pcidev.class_id;
  return pci->attr->pcidev.vendor_id == 0x10de && (cls == 0x0302 || cls == 0x0300);
}

bool is_nvswitch(hwloc_obj_t pci) {
  if (pci->subtype != nullptr && std::string(pci->subtype) == "NVSwitch") return true;
  return pci->attr->pcidev.vendor_id == 0x10de && pci->attr->pcidev.class_id == 0x0680;
}

/// Whether an enum field of an hwloc object holds `value`. hwloc 2's XML importer casts the
/// file's osdev_type and bridge_type numbers into these enums without a range check
/// (topology-xml.c; its bridge branch says "FIXME verify that upstream/downstream type is
/// valid"), so a malformed export can leave a value outside the enumeration, and loading it as
/// the enum type is undefined behaviour (fuzz finding, tests/fuzz/corpus/hwloc_xml). Compare the
/// stored bytes instead: an unknown value matches no known kind.
template <typename Enum>
bool enum_field_is(const Enum& field, Enum value) {
  std::underlying_type_t<Enum> stored;
  std::memcpy(&stored, &field, sizeof stored);
  return stored == static_cast<std::underlying_type_t<Enum>>(value);
}

bool osdev_is(hwloc_obj_t os, hwloc_obj_osdev_type_t type) {
  return enum_field_is(os->attr->osdev.type, type);
}

std::vector<hwloc_obj_t> os_devices(hwloc_obj_t pci) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t c = pci->io_first_child; c != nullptr; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE) out.push_back(c);
  return out;
}

bool has_network_osdev(hwloc_obj_t pci) {
  for (hwloc_obj_t os : os_devices(pci))
    if (osdev_is(os, HWLOC_OBJ_OSDEV_NETWORK) || osdev_is(os, HWLOC_OBJ_OSDEV_OPENFABRICS))
      return true;
  return false;
}

bool is_nic(hwloc_obj_t pci) {
  unsigned cls = pci->attr->pcidev.class_id;
  return cls == 0x0207 || has_network_osdev(pci);
}

int numa_of(hwloc_topology_t t, hwloc_obj_t obj) {
  hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t, obj);
  if (a == nullptr || a->nodeset == nullptr || hwloc_bitmap_weight(a->nodeset) != 1) return -1;
  return hwloc_bitmap_first(a->nodeset);
}

/// GPU index from an nvmlN / cudaN OS device under the PCI function; -1 when there is none.
int osdev_gpu_index(hwloc_obj_t pci) {
  for (hwloc_obj_t os : os_devices(pci)) {
    if (os->name == nullptr) continue;
    std::string name = os->name;
    for (const char* prefix : {"nvml", "cuda"}) {
      size_t len = std::string(prefix).size();
      if (name.size() > len && name.compare(0, len, prefix) == 0 &&
          std::all_of(name.begin() + static_cast<long>(len), name.end(), ::isdigit))
        return std::atoi(name.c_str() + len);
    }
  }
  return -1;
}

/// Lowest common ancestor of two I/O objects, walking parent links (safe for asymmetric trees).
hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b) {
  std::set<hwloc_obj_t> chain;
  for (hwloc_obj_t o = a; o != nullptr; o = o->parent)
    chain.insert(o);
  for (hwloc_obj_t o = b; o != nullptr; o = o->parent)
    if (chain.count(o)) return o;
  return nullptr;
}

Affinity hwloc_affinity(hwloc_topology_t t, hwloc_obj_t gpu, hwloc_obj_t nic) {
  hwloc_obj_t lca = common_ancestor(gpu, nic);
  if (lca != nullptr && lca->type == HWLOC_OBJ_BRIDGE &&
      enum_field_is(lca->attr->bridge.upstream_type, HWLOC_OBJ_BRIDGE_PCI))
    return Affinity::kSameSwitch;
  if (lca != nullptr && lca->type == HWLOC_OBJ_BRIDGE) return Affinity::kHostBridge;
  int a = numa_of(t, gpu), b = numa_of(t, nic);
  if (a < 0 || b < 0) return Affinity::kUnknown;
  return a == b ? Affinity::kSameNuma : Affinity::kCrossSocket;
}

std::string read_first_line(const std::string& path) {
  return read_system_file_line(path).value_or("");
}

/// Live only: kind and rate of an RDMA device or netdev from sysfs (hwloc does not read them).
void read_sysfs_nic(Nic& nic) {
  std::vector<std::string> warnings;  // The sysfs merge of the live probe reports them.
  read_sysfs_port("/sys/class/infiniband/" + nic.name + "/ports/1", nic, warnings);
  if (nic.gbps == 0 && !nic.netdev.empty()) {
    double mbps = std::atof(read_first_line("/sys/class/net/" + nic.netdev + "/speed").c_str());
    if (mbps > 0 && mbps / 1000 <= kMaxNicGbps) nic.gbps = mbps / 1000;
  }
}

std::vector<Nic> nics_of(hwloc_obj_t pci, bool live) {
  std::vector<Nic> out;
  std::string netdev;
  std::vector<std::string> fabrics;
  for (hwloc_obj_t os : os_devices(pci)) {
    if (os->name == nullptr) continue;
    if (osdev_is(os, HWLOC_OBJ_OSDEV_OPENFABRICS)) fabrics.push_back(os->name);
    if (osdev_is(os, HWLOC_OBJ_OSDEV_NETWORK) && netdev.empty()) netdev = os->name;
  }
  unsigned cls = pci->attr->pcidev.class_id;
  NicKind kind = NicKind::kEthernet;
  if (cls == 0x0207)
    kind = NicKind::kInfiniBand;
  else if (pci->attr->pcidev.vendor_id == 0x1d0f)
    kind = NicKind::kEfa;
  else if (!fabrics.empty())
    kind = NicKind::kRoce;
  if (fabrics.empty()) fabrics.push_back(netdev.empty() ? bus_id_of(pci) : netdev);
  for (const auto& name : fabrics) {
    Nic nic;
    nic.name = name;
    nic.netdev = netdev == name ? "" : netdev;
    nic.kind = kind;
    nic.pci_bus_id = bus_id_of(pci);
    if (live) read_sysfs_nic(nic);
    out.push_back(nic);
  }
  return out;
}

void read_cpus(hwloc_topology_t t, Topology& topo) {
  topo.packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  topo.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  topo.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    NumaNode nn;
    nn.os_index = static_cast<int>(node->os_index);
    char* list = nullptr;
    if (node->cpuset != nullptr && hwloc_bitmap_list_asprintf(&list, node->cpuset) >= 0) {
      nn.cpus = list;
      std::free(list);
    }
    nn.memory_gib = static_cast<double>(node->attr->numanode.local_memory) / (1024.0 * 1024 * 1024);
    topo.numa_nodes.push_back(nn);
  }
}

struct PciIndex {
  std::vector<hwloc_obj_t> gpus;  ///< Same order as Topology::gpus.
  std::vector<hwloc_obj_t> nics;  ///< One per Topology::nics entry.
};

Status read_gpus(hwloc_topology_t t, Topology& topo, PciIndex& idx, const std::string& source) {
  std::vector<hwloc_obj_t> found;
  for (hwloc_obj_t o = hwloc_get_next_pcidev(t, nullptr); o; o = hwloc_get_next_pcidev(t, o))
    if (is_nvidia_gpu(o)) found.push_back(o);
  if (Status count = check_gpu_count(found.size(), source); !count) return count;
  std::sort(found.begin(), found.end(),
            [](hwloc_obj_t a, hwloc_obj_t b) { return bus_id_of(a) < bus_id_of(b); });
  int next = 0;
  for (hwloc_obj_t o : found)
    next = std::max(next, osdev_gpu_index(o) + 1);
  for (hwloc_obj_t o : found) {
    int index = osdev_gpu_index(o);
    if (index < 0) index = next++;
    Gpu gpu = make_pci_gpu(index, bus_id_of(o), o->attr->pcidev.device_id);
    if (gpu.name.empty()) {
      const char* model = hwloc_obj_get_info_by_name(o, "PCIDevice");
      if (model != nullptr) gpu.name = model;
    }
    gpu.numa_node = numa_of(t, o);
    gpu.pcie_gbps = checked_pcie_gbps(o->attr->pcidev.linkspeed, source + ": GPU " + gpu.pci_bus_id,
                                      topo.warnings);
    topo.gpus.push_back(gpu);
    idx.gpus.push_back(o);
  }
  return Ok{};
}

void read_nics(hwloc_topology_t t, Topology& topo, PciIndex& idx, bool live) {
  for (hwloc_obj_t o = hwloc_get_next_pcidev(t, nullptr); o; o = hwloc_get_next_pcidev(t, o)) {
    if (!is_nic(o)) continue;
    for (Nic nic : nics_of(o, live)) {
      nic.numa_node = numa_of(t, o);
      for (hwloc_obj_t g : idx.gpus)
        nic.gpu_affinity.push_back(hwloc_affinity(t, g, o));
      topo.nics.push_back(nic);
      idx.nics.push_back(o);
    }
  }
}

/// Map a distances object to what it is for NVLink purposes.
enum class Peer { kGpu, kSwitch, kCpu, kOther };

Peer classify(hwloc_obj_t o, const PciIndex& idx, int& gpu_pos) {
  hwloc_obj_t pci = o;
  if (o->type == HWLOC_OBJ_OS_DEVICE) pci = o->parent;
  if (o->type == HWLOC_OBJ_PACKAGE) return Peer::kCpu;
  if (pci != nullptr && pci->type == HWLOC_OBJ_PCI_DEVICE) {
    auto it = std::find(idx.gpus.begin(), idx.gpus.end(), pci);
    if (it != idx.gpus.end()) {
      gpu_pos = static_cast<int>(it - idx.gpus.begin());
      return Peer::kGpu;
    }
    if (is_nvswitch(pci)) return Peer::kSwitch;
  }
  return Peer::kOther;
}

Status read_nvlink_distances(hwloc_topology_t t, Topology& topo, const PciIndex& idx,
                             const std::string& source) {
  unsigned nr = 1;
  hwloc_distances_s* dist = nullptr;
  if (hwloc_distances_get_by_name(t, "NVLinkBandwidth", &nr, &dist, 0) != 0 || nr == 0) {
    if (!topo.gpus.empty())
      topo.notes.push_back(source + ": no NVLinkBandwidth matrix (hwloc without its NVML " +
                           "plugin): NVLink unknown from this source");
    return Ok{};
  }
  auto release = [&] { hwloc_distances_release(t, dist); };
  unsigned n = dist->nbobjs;
  auto& nv = topo.nvlink;
  int sm = 0;
  for (const auto& g : topo.gpus)
    sm = sm > 0 ? sm : g.sm;
  double per_link_mbs = nvlink_gbps_per_link(sm) * 1000;
  if (per_link_mbs <= 0) {
    topo.warnings.push_back(source + ": NVLinkBandwidth present but the GPU model is unknown, so " +
                            "MB/s cannot be turned into link counts");
    release();
    return Ok{};
  }
  std::vector<Peer> peers(n);
  std::vector<int> pos(n, -1);
  for (unsigned k = 0; k < n; ++k)
    peers[k] = classify(dist->objs[k], idx, pos[k]);
  for (unsigned a = 0; a < n; ++a) {
    if (peers[a] != Peer::kGpu) continue;
    int i = pos[a];
    nv.switch_links[i] = 0;
    for (size_t j = 0; j < topo.gpus.size(); ++j)
      if (static_cast<int>(j) != i) nv.matrix[i][j] = 0;
    for (unsigned b = 0; b < n; ++b) {
      if (a == b) continue;
      double mbs = static_cast<double>(dist->values[a * n + b]);
      if (mbs == 0) continue;
      if (mbs > kMaxNvlinksPerPair * per_link_mbs) {
        std::string bad = std::to_string(dist->values[a * n + b]);
        release();
        return Error{source + ": NVLinkBandwidth value " + bad + " MB/s is beyond " +
                         std::to_string(kMaxNvlinksPerPair) + " links",
                     {},
                     {}};
      }
      int links = static_cast<int>(std::lround(mbs / per_link_mbs));
      if (peers[b] == Peer::kGpu) nv.matrix[i][pos[b]] = links;
      if (peers[b] == Peer::kSwitch) nv.switch_links[i] += links;
      if (peers[b] == Peer::kCpu) nv.cpu_links[i] += links;
    }
  }
  release();
  fill_switch_matrix(nv);
  return Ok{};
}

Result<Topology> convert(hwloc_topology_t t, const std::string& source, bool live) {
  Topology topo;
  read_cpus(t, topo);
  PciIndex idx;
  if (Status gpus = read_gpus(t, topo, idx, source); !gpus) return gpus.error();
  read_nics(t, topo, idx, live);
  resize_gpu_tables(topo);
  auto s = read_nvlink_distances(t, topo, idx, source);
  if (!s) return s.error();
  finalize_topology(topo);
  return topo;
}

/// Deepest element nesting read from an hwloc XML.
constexpr int kMaxXmlDepth = 128;

/// "path:LINE" of a byte offset into `text`.
std::string xml_line(const std::string& text, const std::string& path, ptrdiff_t offset) {
  int line = 1;
  for (ptrdiff_t i = 0; i < offset && i < static_cast<ptrdiff_t>(text.size()); ++i)
    line += text[i] == '\n';
  return path + ":" + std::to_string(line);
}

/// "<element>" and the XML line of `node`, for a rejection.
std::string at_element(const pugi::xml_node& node, const std::string& text,
                       const std::string& path) {
  return xml_line(text, path, node.offset_debug()) + ": <" + node.name() + ">";
}

/// True when every attribute of `node` is one of `allowed`.
bool only_attributes(const pugi::xml_node& node, std::initializer_list<std::string_view> allowed) {
  for (const pugi::xml_attribute& a : node.attributes())
    if (std::find(allowed.begin(), allowed.end(), std::string_view(a.name())) == allowed.end())
      return false;
  return true;
}

/// True when `value` is a bitmap as hwloc writes one (hwloc_bitmap_snprintf in hwloc/bitmap.c):
/// comma-separated "0x" hex words, highest first, a zero word inside written as nothing
/// ("0x00000303,,0x03030303"), optionally after "0xf...f," for an infinite set. hwloc's reader
/// (hwloc_bitmap_sscanf) stops at the first malformed word and keeps what it read, so a garbled
/// complete_cpuset on the root left hwloc 2.9 with an empty topology that it then dereferenced
/// (SIGSEGV in hwloc_topology_load; fuzz harness hwloc_xml).
bool hwloc_bitmap_text(std::string_view value) {
  if (value.starts_with("0xf...f,")) value.remove_prefix(8);
  bool first = true;
  while (true) {
    size_t comma = value.find(',');
    std::string_view word = value.substr(0, comma);
    bool last = comma == std::string_view::npos;
    if (word.empty()) {
      if (first || last) return false;  // only a zero word inside is written as nothing
    } else {
      if (!word.starts_with("0x") || word.size() == 2) return false;
      for (char c : word.substr(2))
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
    if (last) return true;
    value.remove_prefix(comma + 1);
    first = false;
  }
}

/// The children of each <object> that hwloc 2.9 rejects. hwloc's importer
/// (hwloc__xml_import_object in hwloc/topology-xml.c, hwloc 2.9.0 as Debian 12 ships it, and
/// still at open-mpi/hwloc 015b20a7) reads an object's non-object children before it links the
/// object into the tree, and on a bad one returns through `goto error`, which does not free the
/// unlinked object: hwloc_topology_destroy cannot reach it and it leaks (LeakSanitizer, fuzz
/// harness hwloc_xml). hwloc refuses these files anyway, so rejecting them here loses nothing
/// and gives the reason. The child rules are hwloc's: an element other than object, info,
/// userdata, page_type (and distances in a 1.x file); an <info> with an attribute other than
/// name/value (hwloc___xml_import_info); a <page_type> below an object that is neither a NUMANode
/// nor the root, or with an attribute other than size/count (hwloc__xml_import_pagetype); a
/// <userdata> with an attribute other than length, encoding, name, or whose text is not `length`
/// bytes long (base64: its encoded length) (hwloc__xml_import_userdata and get_content).
Status check_object_children(const pugi::xml_document& doc, const std::string& text,
                             const std::string& path) {
  // hwloc 1.x exports (no version, or 1.x) keep their distance matrices in <distances> inside
  // the root object; hwloc 2.9 reads them only from such files (data->version_major < 2).
  const char* version = doc.document_element().attribute("version").value();
  bool v1 = *version == '\0' || std::atoi(version) < 2;
  pugi::xpath_node_set objects = doc.select_nodes("//object");
  for (const pugi::xpath_node& x : objects) {
    pugi::xml_node object = x.node();
    bool root = std::string_view(object.parent().name()) == "topology";
    // The type as hwloc reads it: hwloc_type_sscanf matches a name by its leading letters
    // ("NUMA1" and "Node" are NUMA nodes).
    hwloc_obj_type_t type{};
    bool numa = hwloc_type_sscanf(object.attribute("type").value(), &type, nullptr, 0) == 0 &&
                type == HWLOC_OBJ_NUMANODE;
    // A NUMA node without a complete_cpuset in a file whose version is 1.x crashed hwloc 2.9
    // (SIGSEGV in hwloc_bitmap_isequal inside hwloc_topology_load; fuzz harness hwloc_xml).
    // Narrowed under ASan: the same object in a 2.x file, or with a complete_cpuset, loads.
    // Every 1.x export writes one.
    if (v1 && numa && !object.attribute("complete_cpuset"))
      return Error{at_element(object, text, path) +
                       " is a NUMA node without a complete_cpuset (hwloc cannot read this 1.x XML)",
                   {},
                   {}};
    // hwloc 2.9 orders an object's children by complete_cpuset and dereferences it without a
    // check (hwloc__xml_import_object: "We checked above that complete_cpuset is always set"):
    // an object with a cpuset but no complete_cpuset crashed hcp-plan (SIGSEGV in
    // hwloc_bitmap_compare_first; fuzz harness hwloc_xml). Every export writes both.
    for (const pugi::xml_attribute& a : object.attributes()) {
      std::string_view name = a.name();
      if ((name.ends_with("cpuset") || name.ends_with("nodeset")) && !hwloc_bitmap_text(a.value()))
        return Error{at_element(object, text, path) + " has a malformed " + std::string(name) +
                         " \"" + std::string(a.value()).substr(0, 40) +
                         "\" (hwloc writes comma-separated 0x hex words)",
                     {},
                     {}};
    }
    for (const char* set : {"cpuset", "nodeset"}) {
      if (object.attribute(set) && !object.attribute((std::string("complete_") + set).c_str()))
        return Error{at_element(object, text, path) + " has a " + set + " but no complete_" + set +
                         " (hwloc cannot read this XML)",
                     {},
                     {}};
    }
    for (const pugi::xml_node& child : object.children()) {
      if (child.type() != pugi::node_element) continue;
      std::string_view tag = child.name();
      std::string why;
      if (tag == "object" || (v1 && tag == "distances")) continue;
      if (tag == "info") {
        if (!only_attributes(child, {"name", "value"}))
          why = "has an attribute other than name and value";
      } else if (tag == "page_type") {
        if (!root && !numa)
          why = "is only read below a NUMANode or the root object";
        else if (!only_attributes(child, {"size", "count"}))
          why = "has an attribute other than size and count";
      } else if (tag == "userdata") {
        uint64_t length = std::strtoull(child.attribute("length").value(), nullptr, 10);
        bool base64 = std::string_view(child.attribute("encoding").value()) == "base64";
        uint64_t expected = base64 ? 4 * ((length + 2) / 3) : length;
        pugi::xml_node first = child.first_child();
        bool text =
            first && (first.type() == pugi::node_pcdata || first.type() == pugi::node_cdata);
        uint64_t content = text ? std::string_view(first.value()).size() : 0;
        if (!only_attributes(child, {"length", "encoding", "name"}))
          why = "has an attribute other than length, encoding and name";
        else if ((text && content != expected) || (!text && expected != 0))
          why = "content is not as long as its length attribute says";
      } else {
        why = "is not an element hwloc reads inside <object> (object, info, userdata, page_type)";
      }
      if (!why.empty())
        return Error{
            at_element(child, text, path) + " " + why + " (hwloc rejects this XML)", {}, {}};
    }
  }
  return Ok{};
}

/// Reject junk before hwloc sees it (hwloc's own messages are less precise).
Status precheck_hwloc_xml(const std::string& text, const std::string& path) {
  auto ok = check_text(text, path, "hwloc XML");
  if (!ok) return ok;
  ok = check_xml_markup(text, path, "hwloc XML");
  if (!ok) return ok;
  // The declared encoding: hwloc hands the file to libxml2, which leaks on an encoding it does
  // not support ("Unsupported encoding", fuzz harness hwloc_xml). The file is read as UTF-8, so
  // only the encodings that are UTF-8 or a subset of it, and Latin-1 (built into libxml2), pass.
  if (text.compare(0, 5, "<?xml") == 0) {
    std::string_view decl(text.data(), std::min(text.size(), text.find("?>")));
    size_t at = decl.find("encoding=");
    if (at != std::string_view::npos && at + 10 <= decl.size()) {
      char quote = decl[at + 9];
      size_t end = decl.find(quote, at + 10);
      std::string encoding(decl.substr(at + 10, end == std::string_view::npos ? 0 : end - at - 10));
      std::string upper = encoding;
      for (char& ch : upper)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (upper != "UTF-8" && upper != "UTF8" && upper != "US-ASCII" && upper != "ASCII" &&
          upper != "ISO-8859-1")
        return Error{
            path + ":1: XML encoding \"" + encoding + "\" is not read (use UTF-8)", {}, {}};
    }
  }
  pugi::xml_document doc;
  pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size());
  if (!r)
    return Error{xml_line(text, path, r.offset) + ": malformed XML: " + r.description(), {}, {}};
  std::string root = doc.document_element().name();
  if (root != "topology")
    return Error{
        path + ": not an hwloc XML: root element <" + root + ">, expected <topology>", {}, {}};
  std::string version = doc.document_element().attribute("version").value();
  if (!version.empty() && std::atof(version.c_str()) >= 3)
    return Error{path + ": hwloc XML version " + version + " is newer than this hwloc reads " +
                     "(export it with hwloc 2.x)",
                 {},
                 {}};
  // hwloc imports objects recursively: bound the nesting before it does (a real export nests
  // about 20 levels: Machine, Package, Die, caches, Core, PU, Groups, PCI bridges).
  struct DepthWalker : pugi::xml_tree_walker {
    int deepest = 0;
    pugi::xml_node at;
    bool for_each(pugi::xml_node& node) override {
      if (depth() > deepest) {
        deepest = depth();
        at = node;
      }
      return deepest <= kMaxXmlDepth;
    }
  } walker;
  doc.traverse(walker);
  if (walker.deepest > kMaxXmlDepth)
    return Error{xml_line(text, path, walker.at.offset_debug()) + ": elements nested deeper than " +
                     std::to_string(kMaxXmlDepth) + " levels",
                 {},
                 {}};
  return check_object_children(doc, text, path);
}

/// hwloc 1.x type names the XML importer maps itself (hwloc 2.9 topology-xml.c).
bool hwloc1_type_name(const std::string& type) {
  return type == "System" || type == "Socket" || type == "Cache" || type == "Node";
}

/// Why hwloc refused an XML that pugixml read (hwloc prints its reason only with
/// HWLOC_XML_VERBOSE=1): the first <object> without a type or with one hwloc does not know, or
/// a <topology> without objects. Falls back to saying how to get hwloc's own message.
std::string hwloc_rejection_reason(const std::string& text, const std::string& path) {
  pugi::xml_document doc;
  if (!doc.load_buffer(text.data(), text.size())) return path + ": hwloc could not import this XML";
  pugi::xml_node root = doc.document_element();
  if (!root.child("object"))
    return path + ": hwloc could not import this XML: no <object> under <topology>";
  pugi::xpath_node_set objects = doc.select_nodes("//object");
  for (const pugi::xpath_node& x : objects) {
    pugi::xml_node object = x.node();
    pugi::xml_attribute type = object.attribute("type");
    // The line is counted only for the object reported: counting it for every object scanned
    // the file once per object (seconds for a 250 KB export that hwloc refused; fuzz harness
    // hwloc_xml, a timeout).
    auto where = [&] { return xml_line(text, path, object.offset_debug()); };
    if (!type)
      return where() + ": hwloc could not import this XML: <object> without a type attribute";
    hwloc_obj_type_t parsed;
    if (!hwloc1_type_name(type.value()) &&
        hwloc_type_sscanf(type.value(), &parsed, nullptr, 0) != 0)
      return where() + ": hwloc could not import this XML: unknown object type \"" +
             std::string(type.value()) + "\"";
  }
  return path + ": hwloc could not import this XML (hwloc gives no reason here; " +
         "`HWLOC_XML_VERBOSE=1 lstopo -i FILE` prints its own)";
}

}  // namespace

Result<Topology> hwloc_live_topology() {
  if (Status loaded = load_hwloc_library(); !loaded) return loaded.error();
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return Error{"hwloc: cannot initialise", {}, {}};
  HwlocPtr t(raw);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // The OpenCL and GL plugins start the GPU driver; the probe needs neither. The libpciaccess
  // plugin ("pci") is not needed either: hwloc's linux component reads the same PCI devices from
  // sysfs, and libpciaccess keeps allocations in its globals until hwloc unloads it, which
  // LeakSanitizer reports as leaks from an unknown module.
  for (const char* unused : {"opencl", "gl", "pci"})
    hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, unused);
  if (hwloc_topology_load(raw) != 0) return Error{"hwloc: cannot discover this node", {}, {}};
  auto topo = convert(raw, "hwloc", true);
  if (topo) topo->sources.push_back("hwloc");
  return topo;
}

Result<Topology> hwloc_xml_topology(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto ok = precheck_hwloc_xml(*text, path);
  if (!ok) return ok.error();
  blank_hwloc_doctype(*text);
  if (Status loaded = load_hwloc_library(); !loaded) return loaded.error();
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return Error{"hwloc: cannot initialise", {}, {}};
  HwlocPtr t(raw);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_set_xmlbuffer(raw, text->c_str(), static_cast<int>(text->size()) + 1) != 0 ||
      hwloc_topology_load(raw) != 0)
    return Error{hwloc_rejection_reason(*text, path), {}, {}};
  auto topo = convert(raw, path, false);
  if (!topo) return topo;
  topo->sources.push_back("hwloc-xml:" + path);
  topo->host = base_name(path);
  return topo;
}

}  // namespace hcp::probe_detail

namespace hcp {

Result<Topology> load_hwloc_xml(const std::string& path) {
  return probe_detail::hwloc_xml_topology(path);
}

}  // namespace hcp
