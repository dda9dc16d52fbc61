// Loader of the optional GPU benchmark library (libhcp_gpu_bench.so, built from kernels/) and the
// per-layer measurements a layout implies (see include/hcp/sim.h).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "gpu_bench_abi.h"
#include "hcp/sim.h"

namespace hcp {

namespace {

/// Build an unlocated error field by field (GCC 12 warns on the aggregate form here).
Error plain_error(const std::string& message) {
  Error e;
  e.message = message;
  return e;
}

constexpr const char* kLibraryName = "libhcp_gpu_bench.so";
constexpr const char* kDriverLibrary = "libcuda.so.1";

std::string executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

/// HCP_GPU_BENCH_LIB when set and not empty (an empty value is unset).
const char* library_from_environment() {
  const char* env = std::getenv("HCP_GPU_BENCH_LIB");
  return env != nullptr && *env != '\0' ? env : nullptr;
}

std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  if (const char* env = library_from_environment()) {
    return {env};  // an explicit choice is the only candidate
  }
  const std::string dir = executable_dir();
  if (!dir.empty()) {
    paths.push_back(dir + "/" + kLibraryName);
    paths.push_back(dir + "/../lib/hcp-plan/" + kLibraryName);
  }
#ifdef HCP_GPU_BENCH_BUILD_PATH
  paths.push_back(HCP_GPU_BENCH_BUILD_PATH);
#endif
  return paths;
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

/// The library's entry points once loaded (process lifetime; never unloaded).
struct GpuBenchLibrary {
  void* handle = nullptr;
  hcp_gpu_bench_info_fn info = nullptr;
  hcp_gpu_bench_attention_fn attention = nullptr;
  hcp_gpu_bench_collective_fn collective = nullptr;
};

/// Return "" when the NVIDIA driver library can be loaded, else what is missing.
std::string driver_missing() {
  void* driver = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) return std::string("NVIDIA driver (") + kDriverLibrary + " not found)";
  dlclose(driver);
  return "";
}

Result<GpuBenchLibrary> load_library() {
  static GpuBenchLibrary loaded;
  if (loaded.handle != nullptr) return loaded;
  const std::string path = gpu_bench_library_path();
  std::vector<std::string> missing;
  if (auto driver = driver_missing(); !driver.empty()) missing.push_back(driver);
  if (!std::filesystem::exists(path)) {
    const bool from_env = library_from_environment() != nullptr;
    missing.push_back(std::string("GPU benchmark library (") + path + " not found" +
                      (from_env ? ", set by HCP_GPU_BENCH_LIB"
                                : "; build the hcp_gpu_bench target with the CUDA toolkit, or "
                                  "install it next to hcp-plan") +
                      ")");
  }
  if (!missing.empty()) {
    std::string text = "missing ";
    for (size_t i = 0; i < missing.size(); ++i)
      text += (i ? " and " : "") + missing[i];
    return plain_error(text);
  }
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return plain_error("cannot load " + path + ": " + last_dl_error());
  auto version =
      reinterpret_cast<hcp_gpu_bench_abi_version_fn>(dlsym(handle, "hcp_gpu_bench_abi_version"));
  GpuBenchLibrary lib;
  lib.handle = handle;
  lib.info = reinterpret_cast<hcp_gpu_bench_info_fn>(dlsym(handle, "hcp_gpu_bench_info"));
  lib.attention =
      reinterpret_cast<hcp_gpu_bench_attention_fn>(dlsym(handle, "hcp_gpu_bench_attention"));
  lib.collective =
      reinterpret_cast<hcp_gpu_bench_collective_fn>(dlsym(handle, "hcp_gpu_bench_collective"));
  if (version == nullptr || lib.info == nullptr || lib.attention == nullptr ||
      lib.collective == nullptr || version() != HCP_GPU_BENCH_ABI_VERSION) {
    dlclose(handle);
    return plain_error(path + " is not a compatible GPU benchmark library (ABI version " +
                       std::to_string(HCP_GPU_BENCH_ABI_VERSION) + " expected)");
  }
  loaded = lib;
  return loaded;
}

Result<hcp_gpu_info> query_devices(const GpuBenchLibrary& lib) {
  hcp_gpu_info info{};
  char error[512] = {0};
  if (lib.info(&info, error, sizeof error) != 0) return plain_error(error);
  if (info.device_count < 1) return plain_error("no CUDA GPU visible");
  return info;
}

std::string nccl_version_text(int code) {
  if (code <= 0) return "";
  return std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." +
         std::to_string(code % 100);
}

Error unavailable(const std::string& reason) {
  return plain_error("unavailable: " + reason);
}

Result<AttentionMeasurement> measure_attention(const GpuBenchLibrary& lib,
                                               const GpuBenchRequest& r) {
  hcp_attention_request request{};
  request.dtype = r.dtype == "fp16" ? 1 : 0;
  request.batch = r.batch;
  request.heads = r.heads;
  request.kv_heads = r.kv_heads;
  request.head_dim = r.head_dim;
  request.seq_q = r.seq_q;
  request.seq_kv = r.seq_kv;
  request.causal = r.causal ? 1 : 0;
  request.warmup = r.warmup;
  request.iterations = r.iterations;
  request.check = r.check ? 1 : 0;
  hcp_attention_result result{};
  char error[512] = {0};
  if (lib.attention(&request, &result, error, sizeof error) != 0) return plain_error(error);
  AttentionMeasurement m;
  m.dtype = r.dtype;
  m.head_dim = r.head_dim;
  m.causal = r.causal;
  m.batch = r.batch;
  m.heads = r.heads;
  m.kv_heads = r.kv_heads;
  m.seq_q = r.seq_q;
  m.seq_kv = r.seq_kv;
  m.time_ms = result.time_ms;
  m.tflops = result.tflops;
  if (result.max_abs_error >= 0) m.max_abs_error = result.max_abs_error;
  m.kernel.assign(result.kernel, strnlen(result.kernel, sizeof result.kernel));
  return m;
}

Result<CollectiveMeasurement> measure_collective(const GpuBenchLibrary& lib, int op, int64_t bytes,
                                                 int ranks, const GpuBenchRequest& r) {
  hcp_collective_request request{op, bytes, ranks, r.warmup, r.iterations};
  hcp_collective_result result{};
  char error[512] = {0};
  if (lib.collective(&request, &result, error, sizeof error) != 0) return plain_error(error);
  return CollectiveMeasurement{
      hcp_collective_op_name(op), "intra_node",     ranks, bytes, result.time_us,
      result.algbw_gbps,          result.busbw_gbps};
}

/// Round up to the kernel's tile (64 tokens), at least one tile.
int64_t to_tile(int64_t tokens) {
  return std::max<int64_t>(64, (tokens + 63) / 64 * 64);
}

}  // namespace

