// Shared helpers of the GPU benchmark library: error strings, device buffers, timing.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace hcp::gpu {

/// Copy `message` into the caller's error buffer; return 1 (the ABI's failure code).
inline int report(const std::string& message, char* error, size_t error_size) {
  if (error != nullptr && error_size > 0) {
    std::snprintf(error, error_size, "%s", message.c_str());
  }
  return message.empty() ? 0 : 1;
}

/// Return "" for cudaSuccess, else "<what>: <CUDA error string>".
inline std::string cuda_error(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return "";
  return std::string(what) + ": " + cudaGetErrorString(status);
}

/// Evaluate a CUDA call; on failure return its message from the enclosing function.
#define HCP_CUDA_TRY(call)                                          \
  do {                                                              \
    std::string hcp_error_ = ::hcp::gpu::cuda_error((call), #call); \
    if (!hcp_error_.empty()) return hcp_error_;                     \
  } while (0)

/// Propagate a non-empty error string.
#define HCP_TRY(expr)                           \
  do {                                          \
    std::string hcp_error_ = (expr);            \
    if (!hcp_error_.empty()) return hcp_error_; \
  } while (0)

/// A device allocation freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  /// Allocate `bytes` on the current device; return "" or the error.
  std::string allocate(size_t bytes) {
    return cuda_error(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), "cudaMalloc");
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

/// The shared-window address of a pointer into shared memory (what cp.async and ldmatrix take).
__device__ inline uint32_t shared_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

/// 16 bytes from global to shared memory without passing through registers (cp.async, sm_80).
__device__ inline void copy_async_16(uint32_t shared, const void* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(global));
}
__device__ inline void copy_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
/// Wait until at most `kPending` of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ inline void copy_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

/// Fill `n` elements with deterministic pseudo-random values in [-1, 1) (converted to T).
template <typename T>
__global__ void fill_uniform(T* data, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t x = static_cast<uint32_t>(i) * 0x9E3779B1u ^ seed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    data[i] = T(static_cast<float>(x) * (2.0f / 4294967296.0f) - 1.0f);
  }
}

}  // namespace hcp::gpu
