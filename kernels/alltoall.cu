// All-to-all: ncclAlltoAll where the NCCL headers have it (NCCL >= 2.28) and the loaded library
// exports it, else grouped send/recv. nccl-tests does the same (NVIDIA/nccl-tests a0b82b22
// src/alltoall.cu:9,317-330: ncclAlltoAll only under NCCL_VERSION_CODE >= NCCL_VERSION(2,28,0),
// the send/recv loop otherwise), so this file also builds against an older nccl.h
// (tests/kernels: the nccl_stub CTest compiles it against a header without ncclAlltoAll).
#include "nccl_harness.cuh"

#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#define HCP_HAVE_NCCL_ALLTOALL 1
// Weak: a library older than the header (LD_LIBRARY_PATH) leaves it null at run time.
#pragma weak ncclAlltoAll
#else
#define HCP_HAVE_NCCL_ALLTOALL 0
#endif

namespace hcp::gpu {
namespace {

void counts(int64_t bytes, int ranks, size_t* send_count, size_t* recv_count) {
  const size_t per_peer = static_cast<size_t>(bytes) / ranks;
  *send_count = *recv_count = per_peer * ranks;
}

/// Block p of rank r's send buffer goes to peer p: pattern(r, p).
cudaError_t init(void* send, size_t send_count, int rank, int ranks, cudaStream_t stream) {
  const size_t per_peer = send_count / ranks;
  for (int peer = 0; peer < ranks; ++peer) {
    cudaError_t status =
        fill_pattern(static_cast<uint8_t*>(send) + peer * per_peer, per_peer, rank, peer, stream);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

/// Block p of rank r's receive buffer came from peer p: pattern(p, r).
uint8_t expected(size_t i, size_t recv_count, int rank, int ranks) {
  const size_t per_peer = recv_count / ranks;
  return pattern_byte(static_cast<int>(i / per_peer), rank, i % per_peer);
}

/// nccl-tests AlltoAllGetBw: size = n * per-peer bytes; busbw = algbw * (n-1)/n.
void bandwidth(int64_t bytes, double seconds, int ranks, double* algbw, double* busbw) {
  *algbw = static_cast<double>(bytes) / 1e9 / seconds;
  *busbw = *algbw * (ranks - 1) / ranks;
}

ncclResult_t run(const void* send, void* recv, size_t send_count, int, int ranks, ncclComm_t comm,
                 cudaStream_t stream) {
  const size_t per_peer = send_count / ranks;
#if HCP_HAVE_NCCL_ALLTOALL
  if (&ncclAlltoAll != nullptr) {
    return ncclAlltoAll(send, recv, per_peer, ncclInt8, comm, stream);
  }
#endif
  ncclResult_t status = ncclGroupStart();
  for (int peer = 0; peer < ranks && status == ncclSuccess; ++peer) {
    status = ncclSend(static_cast<const char*>(send) + peer * per_peer, per_peer, ncclInt8, peer,
                      comm, stream);
    if (status == ncclSuccess) {
      status = ncclRecv(static_cast<char*>(recv) + peer * per_peer, per_peer, ncclInt8, peer, comm,
                        stream);
    }
  }
  ncclResult_t end = ncclGroupEnd();
  return status != ncclSuccess ? status : end;
}

}  // namespace

const CollectiveTest kAllToAllTest = {"alltoall", counts, init, expected, bandwidth, run};

}  // namespace hcp::gpu
