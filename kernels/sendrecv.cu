// Ring send/recv (one KV ring step): rank r sends to r+1 and receives from r-1, as nccl-tests.
#include "nccl_harness.cuh"

namespace hcp::gpu {
namespace {

void counts(int64_t bytes, int, size_t* send_count, size_t* recv_count) {
  *send_count = *recv_count = static_cast<size_t>(bytes);
}

/// Rank r sends pattern(r, r+1).
cudaError_t init(void* send, size_t send_count, int rank, int ranks, cudaStream_t stream) {
  return fill_pattern(static_cast<uint8_t*>(send), send_count, rank, (rank + 1) % ranks, stream);
}

/// Rank r receives pattern(r-1, r).
uint8_t expected(size_t i, size_t, int rank, int ranks) {
  return pattern_byte((rank + ranks - 1) % ranks, rank, i);
}

/// nccl-tests SendRecvGetBw: busbw = algbw.
void bandwidth(int64_t bytes, double seconds, int, double* algbw, double* busbw) {
  *algbw = static_cast<double>(bytes) / 1e9 / seconds;
  *busbw = *algbw;
}

ncclResult_t run(const void* send, void* recv, size_t send_count, int rank, int ranks,
                 ncclComm_t comm, cudaStream_t stream) {
  ncclResult_t status = ncclGroupStart();
  if (status != ncclSuccess) return status;
  ncclResult_t s1 = ncclSend(send, send_count, ncclInt8, (rank + 1) % ranks, comm, stream);
  ncclResult_t s2 = ncclRecv(recv, send_count, ncclInt8, (rank + ranks - 1) % ranks, comm, stream);
  ncclResult_t end = ncclGroupEnd();
  return s1 != ncclSuccess ? s1 : s2 != ncclSuccess ? s2 : end;
}

}  // namespace

const CollectiveTest kSendRecvTest = {"sendrecv", counts, init, expected, bandwidth, run};

}  // namespace hcp::gpu
