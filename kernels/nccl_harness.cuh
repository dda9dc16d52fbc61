// nccl-tests style harness: each collective (alltoall.cu, sendrecv.cu) provides five small
// functions (element counts, data init, expected data, bandwidth, run) and this harness times it
// over the local GPUs in one process (ncclCommInitAll, one group call per iteration), then checks
// that every rank received what its peers sent (as nccl-tests checks its results).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <string>

namespace hcp::gpu {

/// Byte `i` of the data rank `src` sends to rank `dst`: differs between sender/receiver pairs and
/// along the buffer, so data from the wrong peer, at the wrong offset or not at all is caught.
__host__ __device__ inline uint8_t pattern_byte(int src, int dst, size_t i) {
  uint32_t x = static_cast<uint32_t>(i) * 0x9E3779B1u ^ (static_cast<uint32_t>(src) * 0x85EBCA6Bu) ^
               (static_cast<uint32_t>(dst) * 0xC2B2AE35u) ^ static_cast<uint32_t>(i >> 32);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<uint8_t>(x ^ (x >> 24));
}

/// Fill `bytes` bytes at `data` with pattern_byte(src, dst, 0..bytes-1) on `stream`; return the
/// launch status.
cudaError_t fill_pattern(uint8_t* data, size_t bytes, int src, int dst, cudaStream_t stream);

/// The five functions of one collective benchmark.
struct CollectiveTest {
  const char* name;
  /// Elements (int8) of the send and receive buffers per rank for nccl-tests "size" `bytes`.
  void (*counts)(int64_t bytes, int ranks, size_t* send_count, size_t* recv_count);
  /// Fill rank `rank`'s send buffer with pattern_byte data; return the CUDA status.
  cudaError_t (*init)(void* send, size_t send_count, int rank, int ranks, cudaStream_t stream);
  /// The byte rank `rank` must hold at offset `i` of its receive buffer after the operation.
  uint8_t (*expected)(size_t i, size_t recv_count, int rank, int ranks);
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
