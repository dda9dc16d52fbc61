// NVML loaded at run time with dlopen: no link-time dependency, so the binary starts on machines
// without an NVIDIA driver. Only the few entry points used are declared here (NVML's ABI).
#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "topology_internal.h"

namespace hcp {
namespace {

// --- NVML ABI subset ---------------------------------------------------------------------------
using nvmlReturn = int;
constexpr nvmlReturn kNvmlSuccess = 0;
constexpr nvmlReturn kNvmlInvalidArgument = 2;
struct nvmlDevice_st;
using nvmlDevice = nvmlDevice_st*;
struct NvmlPciInfo {  // nvmlPciInfo_t
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct NvmlMemory {  // nvmlMemory_t
  unsigned long long total, free, used;
};
constexpr int kNvmlRemoteIbmNpu = 1, kNvmlRemoteSwitch = 2;
constexpr unsigned kMaxLinks = 36;  // Current NVML_NVLINK_MAX_LINKS (18 in CUDA 11.8 headers).

struct NvmlApi {
  void* lib = nullptr;
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*shutdown)() = nullptr;
  nvmlReturn (*count)(unsigned*) = nullptr;
  nvmlReturn (*handle)(unsigned, nvmlDevice*) = nullptr;
  nvmlReturn (*pci)(nvmlDevice, NvmlPciInfo*) = nullptr;
  nvmlReturn (*name)(nvmlDevice, char*, unsigned) = nullptr;
  nvmlReturn (*memory)(nvmlDevice, NvmlMemory*) = nullptr;
  nvmlReturn (*cc)(nvmlDevice, int*, int*) = nullptr;
  nvmlReturn (*link_state)(nvmlDevice, unsigned, int*) = nullptr;
  nvmlReturn (*remote_pci)(nvmlDevice, unsigned, NvmlPciInfo*) = nullptr;
  nvmlReturn (*remote_type)(nvmlDevice, unsigned, int*) = nullptr;
  const char* (*error_string)(nvmlReturn) = nullptr;
};

template <typename F>
void bind(void* lib, F& fn, const char* name, const char* fallback = nullptr) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr && fallback != nullptr) sym = dlsym(lib, fallback);
  fn = reinterpret_cast<F>(sym);
}

