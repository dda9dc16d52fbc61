// `hcp-plan probe`: this node's topology (hwloc, NVML, NCCL) or that of captures from other
// machines (hwloc XML, NCCL topology XML, nvidia-smi topo -m text); under MPI, every node's.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "command.h"
#include "common_options.h"
#include "hcp/cluster.h"
#include "hcp/file_output.h"
#include "hcp/json_io.h"
#include "hcp/preflight.h"
#include "hcp/topology.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct ProbeOptions {
  OutputOptions out;
  std::vector<std::string> hwloc_xml;
  std::vector<std::string> nccl_topo;
  std::vector<std::string> smi_topo;
  bool require_gpu = false;
  bool nccl = false;
  bool no_nvml = false;
  bool mpi = false;
  std::string sysfs_root;  ///< --sysfs-root: where RDMA port state is read ("" = / when live).
  std::string save;
  std::string name;
  std::string gpu_name;  ///< --gpu-name: device name for captures that do not say it.
};

bool has_captures(const ProbeOptions& o) {
  return !o.hwloc_xml.empty() || !o.nccl_topo.empty() || !o.smi_topo.empty();
}

/// Load and merge every capture given. Exit code 2 on any bad input.
Result<Topology> load_captures(const ProbeOptions& o) {
  auto topo = load_topology_captures(o.hwloc_xml, o.nccl_topo, o.smi_topo);
  if (topo && !o.sysfs_root.empty())
    if (Status s = merge_sysfs_nics(*topo, o.sysfs_root); !s) return s.error();
  return topo;
}

nlohmann::json findings_json(const std::vector<Diagnostic>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : findings)
    out.push_back({{"id", d.id()},
                   {"severity", severity_name(d.severity())},
                   {"message", d.message},
                   {"key", d.key},
                   {"fix", d.fix()}});
  return out;
}

std::string render(const ProbeOptions& o, const Topology& topo) {
  auto findings = fold_repeats(topology_findings(topo));
  if (o.out.format == "json") {
    auto j = topology_to_json(topo);
    j["findings"] = findings_json(findings);
    return json_dump(j, 2) + "\n";
  }
  return topology_text(topo, findings);
}

int save_profile(const ProbeOptions& o, const Topology& topo) {
  if (topo.gpus.empty()) {
    print_error("--save: no GPU in this topology; a cluster profile needs at least one");
    return has_captures(o) ? kExitBadInput : kExitEnvironment;
  }
  std::string name = !o.name.empty() ? o.name : !topo.host.empty() ? topo.host : "probed-node";
  Status saved =
      write_output_file(o.save, cluster_profile_yaml(cluster_profile_from_topology(topo, name)));
  if (!saved) {
    print_error(saved.error().str());
    return kExitBadInput;
  }
  if (nvlink_unknown(topo)) {
    print_warning("--save: these sources do not show whether the GPUs share NVLink; " + o.save +
                  " assumes none (nvlink_domain 1, nvlink_gbps_per_gpu 0): set both by hand");
  }
  return kExitOk;
}

int gather_and_report(const ProbeOptions& o, const Topology& mine) {
  if (!mpi_available()) {
    print_error("--mpi: this hcp-plan was built without MPI (install libopenmpi-dev, rebuild)");
    return kExitEnvironment;
  }
  std::vector<Topology> all;
  bool root = false;
  int rank = 0;
  Status s = mpi_gather_topologies(mine, all, root, rank);
  if (!s) {
    print_error(s.error().str());
    return kExitEnvironment;
  }
  if (!root) return kExitOk;
  ClusterSummary summary = summarize_cluster(all);
  if (o.out.format == "json") {
    auto j = cluster_summary_to_json(summary);
    j["topologies"] = nlohmann::json::array();
    for (const auto& t : all)
      j["topologies"].push_back(topology_to_json(t));
    return emit(o.out, json_dump(j, 2) + "\n") ? kExitOk : kExitBadInput;
  }
  return emit(o.out, cluster_summary_text(summary)) ? kExitOk : kExitBadInput;
}

