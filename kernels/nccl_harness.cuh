// nccl-tests style harness: each collective (alltoall.cu, sendrecv.cu) provides four small
// functions (element counts, data init, bandwidth, run) and this harness times it over the local
// GPUs in one process (ncclCommInitAll, one group call per iteration).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <string>

namespace hcp::gpu {

/// The four functions of one collective benchmark.
struct CollectiveTest {
  const char* name;
  /// Elements (int8) of the send and receive buffers per rank for nccl-tests "size" `bytes`.
  void (*counts)(int64_t bytes, int ranks, size_t* send_count, size_t* recv_count);
  /// Fill rank `rank`'s send buffer.
  void (*init)(void* send, size_t send_count, int rank, cudaStream_t stream);
  /// algbw and busbw in GB/s for `bytes` moved in `seconds` by `ranks` GPUs.
  void (*bandwidth)(int64_t bytes, double seconds, int ranks, double* algbw, double* busbw);
  /// Enqueue one operation of rank `rank` (called inside ncclGroupStart/End).
  ncclResult_t (*run)(const void* send, void* recv, size_t send_count, int rank, int ranks,
                      ncclComm_t comm, cudaStream_t stream);
};

extern const CollectiveTest kAllToAllTest;
extern const CollectiveTest kSendRecvTest;

/// Time `test` over the first `ranks` GPUs. Return "" and the mean time per operation (us) and
/// bandwidths, or an error.
std::string time_collective(const CollectiveTest& test, int64_t bytes, int ranks, int warmup,
                            int iterations, double* time_us, double* algbw, double* busbw);

}  // namespace hcp::gpu