std::string gpu_bench_library_path() {
  auto paths = candidate_paths();
  for (const auto& p : paths) {
    if (std::filesystem::exists(p)) return p;
  }
  return paths.empty() ? std::string(kLibraryName) : paths.front();
}

std::string gpu_bench_unavailable_reason() {
  auto lib = load_library();
  if (!lib) return lib.error().message;
  auto info = query_devices(*lib);
  return info ? "" : info.error().message;
}

Result<Calibration> run_gpu_bench(const GpuBenchRequest& request,
                                  const std::function<void(const std::string&)>& progress) {
  auto lib = load_library();
  if (!lib) return unavailable(lib.error().message);
  auto info = query_devices(*lib);
  if (!info) return unavailable(info.error().message);
  auto say = [&progress](const std::string& line) {
    if (progress) progress(line);
  };
  Calibration c;
  c.source = "hcp-plan bench";
  c.device = info->device_name;
  c.gpus = info->device_count;
  c.nccl_version = nccl_version_text(info->nccl_version);

  auto attention = measure_attention(*lib, request);
  if (!attention) return attention.error();
  say("attention " + request.dtype + " hd" + std::to_string(request.head_dim) + " " +
      std::to_string(request.seq_q) + "x" + std::to_string(request.seq_kv) + ": " +
      std::to_string(attention->tflops) + " TFLOP/s");
  // Not summary.attention_tflops: that is the rate of the attention TE runs (cuDNN or flash
  // kernels), which check-log fits from a training log. This kernel ran at 0.35-0.43 of cuDNN's
  // and 0.69-0.86 of flash's forward rate on an H200 (bench/results/); it checks the GPU and the
  // numerics, and a plan priced with its rate would be about twice too slow.
  c.attention.push_back(*attention);

  const int gpus = info->device_count;
  const std::pair<int, std::pair<int64_t, int64_t>> collectives[] = {
      {HCP_COLLECTIVE_ALLTOALL, {request.a2a_bytes, request.a2a_ranks}},
      {HCP_COLLECTIVE_SENDRECV, {request.ring_step_bytes, request.ring_ranks}}};
  for (const auto& [op, size] : collectives) {
    const int ranks = static_cast<int>(std::min<int64_t>(size.second, gpus));
    if (size.first <= 0 || ranks < 2) {
      if (size.first > 0)
        say(std::string(op == HCP_COLLECTIVE_ALLTOALL ? "all-to-all" : "ring send/recv") +
            " skipped: needs 2 or more local GPUs");
      continue;
    }
    auto m = measure_collective(*lib, op, size.first, ranks, request);
    if (!m) return m.error();
    say(m->op + " " + std::to_string(m->ranks) + " GPUs " + std::to_string(m->bytes) +
        " B: busbw " + std::to_string(m->busbw_gbps) + " GB/s");
    (op == HCP_COLLECTIVE_ALLTOALL ? c.summary.intra_node_a2a_gbps
                                   : c.summary.intra_node_p2p_gbps) = m->busbw_gbps;
    c.collectives.push_back(*m);
  }
  return c;
}

