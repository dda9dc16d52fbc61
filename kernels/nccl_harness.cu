// Times one collective over the local GPUs in a single process (see nccl_harness.cuh).
#include <chrono>
#include <vector>

#include "common.cuh"
#include "nccl_harness.cuh"

namespace hcp::gpu {
namespace {

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

}  // namespace

std::string time_collective(const CollectiveTest& test, int64_t bytes, int n, int warmup,
                            int iterations, double* time_us, double* algbw, double* busbw) {
  if (n < 2) return std::string(test.name) + " needs 2 or more GPUs";
  if (bytes <= 0 || iterations <= 0) return "bytes and iterations must be positive";
  size_t send_count = 0, recv_count = 0;
  test.counts(bytes, n, &send_count, &recv_count);
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
    test.init(ranks.send[r], send_count, r, ranks.streams[r]);
  }
  for (int i = 0; i < warmup; ++i)
    HCP_TRY(launch_all(test, ranks, send_count));
  HCP_TRY(synchronize_all(ranks));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i)
    HCP_TRY(launch_all(test, ranks, send_count));
  HCP_TRY(synchronize_all(ranks));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iterations;
  *time_us = seconds * 1e6;
  test.bandwidth(static_cast<int64_t>(send_count), seconds, n, algbw, busbw);
  return "";
}

}  // namespace hcp::gpu
