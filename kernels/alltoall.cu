// All-to-all: ncclAlltoAll (NCCL >= 2.28, weak symbol) or grouped send/recv, as nccl-tests.
#include "nccl_harness.cuh"

#pragma weak ncclAlltoAll

namespace hcp::gpu {
namespace {

void counts(int64_t bytes, int ranks, size_t* send_count, size_t* recv_count) {
  const size_t per_peer = static_cast<size_t>(bytes) / ranks;
  *send_count = *recv_count = per_peer * ranks;
}

void init(void* send, size_t send_count, int rank, cudaStream_t stream) {
  cudaMemsetAsync(send, rank & 0xff, send_count, stream);
}

/// nccl-tests AlltoAllGetBw: size = n * per-peer bytes; busbw = algbw * (n-1)/n.
void bandwidth(int64_t bytes, double seconds, int ranks, double* algbw, double* busbw) {
  *algbw = static_cast<double>(bytes) / 1e9 / seconds;
  *busbw = *algbw * (ranks - 1) / ranks;
}

ncclResult_t run(const void* send, void* recv, size_t send_count, int, int ranks, ncclComm_t comm,
                 cudaStream_t stream) {
  const size_t per_peer = send_count / ranks;
  if (&ncclAlltoAll != nullptr) {
    return ncclAlltoAll(send, recv, per_peer, ncclInt8, comm, stream);
  }
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

const CollectiveTest kAllToAllTest = {"alltoall", counts, init, bandwidth, run};

}  // namespace hcp::gpu
