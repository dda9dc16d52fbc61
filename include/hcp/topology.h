// The node topology hcp-plan plans for: GPUs, NVLink links between them, NICs and their distance
// to each GPU, CPUs and NUMA nodes. Filled by the live probe (hwloc, NVML, NCCL) or read from
// captures (hwloc XML, NCCL topology XML, `nvidia-smi topo -m` text); several sources merge.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcp/cluster.h"
#include "hcp/diagnostic.h"
#include "hcp/mpi_world.h"

namespace hcp {

/// How far a NIC is from a GPU, best first. Mirrors nvidia-smi's legend: PIX/PXB are
/// kSameSwitch, PHB is kHostBridge (same PCIe root), NODE is kSameNuma, SYS is kCrossSocket
/// (across NUMA nodes or sockets).
enum class Affinity { kSameSwitch, kHostBridge, kSameNuma, kCrossSocket, kUnknown };

/// Return "same-switch", "host-bridge", "same-numa", "cross-socket" or "unknown".
const char* affinity_name(Affinity a);

/// Kind of network adapter.
enum class NicKind { kInfiniBand, kRoce, kEfa, kEthernet, kUnknown };

/// Return "ib", "roce", "efa", "eth" or "unknown".
const char* nic_kind_name(NicKind k);

/// Logical state of an RDMA port, as the kernel's sysfs `ports/N/state` ("4: ACTIVE") and
/// ibstat's "State" say. Only an active port carries traffic.
enum class PortState { kUnknown, kDown, kInit, kArmed, kActive, kActiveDefer };

/// Return the kernel's spelling: "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"; "unknown".
const char* port_state_name(PortState s);
/// Parse a kernel state name or a sysfs state line ("4: ACTIVE", "ACTIVE"); kUnknown otherwise.
PortState port_state_from(const std::string& text);
/// True for ACTIVE (and ACTIVE_DEFER, an active link riding out a transient fault).
bool port_active(PortState s);

/// One NVIDIA GPU of the node.
struct Gpu {
  int index = -1;             ///< CUDA/NVML index (PCI bus order when the source has none).
  std::string pci_bus_id;     ///< "0000:3b:00.0" (lower case, 4-digit domain); empty if unknown.
  int numa_node = -1;         ///< NUMA node the GPU's PCIe root sits on; -1 if unknown/ambiguous.
  std::string name;           ///< "A100-SXM4-80GB"; empty if unknown.
  int pci_device_id = 0;      ///< PCI device id (0x2330 for H100 SXM5); 0 if unknown.
  int sm = 0;                 ///< Compute capability x10 (80, 90); 0 if unknown.
  double memory_gib = 0;      ///< 0 if unknown.
  double pcie_gbps = 0;       ///< PCIe link GB/s per direction (current link state); 0 if unknown.
  std::string cpu_affinity;   ///< CPU list as the source printed it ("0-55,112-167").
  std::string numa_affinity;  ///< NUMA list as the source printed it ("0", "0-1").
  int nvlinks_down = -1;      ///< NVLinks present but inactive (NVML only); -1 if unknown.
};

/// NVLink between the GPUs of the node.
struct NvlinkInfo {
  /// matrix[i][j]: NVLinks joining GPU i and GPU j (through NVSwitch: the links both can use at
  /// once, as nvidia-smi's NV#). 0 = no NVLink, -1 = unknown (capture truncated). Diagonal 0.
  std::vector<std::vector<int>> matrix;
  /// NVLinks from each GPU into the NVSwitch fabric (0 when it has none); -1 if unknown.
  std::vector<int> switch_links;
  /// NVLinks from each GPU to a CPU (POWER8/9 NVLink CPUs); 0 when none.
  std::vector<int> cpu_links;
  bool via_switch = false;  ///< GPUs reach each other through NVSwitch.
  /// Derived by finalize_topology(): active NVLinks per GPU (all targets); -1 if unknown.
  std::vector<int> links_per_gpu;
  /// Derived: NVLink GB/s per GPU per direction (links x per-link rate); 0 if unknown.
  std::vector<double> gbps_per_gpu;
  double gbps_per_link =
      0;  ///< Per-link GB/s per direction from the GPU architecture; 0 if unknown.
};

/// One network adapter port.
struct Nic {
  std::string name;    ///< "mlx5_0", "rdmap79s0", "eth0"; the PCI bus id when unnamed.
  std::string netdev;  ///< Linux network interface of the same function ("ib0"); may be empty.
  NicKind kind = NicKind::kUnknown;
  double gbps = 0;         ///< Link rate in Gb/s; 0 if unknown.
  int numa_node = -1;      ///< -1 if unknown.
  std::string pci_bus_id;  ///< Empty if unknown or virtual.
  int port = 0;            ///< HCA port (NCCL dumps); 0 if unknown.
  /// Logical port state (sysfs); kUnknown when no source tells (captures without sysfs).
  PortState state = PortState::kUnknown;
  std::string phys_state;  ///< Physical state as sysfs names it ("LinkUp", "Disabled"); "" unknown.
  /// Distance to every GPU, by GPU position in Topology::gpus; kUnknown where the source is silent.
  std::vector<Affinity> gpu_affinity;
  /// Derived: GPU indices at the best known affinity level, and that level.
  std::vector<int> nearest_gpus;
  Affinity nearest_level = Affinity::kUnknown;
};

/// One NUMA node (memory domain) of the host.
struct NumaNode {
  int os_index = 0;
  std::string cpus;       ///< CPU list ("0-23,48-71"); empty if unknown.
  double memory_gib = 0;  ///< 0 if unknown.
};

/// What the node looks like, as far as the sources tell.
struct Topology {
  std::string host;       ///< Host name (live probe) or capture file stem.
  std::vector<Gpu> gpus;  ///< Sorted by index.
  NvlinkInfo nvlink;
  std::vector<Nic> nics;
  std::vector<NumaNode> numa_nodes;
  int packages = 0;                  ///< CPU sockets; 0 if unknown.
  int cores = 0;                     ///< 0 if unknown.
  int pus = 0;                       ///< Hardware threads; 0 if unknown.
  int gpus_per_node = 0;             ///< Derived: number of GPUs.
  std::vector<std::string> sources;  ///< "hwloc:FILE", "nvml", "nccl-topo:FILE", "nvidia-smi:FILE".
  std::vector<std::string> warnings;  ///< Truncated captures, conflicting sources, missing parts.
  std::vector<std::string> notes;     ///< What the probe could not use and why (no NVML, ...).
};

// --- Offline inputs ----------------------------------------------------------------------------

/// Read an hwloc 1.x/2.x XML export. Return an error (one line) on junk or unreadable files.
Result<Topology> load_hwloc_xml(const std::string& path);
/// Whether libhwloc, which load_hwloc_xml and the live probe open at run time, can be used: an
/// error naming the library and its Debian package when it cannot (the environment's fault).
Status hwloc_library_status();
/// Parse NCCL topology XML text (NCCL_TOPO_FILE hint or NCCL_TOPO_DUMP_FILE dump).
/// `source` names the input in messages.
Result<Topology> parse_nccl_topo(const std::string& text, const std::string& source);
/// Read an NCCL topology XML file.
Result<Topology> load_nccl_topo(const std::string& path);
/// Parse the text of `nvidia-smi topo -m` (or `-mp`): tab or space separated, with or without
/// legend, NIC legend and affinity columns. Truncated text gives what it holds plus warnings.
/// Terminal control sequences are skipped: nvidia-smi underlines the header (ESC[4m) even when
/// its output goes to a file.
Result<Topology> parse_nvidia_smi_topo(const std::string& text, const std::string& source);
/// Read a `nvidia-smi topo -m` capture file.
Result<Topology> load_nvidia_smi_topo(const std::string& path);

// --- Live probe --------------------------------------------------------------------------------

struct LiveProbeOptions {
  bool use_nvml = true;          ///< dlopen libnvidia-ml.so.1 when GPUs are present.
  bool use_nccl = false;         ///< dlopen libnccl.so.2 and dump NCCL's topology (needs GPUs).
  std::string sysfs_root = "/";  ///< Where sys/class/infiniband is read for NIC port state.
};

// --- RDMA port state from sysfs ----------------------------------------------------------------

/// Read every RDMA port below `root` ("/" on the node itself, a copied tree in tests):
/// <root>/sys/class/infiniband/<dev>/ports/<n>/{state,phys_state,rate,link_layer}, the netdev
/// under <dev>/device/net/ and the NUMA node in <dev>/device/numa_node. One Nic per port (name =
/// device, port = n, kind ib/roce/efa from link_layer and name, gbps from rate). Unreadable or
/// garbled files leave that field unknown and add a warning. A root without RDMA devices gives
/// no NICs and a note. Error when `root` is not a directory. Source "sysfs:ROOT".
Result<Topology> read_sysfs_nics(const std::string& root);

/// Merge read_sysfs_nics(root) into `topo` (NICs matched by device name, sysfs-only NICs added).
/// An empty `root` reads nothing and, when `topo` has RDMA NICs, notes that their port state is
/// unknown. Error when `root` is given but is not a directory.
Status merge_sysfs_nics(Topology& topo, const std::string& root);

/// This machine's host name ("localhost" when the system does not say).
std::string host_name();

/// Probe the node this runs on: hwloc for CPUs, NUMA, PCI GPUs and NICs; NVML and NCCL loaded at
/// run time. Never needs a GPU: without one the result simply has no GPUs and a note saying so.
Result<Topology> probe_live(const LiveProbeOptions& options);

/// Facts NVML gives for one GPU (filled by the dlopen layer, or by tests).
struct NvmlGpuInfo {
  int index = 0;
  std::string pci_bus_id;
  std::string name;
  double memory_gib = 0;
  int sm = 0;
  /// Active links by remote end: remote PCI bus id (normalised), or "switch" / "cpu".
  std::vector<std::string> active_link_targets;
  int inactive_links = 0;
};

/// Build a topology from NVML facts (NVLink counts between GPUs, to NVSwitches and to CPUs).
Topology topology_from_nvml(const std::vector<NvmlGpuInfo>& gpus);

/// Result of trying to load NVML: the GPUs found, or why not.
struct NvmlProbe {
  bool loaded = false;
  std::string problem;  ///< Why NVML gave nothing ("libnvidia-ml.so.1 not found").
  std::vector<NvmlGpuInfo> gpus;
};
/// dlopen libnvidia-ml.so.1 and read every GPU. Never fails hard.
NvmlProbe probe_nvml();

/// Result of the NCCL topology dump.
struct NcclProbe {
  bool ran = false;
  std::string problem;   ///< Why NCCL gave nothing.
  std::string dump_xml;  ///< NCCL_TOPO_DUMP_FILE content.
};
/// dlopen libnccl.so.2, ncclCommInitAll over `gpu_count` local GPUs with NCCL_TOPO_DUMP_FILE set,
/// read the dump back.
NcclProbe probe_nccl(int gpu_count);

// --- Merging, derived fields, findings, output --------------------------------------------------

/// Merge `extra` into `base`: GPUs matched by PCI bus id, else by index; NICs by name or bus id.
/// The first known value wins; conflicts become warnings. Calls finalize_topology().
void merge_topology(Topology& base, const Topology& extra);

/// Compute derived fields: GPU order, per-GPU links and GB/s, nearest GPUs of each NIC,
/// gpus_per_node. Idempotent.
void finalize_topology(Topology& topo);

/// JSON as ARCHITECTURE.md §4 (`gpus`, `nvlink`, `nics`, `gpus_per_node`, `sources`) plus
/// `numa_nodes`, `cpus`, `warnings`, `notes`. Unknown numbers are null.
nlohmann::json topology_to_json(const Topology& topo);
/// Read topology_to_json() output back (for `--topology probe.json` and the MPI gather).
Result<Topology> topology_from_json(const nlohmann::json& j, const std::string& source);
/// Readable summary: GPU table, NVLink matrix, NIC table with affinity, findings.
std::string topology_text(const Topology& topo, const std::vector<Diagnostic>& findings);

/// GPUs that share NVLink on this node, as consecutive blocks: the largest block size dividing
/// the node whose every block of consecutive GPUs is pairwise NVLinked (all GPUs behind NVSwitch
/// or fully meshed; 2 for NVLink-bridge pairs; 1 without NVLink). Zero when the node has no GPU.
int64_t nvlink_domain_of(const Topology& node);
/// True when the sources show no NVLink but leave some GPU pair unknown (a truncated capture,
/// an NCCL topology without NVLink entries): "none" is then not a finding.
bool nvlink_unknown(const Topology& node);
/// Give every GPU the capture left unnamed (`nvidia-smi topo -m`, NCCL topology hints) the
/// device name `device` (probe --gpu-name), and its compute capability from the GPU spec table,
/// then finalize_topology(). Error (one line, with a did-you-mean) when the table does not know
/// the name.
Status name_unnamed_gpus(Topology& topo, const std::string& device);
/// A cluster profile describing this node type (for `probe --save`): GPU count, NVLink domain
/// (from the NVLink matrix), NICs; memory, BF16 / FP8 peaks and, where the capture shows NVLink
/// but not its rate, the NVLink rate from the GPU spec table by device name.
ClusterProfile cluster_profile_from_topology(const Topology& topo, const std::string& name);

// --- Many nodes ---------------------------------------------------------------------------------

/// How one node differs from the majority of the cluster.
struct NodeDifference {
  std::string host;
  std::vector<std::string> differences;  ///< "4 GPUs (majority 8)", "NVLink matrix differs", ...
};

/// Cluster summary built by rank 0 from every node's topology.
struct ClusterSummary {
  int node_count = 0;
  std::vector<std::string> hosts;
  std::vector<NodeDifference> odd_nodes;  ///< Nodes that differ from the majority.
};

/// The most frequent value (the first seen wins a tie, so rank order decides); "" for none.
std::string majority_of(const std::vector<std::string>& values);
/// Compare nodes against the majority: GPU count, NVLink matrix, NIC count, NIC speeds and
/// active fabric NIC ports (where port state is known).
ClusterSummary summarize_cluster(const std::vector<Topology>& nodes);
/// JSON of a cluster summary: {"nodes","hosts","differing_nodes":[{"host","differences"}]}.
nlohmann::json cluster_summary_to_json(const ClusterSummary& summary);
/// Text of a cluster summary.
std::string cluster_summary_text(const ClusterSummary& summary);

/// Gather every rank's topology JSON on rank 0 (joins and leaves the MPI world). On rank 0 `all`
/// receives every node in rank order and `is_root` is true; other ranks get an empty list.
Status mpi_gather_topologies(const Topology& mine, std::vector<Topology>& all, bool& is_root,
                             int& rank);

// --- Small helpers shared by the readers (exposed for tests) -----------------------------------

/// Normalise a PCI bus id: lower case, 4-digit domain ("00000000:3B:00.0" -> "0000:3b:00.0").
std::string normalize_bus_id(const std::string& id);
/// GPU model name and SM from an NVIDIA PCI device id; empty name / 0 when not in the table.
std::string gpu_name_from_device_id(int device_id);
int gpu_sm_from_device_id(int device_id);
/// Per-link NVLink GB/s per direction from SM (20 for SM60, 25 for SM70-SM90, 50 for SM100+).
double nvlink_gbps_per_link(int sm);

}  // namespace hcp
