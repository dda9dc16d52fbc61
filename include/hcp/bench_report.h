// The text report of `hcp-plan bench`: what was measured on this node (formatting only; the CLI
// wires, the GPU benchmark library measures).
#pragma once

#include <string>

#include "hcp/calibration.h"

namespace hcp {

/// "bench: OPTION on Nx DEVICE, NCCL V", one line per attention kernel (time, TFLOP/s, error vs
/// cuBLAS when checked) and per collective (time, algbw, busbw), and where the calibration went.
std::string format_bench_text(const Calibration& calibration, const std::string& saved);

}  // namespace hcp
