// The live probe: hwloc for the node, NVML for GPUs and NVLink, NCCL's own topology dump.
// NCCL is loaded at run time (dlopen libnccl.so.2), like NVML, so nothing is needed at link time.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "hwloc_internal.h"
#include "topology_internal.h"

namespace hcp {
namespace {

struct ncclComm;
using ncclCommInitAllFn = int (*)(ncclComm**, int, const int*);
using ncclCommDestroyFn = int (*)(ncclComm*);
using ncclGetErrorStringFn = const char* (*)(int);

/// Restores an environment variable on scope exit.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

NcclProbe probe_nccl(int gpu_count) {
  NcclProbe out;
  if (gpu_count <= 0) {
    out.problem = "no NVIDIA GPU, so no NCCL communicator can be built";
    return out;
  }
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    out.problem = "libnccl.so.2 not found";
    return out;
  }
  auto init_all = reinterpret_cast<ncclCommInitAllFn>(dlsym(lib, "ncclCommInitAll"));
  auto destroy = reinterpret_cast<ncclCommDestroyFn>(dlsym(lib, "ncclCommDestroy"));
  auto error_string = reinterpret_cast<ncclGetErrorStringFn>(dlsym(lib, "ncclGetErrorString"));
  if (init_all == nullptr || destroy == nullptr) {
    out.problem = "libnccl.so.2 lacks ncclCommInitAll/ncclCommDestroy";
    return out;
  }
  std::filesystem::path dump = std::filesystem::temp_directory_path() /
                               ("hcp_nccl_topo_" + std::to_string(getpid()) + ".xml");
  {
    ScopedEnv file("NCCL_TOPO_DUMP_FILE", dump.string());
    std::vector<ncclComm*> comms(static_cast<size_t>(gpu_count), nullptr);
    int r = init_all(comms.data(), gpu_count, nullptr);
    if (r != 0) {
      out.problem = std::string("ncclCommInitAll failed: ") +
                    (error_string != nullptr ? error_string(r) : std::to_string(r).c_str());
      return out;
    }
    for (ncclComm* c : comms)
      destroy(c);
  }
  auto text = probe_detail::read_text_file(dump.string());
  std::error_code ec;
  std::filesystem::remove(dump, ec);
  if (!text) {
    out.problem = "NCCL wrote no topology dump to " + dump.string();
    return out;
  }
  out.ran = true;
  out.dump_xml = *text;
  return out;
}

Result<Topology> probe_live(const LiveProbeOptions& options) {
  auto topo = probe_detail::hwloc_live_topology();
  if (!topo) return topo;
  topo->host = host_name();
  if (options.use_nvml) {
    NvmlProbe nvml = probe_nvml();
    if (!nvml.loaded) {
      topo->notes.push_back("NVML: " + nvml.problem);
    } else if (nvml.gpus.empty()) {
      topo->notes.push_back("NVML: loaded, but it lists no GPU");
    } else {
      merge_topology(*topo, topology_from_nvml(nvml.gpus));
    }
  }
  if (options.use_nccl) {
    NcclProbe nccl = probe_nccl(static_cast<int>(topo->gpus.size()));
    if (!nccl.ran) {
      topo->notes.push_back("NCCL: " + nccl.problem);
    } else {
      auto dumped = parse_nccl_topo(nccl.dump_xml, "nccl-dump");
      if (dumped) {
        merge_topology(*topo, *dumped);
      } else {
        topo->warnings.push_back("NCCL dump unreadable: " + dumped.error().str());
      }
    }
  }
  if (!options.sysfs_root.empty())
    if (Status s = merge_sysfs_nics(*topo, options.sysfs_root); !s)
      topo->notes.push_back("NIC port state unknown: " + s.error().str());
  if (topo->gpus.empty())
    topo->notes.push_back(
        "no NVIDIA GPU found: hwloc saw no PCI device with vendor 0x10de and "
        "class 0x0302/0x0300");
  finalize_topology(*topo);
  return topo;
}

}  // namespace hcp
