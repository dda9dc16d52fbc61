// The sm_90a (wgmma) forward attention kernel: flash_attention_hopper.cu.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "flash_attention.cuh"

namespace hcp::gpu {

/// "" when the wgmma kernel can run `args` on the current device (an sm_90 GPU, head dim 128,
/// sequence lengths multiples of 128), else why not.
std::string hopper_attention_unsupported(const AttentionArgs& args);

/// Transpose V and launch the wgmma kernel on `stream`; "" or the launch error. Call only when
/// hopper_attention_unsupported(args) is "".
std::string launch_flash_attention_hopper(const AttentionArgs& args, cudaStream_t stream);

}  // namespace hcp::gpu