int run_probe(const ProbeOptions& o) {
  if (o.nccl && has_captures(o)) {
    print_error("--nccl probes this node; it cannot be combined with capture files");
    return kExitBadInput;
  }
  Result<Topology> topo = Error{"", {}, {}};
  if (has_captures(o)) {
    if (Status hwloc = o.hwloc_xml.empty() ? Status(Ok{}) : hwloc_library_status(); !hwloc) {
      print_error(hwloc.error().str());  // Not the file's fault: the library is missing.
      return kExitEnvironment;
    }
    topo = load_captures(o);
  } else {
    LiveProbeOptions live;
    live.use_nvml = !o.no_nvml;
    live.use_nccl = o.nccl;
    if (!o.sysfs_root.empty()) live.sysfs_root = o.sysfs_root;
    topo = probe_live(live);
  }
  if (!topo) {
    print_error(topo.error().str());
    return has_captures(o) ? kExitBadInput : kExitEnvironment;
  }
  if (!o.gpu_name.empty()) {
    if (Status s = name_unnamed_gpus(*topo, o.gpu_name); !s) {
      print_error(s.error().str());
      return kExitBadInput;
    }
  }
  if ((o.require_gpu || o.nccl) && topo->gpus.empty()) {
    print_error(std::string(o.nccl ? "--nccl" : "--require-gpu") +
                ": no NVIDIA GPU found on this node (hwloc saw no PCI device with vendor 0x10de)");
    return kExitEnvironment;
  }
  if (o.nccl) {
    bool nccl_ran = false;
    for (const auto& s : topo->sources)
      nccl_ran = nccl_ran || s.rfind("nccl-topo:nccl-dump", 0) == 0;
    if (!nccl_ran) {
      std::string why = "NCCL topology dump unavailable";
      for (const auto& n : topo->notes)
        if (n.rfind("NCCL: ", 0) == 0) why = n;
      print_error("--nccl: " + why);
      return kExitEnvironment;
    }
  }
  if (!o.save.empty()) {
    int rc = save_profile(o, *topo);
    if (rc != kExitOk) return rc;
  }
  if (o.mpi || launched_under_mpi()) return gather_and_report(o, *topo);
  return emit(o.out, render(o, *topo)) ? kExitOk : kExitBadInput;
}

const CommandRegistration kProbe{
    "probe", "Show this node's topology (GPUs, NVLink, NICs, NUMA) or that of captured files",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<ProbeOptions>();
      sub.add_option("--hwloc-xml", o->hwloc_xml, "hwloc XML export (lstopo file.xml); repeatable")
          ->type_name("FILE");
      sub.add_option("--nccl-topo", o->nccl_topo,
                     "NCCL topology XML (NCCL_TOPO_FILE hint or NCCL_TOPO_DUMP_FILE dump)")
          ->type_name("FILE");
      sub.add_option("--nvidia-smi-topo", o->smi_topo, "Text of `nvidia-smi topo -m`; repeatable")
          ->type_name("FILE");
      sub.add_flag("--require-gpu", o->require_gpu, "Exit 3 when no NVIDIA GPU is found");
      sub.add_flag("--nccl", o->nccl,
                   "Also build an NCCL communicator over the local GPUs and read NCCL's topology "
                   "dump (needs GPUs and libnccl.so.2; exit 3 otherwise)");
      sub.add_flag("--no-nvml", o->no_nvml, "Do not load libnvidia-ml.so.1");
      sub.add_flag("--mpi", o->mpi,
                   "Gather every rank's node on rank 0 and report the nodes that differ (automatic "
                   "under mpirun). Capture paths may contain {rank}");
      sub.add_option("--sysfs-root", o->sysfs_root,
                     "Read RDMA port state from DIR/sys/class/infiniband (live default /; with "
                     "captures only when given)")
          ->type_name("DIR")
          ->check(CLI::ExistingDirectory);
      sub.add_option("--save", o->save, "Write a cluster profile (recipes/clusters format)")
          ->type_name("FILE");
      sub.add_option("--name", o->name, "Profile name for --save (default: host name)");
      sub.add_option("--gpu-name", o->gpu_name,
                     "Device name of GPUs the captures leave unnamed (nvidia-smi topo -m, NCCL "
                     "topology hints): H100, H200, A100-80GB, B200, ... (the GPU spec table's)")
          ->type_name("NAME");
      add_output_options(sub, o->out);
      return [o] { return run_probe(*o); };
    }};

}  // namespace
}  // namespace hcp::cli
