// RDMA port state from sysfs: /sys/class/infiniband/<dev>/ports/<n>/{state,phys_state,rate,
// link_layer}, as the kernel's InfiniBand core writes them (drivers/infiniband/core/sysfs.c) and
// ibstat prints them. Every path is taken below a root directory so tests can point it at a tree.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "hcp/file_input.h"
#include "topology_internal.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

/// The kernel's names for ib_port_state values 1..5 ("0: NOP" means no state).
struct StateName {
  PortState state;
  const char* name;
};
constexpr StateName kStateNames[] = {{PortState::kDown, "DOWN"},
                                     {PortState::kInit, "INIT"},
                                     {PortState::kArmed, "ARMED"},
                                     {PortState::kActive, "ACTIVE"},
                                     {PortState::kActiveDefer, "ACTIVE_DEFER"}};

/// The kernel's names for ib_port_phys_state values 1..7.
constexpr const char* kPhysStateNames[] = {
    "Sleep",  "Polling",           "Disabled", "PortConfigurationTraining",
    "LinkUp", "LinkErrorRecovery", "Phy Test"};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

/// "4: ACTIVE" -> "ACTIVE"; a line without the "N: " prefix is returned trimmed.
std::string without_number(const std::string& line) {
  std::string t = trim(line);
  size_t colon = t.find(':');
  if (colon == std::string::npos || colon == 0) return t;
  bool digits = std::all_of(t.begin(), t.begin() + static_cast<long>(colon),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  return digits ? trim(t.substr(colon + 1)) : t;
}

/// First line of a small file (at most 256 characters); nullopt when it cannot be read.
std::optional<std::string> first_line(const fs::path& path) {
  auto line = read_system_file_line(path.string());
  if (!line) return std::nullopt;
  return line->substr(0, 256);
}

std::string phys_state_from(const std::string& line) {
  std::string name = without_number(line);
  for (const char* known : kPhysStateNames)
    if (name == known) return name;
  return "";
}

/// "400 Gb/sec (4X NDR)" -> 400; 0 when the text is not a rate.
double rate_from(const std::string& line) {
  std::string t = trim(line);
  double gbps = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), gbps);
  if (ec != std::errc() ||
      t.find("Gb/sec", static_cast<size_t>(end - t.data())) == std::string::npos)
    return 0;
  return gbps > 0 && gbps <= probe_detail::kMaxNicGbps ? gbps : 0;
}

NicKind kind_from(const std::string& link_layer, const std::string& device) {
  std::string layer = trim(link_layer);
  if (layer == "InfiniBand") return NicKind::kInfiniBand;
  if (layer == "Ethernet") return NicKind::kRoce;
  if (device.rfind("efa", 0) == 0 || device.rfind("rdmap", 0) == 0) return NicKind::kEfa;
  return NicKind::kUnknown;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

/// The netdev of `port`: the only one under device/net, else the one whose dev_port is port-1.
std::string netdev_of(const fs::path& device_dir, int port) {
  auto nets = sorted_entries(device_dir / "net");
  if (nets.size() <= 1) return nets.empty() ? "" : nets.front().filename().string();
  for (const fs::path& n : nets)
    if (trim(first_line(n / "dev_port").value_or("")) == std::to_string(port - 1))
      return n.filename().string();
  return nets.front().filename().string();
}

/// PCI bus id from the `device` link (live sysfs); empty when it is not a link or not a bus id.
std::string bus_id_of(const fs::path& device_link) {
  std::error_code ec;
  fs::path target = fs::read_symlink(device_link, ec);
  if (ec) return "";
  std::string name = target.filename().string();
  return name.find(':') != std::string::npos && name.find('.') != std::string::npos
             ? normalize_bus_id(name)
             : "";
}

int numa_of(const fs::path& device_dir) {
  std::string text = trim(first_line(device_dir / "numa_node").value_or(""));
  int node = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), node);
  bool whole = ec == std::errc() && end == text.data() + text.size();
  return whole && node >= 0 && node <= probe_detail::kMaxNumaNode ? node : -1;
}

