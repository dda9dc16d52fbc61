// FlashAttention-style forward kernel (tensor-core mma.sync, online softmax) and its launcher.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gpu_bench_abi.h"

namespace hcp::gpu {

/// Pointers and sizes of one attention call. Layout "bshd": Q/O [batch][seq_q][heads][D],
/// K/V [batch][seq_kv][kv_heads][D]; query head h uses KV head h / (heads / kv_heads).
struct AttentionArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  int64_t batch = 1, heads = 1, kv_heads = 1, head_dim = 128, seq_q = 0, seq_kv = 0;
  bool causal = false;
  bool bf16 = true;  ///< false: fp16
};

/// The two forward kernels: mma.sync (sm_80 and later, every supported shape) and wgmma (sm_90a:
/// an H100/H200, head dim 128, lengths multiples of 128).
inline constexpr const char* kMmaKernel = HCP_ATTENTION_KERNEL_MMA;
inline constexpr const char* kWgmmaKernel = HCP_ATTENTION_KERNEL_WGMMA;

/// Which kernel runs `args` on the current device: `choice` "" takes wgmma where it can run and
/// mma.sync elsewhere; kMmaKernel or kWgmmaKernel forces one (wgmma where it cannot run is an
/// error). Sets `*kernel` to one of the two names; returns "" or the error.
std::string choose_attention_kernel(const AttentionArgs& args, const std::string& choice,
                                    const char** kernel);

/// Launch the forward kernel that choose_attention_kernel picks with the environment's
/// HCP_ATTENTION_KERNEL on `stream`. Return "" or why it cannot run (unsupported head dim,
/// sequence not a multiple of 64, causal with seq_q != seq_kv, launch error).
std::string launch_flash_attention(const AttentionArgs& args, cudaStream_t stream);

/// Compare `args.o` with a cuBLAS unfused attention (S = QK^T, softmax, PV in fp32) and return
/// "" with the largest absolute difference in `max_abs_error`, or an error.
std::string check_against_cublas(const AttentionArgs& args, double* max_abs_error);

}  // namespace hcp::gpu