bool load(NvmlApi& api, std::string& problem) {
  api.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (api.lib == nullptr) {
    problem = "libnvidia-ml.so.1 not found (no NVIDIA driver on this node)";
    return false;
  }
  bind(api.lib, api.init, "nvmlInit_v2", "nvmlInit");
  bind(api.lib, api.shutdown, "nvmlShutdown");
  bind(api.lib, api.count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  bind(api.lib, api.handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  bind(api.lib, api.pci, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
  bind(api.lib, api.name, "nvmlDeviceGetName");
  bind(api.lib, api.memory, "nvmlDeviceGetMemoryInfo");
  bind(api.lib, api.cc, "nvmlDeviceGetCudaComputeCapability");
  bind(api.lib, api.link_state, "nvmlDeviceGetNvLinkState");
  bind(api.lib, api.remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2",
       "nvmlDeviceGetNvLinkRemotePciInfo");
  bind(api.lib, api.remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
  bind(api.lib, api.error_string, "nvmlErrorString");
  if (!api.init || !api.shutdown || !api.count || !api.handle || !api.pci) {
    problem = "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlDeviceGetHandleByIndex_v2";
    return false;
  }
  return true;
}

std::string error_text(const NvmlApi& api, nvmlReturn r) {
  if (api.error_string != nullptr) return api.error_string(r);
  return "NVML error " + std::to_string(r);
}

bool invisible(const std::string& bus) {
  return bus.find("ffffffff") != std::string::npos || bus.rfind("fffffff:", 0) == 0;
}

void read_links(const NvmlApi& api, nvmlDevice dev, NvmlGpuInfo& info) {
  if (api.link_state == nullptr) return;
  for (unsigned link = 0; link < kMaxLinks; ++link) {
    int active = 0;
    nvmlReturn r = api.link_state(dev, link, &active);
    if (r == kNvmlInvalidArgument) break;  // past the last link (GB200 stops at 18)
    if (r != kNvmlSuccess) continue;       // not supported: no NVLink on this link id
    if (active == 0) {
      ++info.inactive_links;
      continue;
    }
    std::string target = "switch";
    NvmlPciInfo remote{};
    if (api.remote_pci != nullptr && api.remote_pci(dev, link, &remote) == kNvmlSuccess &&
        !invisible(normalize_bus_id(remote.bus_id)))
      target = normalize_bus_id(remote.bus_id);
    int type = -1;
    if (api.remote_type != nullptr && api.remote_type(dev, link, &type) == kNvmlSuccess) {
      if (type == kNvmlRemoteSwitch) target = "switch";
      if (type == kNvmlRemoteIbmNpu) target = "cpu";
    }
    info.active_link_targets.push_back(target);
  }
}

NvmlGpuInfo read_gpu(const NvmlApi& api, unsigned index, nvmlDevice dev) {
  NvmlGpuInfo info;
  info.index = static_cast<int>(index);
  NvmlPciInfo pci{};
  if (api.pci(dev, &pci) == kNvmlSuccess) info.pci_bus_id = normalize_bus_id(pci.bus_id);
  char name[96] = {};
  if (api.name != nullptr && api.name(dev, name, sizeof name) == kNvmlSuccess) info.name = name;
  NvmlMemory mem{};
  if (api.memory != nullptr && api.memory(dev, &mem) == kNvmlSuccess)
    info.memory_gib = static_cast<double>(mem.total) / (1024.0 * 1024 * 1024);
  int major = 0, minor = 0;
  if (api.cc != nullptr && api.cc(dev, &major, &minor) == kNvmlSuccess)
    info.sm = major * 10 + minor;
  read_links(api, dev, info);
  return info;
}

}  // namespace

NvmlProbe probe_nvml() {
  NvmlProbe out;
  NvmlApi api;
  if (!load(api, out.problem)) return out;
  nvmlReturn r = api.init();
  if (r != kNvmlSuccess) {
    out.problem = "nvmlInit failed: " + error_text(api, r);
    return out;
  }
  unsigned count = 0;
  r = api.count(&count);
  if (r != kNvmlSuccess) {
    out.problem = "nvmlDeviceGetCount failed: " + error_text(api, r);
  } else {
    out.loaded = true;
    for (unsigned i = 0; i < count; ++i) {
      nvmlDevice dev = nullptr;
      if (api.handle(i, &dev) == kNvmlSuccess) out.gpus.push_back(read_gpu(api, i, dev));
    }
  }
  api.shutdown();
  // The library stays loaded: unloading NVML while its threads wind down is not safe.
  return out;
}

Topology topology_from_nvml(const std::vector<NvmlGpuInfo>& infos) {
  Topology topo;
  topo.sources.push_back("nvml");
  for (const auto& info : infos) {
    Gpu g;
    g.index = info.index;
    g.pci_bus_id = info.pci_bus_id;
    g.name = info.name;
    if (g.name.rfind("NVIDIA ", 0) == 0) g.name = g.name.substr(7);
    g.memory_gib = info.memory_gib;
    g.sm = info.sm;
    g.nvlinks_down = info.inactive_links;
    topo.gpus.push_back(g);
  }
  probe_detail::resize_gpu_tables(topo);
  auto& nv = topo.nvlink;
  size_t n = infos.size();
  for (size_t i = 0; i < n; ++i) {
    nv.switch_links[i] = 0;
    for (size_t j = 0; j < n; ++j)
      if (j != i) nv.matrix[i][j] = 0;
    for (const auto& target : infos[i].active_link_targets) {
      if (target == "switch") {
        ++nv.switch_links[i];
        continue;
      }
      if (target == "cpu") {
        ++nv.cpu_links[i];
        continue;
      }
      auto peer = std::find_if(infos.begin(), infos.end(),
                               [&](const NvmlGpuInfo& o) { return o.pci_bus_id == target; });
      if (peer != infos.end()) {
        ++nv.matrix[i][peer - infos.begin()];
      } else {
        ++nv.switch_links[i];  // a far end that is no local GPU: an NVSwitch port
      }
    }
  }
  probe_detail::fill_switch_matrix(nv);
  finalize_topology(topo);
  return topo;
}

}  // namespace hcp