/// One port directory: a Nic, with a warning for each file present but not understood.
Nic read_port(const fs::path& dev_dir, const fs::path& port_dir, int port,
              std::vector<std::string>& warnings) {
  Nic nic;
  nic.name = dev_dir.filename().string();
  nic.port = port;
  probe_detail::read_sysfs_port(port_dir.string(), nic, warnings);
  if (nic.kind == NicKind::kUnknown) nic.kind = kind_from("", nic.name);
  nic.netdev = netdev_of(dev_dir / "device", port);
  nic.numa_node = numa_of(dev_dir / "device");
  nic.pci_bus_id = bus_id_of(dev_dir / "device");
  return nic;
}

/// Port numbers under <dev>/ports, ascending; non-numeric entries are skipped.
std::vector<int> ports_of(const fs::path& dev_dir) {
  std::vector<int> ports;
  for (const fs::path& p : sorted_entries(dev_dir / "ports")) {
    std::string name = p.filename().string();
    int n = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    if (ec == std::errc() && end == name.data() + name.size() && n > 0) ports.push_back(n);
  }
  std::sort(ports.begin(), ports.end());
  return ports;
}

bool has_rdma_nic(const Topology& topo) {
  return std::any_of(topo.nics.begin(), topo.nics.end(),
                     [](const Nic& n) { return n.kind != NicKind::kEthernet; });
}

}  // namespace

void probe_detail::read_sysfs_port(const std::string& port_dir, Nic& nic,
                                   std::vector<std::string>& warnings) {
  const fs::path dir(port_dir);
  const std::string label = "sysfs: " + nic.name + " port " + dir.filename().string();
  auto not_understood = [&](const char* what, const std::string& line) {
    warnings.push_back(label + ": " + what + " '" + trim(line) + "' not understood");
  };
  if (auto s = first_line(dir / "state")) {
    PortState state = port_state_from(*s);
    if (state == PortState::kUnknown)
      not_understood("state", *s);
    else
      nic.state = state;
  }
  if (auto s = first_line(dir / "phys_state")) {
    std::string phys = phys_state_from(*s);
    if (phys.empty())
      not_understood("phys_state", *s);
    else
      nic.phys_state = phys;
  }
  if (auto s = first_line(dir / "rate")) {
    double gbps = rate_from(*s);
    if (gbps == 0)
      not_understood("rate", *s);
    else
      nic.gbps = gbps;
  }
  NicKind kind = kind_from(first_line(dir / "link_layer").value_or(""), "");
  if (kind != NicKind::kUnknown) nic.kind = kind;
}

const char* port_state_name(PortState s) {
  for (const StateName& n : kStateNames)
    if (n.state == s) return n.name;
  return "unknown";
}

PortState port_state_from(const std::string& text) {
  std::string name = without_number(text);
  for (const StateName& n : kStateNames)
    if (name == n.name) return n.state;
  return PortState::kUnknown;
}

bool port_active(PortState s) {
  return s == PortState::kActive || s == PortState::kActiveDefer;
}

Result<Topology> read_sysfs_nics(const std::string& root) {
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec))
    return Error{"sysfs root '" + root + "' is not a directory", Location{root, 0, 0}, ""};
  Topology topo;
  topo.sources.push_back("sysfs:" + root);
  const fs::path ib = fs::path(root) / "sys/class/infiniband";
  for (const fs::path& dev : sorted_entries(ib)) {
    auto ports = ports_of(dev);
    if (ports.empty())
      topo.warnings.push_back("sysfs: " + dev.filename().string() + " has no ports/ directory");
    for (int port : ports)
      topo.nics.push_back(
          read_port(dev, dev / "ports" / std::to_string(port), port, topo.warnings));
  }
  if (topo.nics.empty())
    topo.notes.push_back("sysfs: no RDMA port under " + ib.string() + " (NIC port state unknown)");
  return topo;
}

Status merge_sysfs_nics(Topology& topo, const std::string& root) {
  if (root.empty()) {
    if (has_rdma_nic(topo))
      topo.notes.push_back(
          "NIC port state unknown: the captures carry none (give --sysfs-root to read it)");
    return Ok{};
  }
  auto sysfs = read_sysfs_nics(root);
  if (!sysfs) return sysfs.error();
  merge_topology(topo, *sysfs);
  return Ok{};
}

}  // namespace hcp
