// cuBLAS unfused attention (S = scale * Q K^T in fp32, masked softmax, O = P V in fp32) that
// checks the flash kernel's output on the GPU.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <vector>

#include "common.cuh"
#include "flash_attention.cuh"

namespace hcp::gpu {
namespace {

std::string cublas_error(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return "";
  return std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(status));
}

#define HCP_CUBLAS_TRY(call)                              \
  do {                                                    \
    std::string hcp_error_ = cublas_error((call), #call); \
    if (!hcp_error_.empty()) return hcp_error_;           \
  } while (0)

/// One block per score row: mask (causal), softmax in place.
__global__ void softmax_rows(float* s, int64_t rows, int64_t cols, bool causal) {
  const int64_t row = blockIdx.x;
  float* p = s + row * cols;
  __shared__ float shared[32];
  float local_max = -INFINITY;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    if (causal && j > row) p[j] = -INFINITY;
    local_max = fmaxf(local_max, p[j]);
  }
  for (int off = 16; off > 0; off /= 2)
    local_max = fmaxf(local_max, __shfl_xor_sync(~0u, local_max, off));
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = local_max;
  __syncthreads();
  float row_max = -INFINITY;
  for (int w = 0; w < int(blockDim.x / 32); ++w)
    row_max = fmaxf(row_max, shared[w]);
  __syncthreads();
  float local_sum = 0.f;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    p[j] = expf(p[j] - row_max);
    local_sum += p[j];
  }
  for (int off = 16; off > 0; off /= 2)
    local_sum += __shfl_xor_sync(~0u, local_sum, off);
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = local_sum;
  __syncthreads();
  float row_sum = 0.f;
  for (int w = 0; w < int(blockDim.x / 32); ++w)
    row_sum += shared[w];
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    p[j] /= row_sum;
}

template <typename T>
__global__ void to_float(const T* in, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<float>(in[i]);
}

/// Largest |a - b| as the bits of a non-negative float (ordered like unsigned ints).
template <typename T>
__global__ void max_abs_diff(const T* a, const float* b, int64_t n, unsigned* result) {
  float worst = 0.f;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    worst = fmaxf(worst, fabsf(static_cast<float>(a[i]) - b[i]));
  atomicMax(result, __float_as_uint(worst));
}

template <typename T>
std::string check_typed(const AttentionArgs& a, double* max_abs_error) {
  const int64_t d = a.head_dim, sq = a.seq_q, sk = a.seq_kv;
  const int64_t q_elems = a.batch * sq * a.heads * d, kv_elems = a.batch * sk * a.kv_heads * d;
  DeviceBuffer v_float, scores, reference, worst;
  HCP_TRY(v_float.allocate(kv_elems * sizeof(float)));
  HCP_TRY(scores.allocate(sq * sk * sizeof(float)));
  HCP_TRY(reference.allocate(q_elems * sizeof(float)));
  HCP_TRY(worst.allocate(sizeof(unsigned)));
  to_float<T><<<256, 256>>>(static_cast<const T*>(a.v), v_float.as<float>(), kv_elems);
  cublasHandle_t handle = nullptr;
  HCP_CUBLAS_TRY(cublasCreate(&handle));
  std::string error;
  const cudaDataType_t type = a.bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const float scale = 1.0f / sqrtf(static_cast<float>(d)), one = 1.f, zero = 0.f;
  const int64_t group = a.heads / a.kv_heads;
  for (int64_t b = 0; b < a.batch && error.empty(); ++b) {
    for (int64_t h = 0; h < a.heads && error.empty(); ++h) {
      const int64_t kvh = h / group;
      const T* qp = static_cast<const T*>(a.q) + (b * sq * a.heads + h) * d;
      const T* kp = static_cast<const T*>(a.k) + (b * sk * a.kv_heads + kvh) * d;
      const float* vp = v_float.as<float>() + (b * sk * a.kv_heads + kvh) * d;
      float* op = reference.as<float>() + (b * sq * a.heads + h) * d;
      // Column-major view: S^T (sk x sq) = K_h (sk x d) * Q_h^T (d x sq).
      error = cublas_error(
          cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(sk), int(sq), int(d), &scale, kp, type,
                       int(a.kv_heads * d), qp, type, int(a.heads * d), &zero, scores.as<float>(),
                       CUDA_R_32F, int(sk), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx(QK^T)");
      if (!error.empty()) break;
      softmax_rows<<<unsigned(sq), 256>>>(scores.as<float>(), sq, sk, a.causal);
      // O_h^T (d x sq) = V_h^T (d x sk) * P^T (sk x sq).
      error = cublas_error(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(d), int(sq), int(sk),
                                       &one, vp, int(a.kv_heads * d), scores.as<float>(), int(sk),
                                       &zero, op, int(a.heads * d)),
                           "cublasSgemm(PV)");
    }
  }
  cublasDestroy(handle);
  HCP_TRY(error);
  HCP_CUDA_TRY(cudaMemset(worst.get(), 0, sizeof(unsigned)));
  max_abs_diff<T><<<256, 256>>>(static_cast<const T*>(a.o), reference.as<float>(), q_elems,
                                worst.as<unsigned>());
  unsigned bits = 0;
  HCP_CUDA_TRY(cudaMemcpy(&bits, worst.get(), sizeof bits, cudaMemcpyDeviceToHost));
  float value = 0.f;
  std::memcpy(&value, &bits, sizeof value);
  *max_abs_error = value;
  return "";
}

}  // namespace

std::string check_against_cublas(const AttentionArgs& a, double* max_abs_error) {
  return a.bf16 ? check_typed<__nv_bfloat16>(a, max_abs_error)
                : check_typed<__half>(a, max_abs_error);
}

}  // namespace hcp::gpu
