// The C entry points of libhcp_gpu_bench.so (src/sim/gpu_bench_abi.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>

#include "common.cuh"
#include "flash_attention.cuh"
#include "gpu_bench_abi.h"
#include "nccl_harness.cuh"

namespace hcp::gpu {
namespace {

std::string device_info(hcp_gpu_info* info) {
  int count = 0;
  HCP_CUDA_TRY(cudaGetDeviceCount(&count));
  info->device_count = count;
  if (count < 1) return "no CUDA GPU visible";
  cudaDeviceProp prop{};
  HCP_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  std::snprintf(info->device_name, sizeof info->device_name, "%s", prop.name);
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  if (prop.major < 8) return std::string(prop.name) + " is older than sm_80 (no mma.sync bf16)";
  int version = 0;
  if (ncclGetVersion(&version) == ncclSuccess) info->nccl_version = version;
  return "";
}

/// Q, K, V, O buffers of one attention problem, filled with random values.
struct AttentionBuffers {
  DeviceBuffer q, k, v, o;
  AttentionArgs args;

  std::string create(const hcp_attention_request& r, int64_t seq_q, int64_t seq_kv, int64_t batch) {
    args.batch = batch;
    args.heads = r.heads;
    args.kv_heads = r.kv_heads;
    args.head_dim = r.head_dim;
    args.seq_q = seq_q;
    args.seq_kv = seq_kv;
    args.causal = r.causal != 0;
    args.bf16 = r.dtype == 0;
    const int64_t q_elems = batch * seq_q * r.heads * r.head_dim;
    const int64_t kv_elems = batch * seq_kv * r.kv_heads * r.head_dim;
    HCP_TRY(q.allocate(q_elems * 2));
    HCP_TRY(k.allocate(kv_elems * 2));
    HCP_TRY(v.allocate(kv_elems * 2));
    HCP_TRY(o.allocate(q_elems * 2));
    if (args.bf16) {
      fill_uniform<<<256, 256>>>(q.as<__nv_bfloat16>(), q_elems, 1u);
      fill_uniform<<<256, 256>>>(k.as<__nv_bfloat16>(), kv_elems, 2u);
      fill_uniform<<<256, 256>>>(v.as<__nv_bfloat16>(), kv_elems, 3u);
    } else {
      fill_uniform<<<256, 256>>>(q.as<__half>(), q_elems, 1u);
      fill_uniform<<<256, 256>>>(k.as<__half>(), kv_elems, 2u);
      fill_uniform<<<256, 256>>>(v.as<__half>(), kv_elems, 3u);
    }
    args.q = q.get();
    args.k = k.get();
    args.v = v.get();
    args.o = o.get();
    return cuda_error(cudaGetLastError(), "fill");
  }
};

/// Run the kernel once on a small problem of the same kind (up to 512 tokens; two sequences when
/// the request has several, so the batch offsets are checked too) and compare with cuBLAS.
std::string check_small(const hcp_attention_request& r, double* max_abs_error) {
  const int64_t sq = std::min<int64_t>(r.seq_q, 512);
  const int64_t sk = r.causal ? sq : std::min<int64_t>(r.seq_kv, 512);
  AttentionBuffers small;
  HCP_TRY(small.create(r, sq, sk, std::min<int64_t>(r.batch, 2)));
  HCP_TRY(launch_flash_attention(small.args, nullptr));
  HCP_CUDA_TRY(cudaDeviceSynchronize());
  return check_against_cublas(small.args, max_abs_error);
}

std::string time_attention(const hcp_attention_request& r, hcp_attention_result* out) {
  HCP_CUDA_TRY(cudaSetDevice(0));
  out->max_abs_error = -1;
  if (r.check) HCP_TRY(check_small(r, &out->max_abs_error));
  AttentionBuffers big;
  HCP_TRY(big.create(r, r.seq_q, r.seq_kv, r.batch));
  const char* choice = std::getenv("HCP_ATTENTION_KERNEL");
  const char* kernel = kMmaKernel;
  HCP_TRY(choose_attention_kernel(big.args, choice == nullptr ? "" : choice, &kernel));
  std::snprintf(out->kernel, sizeof out->kernel, "%s", kernel);
  cudaEvent_t start = nullptr, stop = nullptr;
  HCP_CUDA_TRY(cudaEventCreate(&start));
  HCP_CUDA_TRY(cudaEventCreate(&stop));
  std::string error;
  for (int i = 0; i < r.warmup && error.empty(); ++i)
    error = launch_flash_attention(big.args, nullptr);
  if (error.empty()) error = cuda_error(cudaEventRecord(start), "cudaEventRecord");
  for (int i = 0; i < r.iterations && error.empty(); ++i) {
    error = launch_flash_attention(big.args, nullptr);
  }
  if (error.empty()) error = cuda_error(cudaEventRecord(stop), "cudaEventRecord");
  if (error.empty()) error = cuda_error(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0.f;
  if (error.empty()) error = cuda_error(cudaEventElapsedTime(&ms, start, stop), "elapsed");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  HCP_TRY(error);
  out->time_ms = ms / std::max(1, r.iterations);
  // Flash-attention FLOP convention: 4*b*h*sq*skv*d, halved for a causal square.
  double flops = 4.0 * r.batch * r.heads * double(r.seq_q) * double(r.seq_kv) * r.head_dim;
  if (r.causal) flops /= 2;
  out->tflops = flops / (out->time_ms * 1e-3) / 1e12;
  return "";
}

}  // namespace
}  // namespace hcp::gpu

extern "C" {

int hcp_gpu_bench_abi_version(void) {
  return HCP_GPU_BENCH_ABI_VERSION;
}

int hcp_gpu_bench_info(hcp_gpu_info* info, char* error, size_t error_size) {
  if (info == nullptr) return hcp::gpu::report("null info", error, error_size);
  *info = hcp_gpu_info{};
  return hcp::gpu::report(hcp::gpu::device_info(info), error, error_size);
}

int hcp_gpu_bench_attention(const hcp_attention_request* request, hcp_attention_result* result,
                            char* error, size_t error_size) {
  if (request == nullptr || result == nullptr) {
    return hcp::gpu::report("null request", error, error_size);
  }
  *result = hcp_attention_result{};
  return hcp::gpu::report(hcp::gpu::time_attention(*request, result), error, error_size);
}

int hcp_gpu_bench_collective(const hcp_collective_request* request, hcp_collective_result* result,
                             char* error, size_t error_size) {
  if (request == nullptr || result == nullptr) {
    return hcp::gpu::report("null request", error, error_size);
  }
  *result = hcp_collective_result{};
  if (hcp_collective_op_name(request->op) == nullptr) {
    return hcp::gpu::report("unknown collective operation " + std::to_string(request->op) + " (" +
                                std::to_string(HCP_COLLECTIVE_ALLTOALL) + " = all-to-all, " +
                                std::to_string(HCP_COLLECTIVE_SENDRECV) + " = ring send/recv)",
                            error, error_size);
  }
  const hcp::gpu::CollectiveTest& test =
      request->op == HCP_COLLECTIVE_ALLTOALL ? hcp::gpu::kAllToAllTest : hcp::gpu::kSendRecvTest;
  return hcp::gpu::report(
      hcp::gpu::time_collective(test, request->bytes, request->ranks, request->warmup,
                                request->iterations, &result->time_us, &result->algbw_gbps,
                                &result->busbw_gbps),
      error, error_size);
}

}  // extern "C"
