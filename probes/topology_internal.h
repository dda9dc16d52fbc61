// Helpers shared by the topology readers inside the probes module (not part of the public API).
#pragma once

#include <string>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/topology.h"

namespace hcp::probe_detail {

/// Size the NVLink matrix, switch/CPU link tables and NIC affinity rows to the GPU count
/// (new cells unknown).
void resize_gpu_tables(Topology& topo);
/// A GPU known from its PCI function: name and SM from the device id table.
Gpu make_pci_gpu(int index, const std::string& bus_id, int device_id);
/// Fill GPU pair cells from NVSwitch links: a pair shares min(links of each) links. Sets
/// via_switch.
void fill_switch_matrix(NvlinkInfo& nv);

/// Read a capture file (read_input_file, InputKind::kCapture): an Error naming the path when it
/// cannot be read, is a directory or is too large; a UTF-8 BOM is stripped.
Result<std::string> read_text_file(const std::string& path);
/// Return an error when `text` holds binary data (NUL or other control bytes), naming the offset.
Status check_text(const std::string& text, const std::string& source, const std::string& what);
/// Return an error when XML `text` has a DOCTYPE other than hwloc's own (`<!DOCTYPE topology
/// SYSTEM "hwloc2.dtd">`, no internal subset), an ENTITY declaration, or an entity reference
/// other than XML's five predefined ones and character references (hwloc's libxml import
/// crashes on `&ent;`), naming the line.
Status check_xml_markup(const std::string& text, const std::string& source,
                        const std::string& what);
/// Blank out (with spaces, so offsets and lines stay) hwloc's own DOCTYPE: the XML given to
/// hwloc then has no DOCTYPE at all.
void blank_hwloc_doctype(std::string& text);
/// Largest believable values, for "absurd number" checks.
inline constexpr int kMaxNvlinksPerPair = 36;  ///< NVML_NVLINK_MAX_LINKS in current drivers.
inline constexpr double kMaxNicGbps = 3200;    ///< 3.2 Tb/s per port.
inline constexpr int kMaxNumaNode = 4095;
/// GPUs one node's topology may list: nvidia-smi numbers them GPU0..GPU1023. Each reader's tables
/// are GPU x GPU, so an XML capture of 100,000 GPUs once took gigabytes before it failed.
inline constexpr int kMaxGpusPerNode = 1024;
/// `gbps` when it is a PCIe rate (kPcieGBps: finite, normal, at most PCIe 7.0 x32); else 0
/// (unknown), with a warning naming `where` when the capture gave a number outside that range.
double checked_pcie_gbps(double gbps, const std::string& where, std::vector<std::string>& warnings);
/// An error when a reader has found more than kMaxGpusPerNode GPUs in `source`.
Status check_gpu_count(size_t gpus, const std::string& source);

/// Fill `nic` from one sysfs RDMA port directory (<root>/sys/class/infiniband/<dev>/ports/<n>):
/// state, phys_state, kind (link_layer) and Gb/s (rate). Missing files leave the field as it
/// was; files present but not understood leave it too and add a line to `warnings`.
void read_sysfs_port(const std::string& port_dir, Nic& nic, std::vector<std::string>& warnings);

/// File name without directories, for source labels.
std::string base_name(const std::string& path);

}  // namespace hcp::probe_detail
