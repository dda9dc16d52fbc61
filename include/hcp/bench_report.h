// The text report of `hcp-plan bench`: what was measured on this node (formatting only; the CLI
// wires, the GPU benchmark library measures).
#pragma once

#include <string>

#include "hcp/calibration.h"

namespace hcp {

/// "bench: OPTION on Nx DEVICE, NCCL V", one line per attention kernel (time, TFLOP/s, error vs
/// cuBLAS when checked) and per collective (time, algbw, busbw), and where the calibration went.
std::string format_bench_text(const Calibration& calibration, const std::string& saved);

/// One option of `plan --confirm`: what `bench` measured for it on this node (attention of its
/// per-rank shape, each collective) and the step time with the measured figures applied, or that
/// none of them is one a plan uses. `mismatch`: the sentence of calibration_device_mismatch.
std::string format_confirm_line(const Calibration& measured, double estimated_step_s,
                                double step_with_measured_s, const std::string& mismatch);

}  // namespace hcp