Result<GpuBenchRequest> gpu_bench_request_for(const CpVolumeInput& layout) {
  auto volume = cp_volume(layout);
  if (!volume) return volume.error();
  if (layout.head_dim != 64 && layout.head_dim != 128) {
    return plain_error("the attention kernel supports head dims 64 and 128, not " +
                       std::to_string(layout.head_dim));
  }
  const int64_t s = layout.seq_length, c = layout.cp;
  const int64_t a = volume->a2a_group_size, p = volume->ring_group_size;
  GpuBenchRequest r;
  r.batch = layout.batch;
  r.head_dim = layout.head_dim;
  r.heads = layout.heads / layout.tp / a;
  r.kv_heads = layout.kv_heads / layout.tp / a;
  switch (layout.comm_type) {
    case CpCommType::kP2p:
    case CpCommType::kA2aP2p:  // one ring step: s/p queries against half a KV block
      r.seq_q = to_tile(s / p);
      r.seq_kv = to_tile(s / (2 * p));
      r.causal = false;
      break;
    case CpCommType::kA2a:  // the whole causal sequence with heads / c
      r.seq_q = r.seq_kv = to_tile(s);
      r.causal = true;
      break;
    case CpCommType::kAllGather:  // one local half-chunk against the mean causal prefix
      r.seq_q = to_tile(s / (2 * c));
      r.seq_kv = to_tile(s / 2);
      r.causal = false;
      break;
  }
  if (a > 1) {
    // nccl-tests size of the Q,K,V all-to-all: each rank's whole Q_loc + K_loc + V_loc.
    r.a2a_bytes = volume->q_local_bytes + volume->kv_local_bytes;
    r.a2a_ranks = a;
  }
  if (p > 1) {
    r.ring_step_bytes = volume->kv_local_bytes;
    r.ring_ranks = p;
  }
  return r;
}

Result<Calibration> benchmark_layout(const CpVolumeInput& layout,
                                     const std::function<void(const std::string&)>& progress) {
  auto request = gpu_bench_request_for(layout);
  if (!request) return request.error();
  return run_gpu_bench(*request, progress);
}

}  // namespace hcp
