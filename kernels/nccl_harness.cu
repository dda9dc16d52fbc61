// Times one collective over the local GPUs in a single process and checks the data each rank
// received (see nccl_harness.cuh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "common.cuh"
#include "nccl_harness.cuh"

namespace hcp::gpu {
namespace {

__global__ void fill_pattern_kernel(uint8_t* data, size_t bytes, int src, int dst) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < bytes;
       i += size_t(gridDim.x) * blockDim.x)
    data[i] = pattern_byte(src, dst, i);
}

std::string nccl_error(ncclResult_t status, const char* what) {
  if (status == ncclSuccess) return "";
  return std::string(what) + ": " + ncclGetErrorString(status);
}

/// Per-GPU state of one run; released in the destructor.
struct Ranks {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void*> send, recv;
  ~Ranks() {
    for (size_t r = 0; r < streams.size(); ++r) {
      cudaSetDevice(static_cast<int>(r));
      if (send[r] != nullptr) cudaFree(send[r]);
      if (recv[r] != nullptr) cudaFree(recv[r]);
      if (streams[r] != nullptr) cudaStreamDestroy(streams[r]);
    }
    for (ncclComm_t c : comms) {
      if (c != nullptr) ncclCommDestroy(c);
    }
  }
};

std::string launch_all(const CollectiveTest& test, Ranks& ranks, size_t send_count) {
  const int n = static_cast<int>(ranks.comms.size());
  std::string error = nccl_error(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < n && error.empty(); ++r) {
    error = nccl_error(
        test.run(ranks.send[r], ranks.recv[r], send_count, r, n, ranks.comms[r], ranks.streams[r]),
        test.name);
  }
  std::string end = nccl_error(ncclGroupEnd(), "ncclGroupEnd");
  return error.empty() ? end : error;
}

std::string synchronize_all(Ranks& ranks) {
  for (size_t r = 0; r < ranks.streams.size(); ++r) {
    HCP_CUDA_TRY(cudaSetDevice(static_cast<int>(r)));
    HCP_CUDA_TRY(cudaStreamSynchronize(ranks.streams[r]));
  }
  return "";
}

/// Compare every rank's receive buffer with test.expected, in host-sized chunks. Return "" or
/// "<test>: rank R received wrong data: N of M bytes differ (first at byte I: 0xAA, expected
/// 0xBB)".
std::string verify_all(const CollectiveTest& test, Ranks& ranks, size_t recv_count) {
  const int n = static_cast<int>(ranks.recv.size());
  constexpr size_t kChunk = size_t(64) << 20;
  std::vector<uint8_t> host(std::min(recv_count, kChunk));
  for (int r = 0; r < n; ++r) {
    HCP_CUDA_TRY(cudaSetDevice(r));
    size_t wrong = 0, first = 0;
    uint8_t got = 0, want = 0;
    for (size_t at = 0; at < recv_count; at += kChunk) {
      const size_t len = std::min(kChunk, recv_count - at);
      HCP_CUDA_TRY(cudaMemcpy(host.data(), static_cast<const uint8_t*>(ranks.recv[r]) + at, len,
                              cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < len; ++i) {
        const uint8_t e = test.expected(at + i, recv_count, r, n);
        if (host[i] == e) continue;
        if (wrong++ == 0) {
          first = at + i;
          got = host[i];
          want = e;
        }
      }
    }
    if (wrong > 0) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "%s: rank %d received wrong data: %zu of %zu bytes differ (first at byte "
                    "%zu: 0x%02x, expected 0x%02x)",
                    test.name, r, wrong, recv_count, first, got, want);
      return line;
    }
  }
  return "";
}

}  // namespace

cudaError_t fill_pattern(uint8_t* data, size_t bytes, int src, int dst, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((bytes + 255) / 256, 1024));
  fill_pattern_kernel<<<blocks, 256, 0, stream>>>(data, bytes, src, dst);
  return cudaGetLastError();
}

std::string time_collective(const CollectiveTest& test, int64_t bytes, int n, int warmup,
                            int iterations, double* time_us, double* algbw, double* busbw) {
  if (n < 1) return std::string(test.name) + " needs 1 or more GPUs";
  if (bytes <= 0 || iterations <= 0) return "bytes and iterations must be positive";
  size_t send_count = 0, recv_count = 0;
  test.counts(bytes, n, &send_count, &recv_count);
  if (send_count == 0 || recv_count == 0)
    return std::string(test.name) + ": " + std::to_string(bytes) + " bytes over " +
           std::to_string(n) + " GPUs leave nothing to send";
  Ranks ranks;
  ranks.comms.assign(n, nullptr);
  ranks.streams.assign(n, nullptr);
  ranks.send.assign(n, nullptr);
  ranks.recv.assign(n, nullptr);
  HCP_TRY(nccl_error(ncclCommInitAll(ranks.comms.data(), n, nullptr), "ncclCommInitAll"));
  for (int r = 0; r < n; ++r) {
    HCP_CUDA_TRY(cudaSetDevice(r));
    HCP_CUDA_TRY(cudaStreamCreateWithFlags(&ranks.streams[r], cudaStreamNonBlocking));
    HCP_CUDA_TRY(cudaMalloc(&ranks.send[r], send_count));
    HCP_CUDA_TRY(cudaMalloc(&ranks.recv[r], recv_count));
    // Zeroed receive buffers: a rank that receives nothing fails the check below.
    HCP_CUDA_TRY(cudaMemsetAsync(ranks.recv[r], 0, recv_count, ranks.streams[r]));
    HCP_CUDA_TRY(test.init(ranks.send[r], send_count, r, n, ranks.streams[r]));
  }
  HCP_TRY(synchronize_all(ranks));
  for (int i = 0; i < warmup; ++i)
    HCP_TRY(launch_all(test, ranks, send_count));
  HCP_TRY(synchronize_all(ranks));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i)
    HCP_TRY(launch_all(test, ranks, send_count));
  HCP_TRY(synchronize_all(ranks));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iterations;
  HCP_TRY(verify_all(test, ranks, recv_count));
  *time_us = seconds * 1e6;
  test.bandwidth(static_cast<int64_t>(send_count), seconds, n, algbw, busbw);
  return "";
}

}  // namespace hcp::gpu
