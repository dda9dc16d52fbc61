#include "hcp/bench_report.h"

#include "hcp/text_util.h"

namespace hcp {

namespace {

std::string attention_line(const AttentionMeasurement& a) {
  std::string t = "  attention " + a.dtype + " hd" + std::to_string(a.head_dim) + " " +
                  std::to_string(a.seq_q) + "x" + std::to_string(a.seq_kv) + ": " +
                  format_fixed(a.time_ms, 3) + " ms, " + format_fixed(a.tflops, 1) + " TFLOP/s";
  if (a.max_abs_error) t += ", max abs error vs cuBLAS " + format_fixed(*a.max_abs_error, 6);
  if (!a.kernel.empty()) t += " [" + a.kernel + "]";
  return t + "\n";
}

std::string collective_line(const CollectiveMeasurement& m) {
  return "  " + m.op + " " + std::to_string(m.ranks) + " GPUs " + std::to_string(m.bytes) +
         " B: " + format_fixed(m.time_us, 1) + " us, algbw " + format_fixed(m.algbw_gbps, 2) +
         " GB/s, busbw " + format_fixed(m.busbw_gbps, 2) + " GB/s\n";
}

}  // namespace

std::string format_bench_text(const Calibration& c, const std::string& saved) {
  std::string t = "bench: " + c.option + " on " + std::to_string(c.gpus) + "x " + c.device +
                  (c.nccl_version.empty() ? "" : ", NCCL " + c.nccl_version) + "\n";
  for (const AttentionMeasurement& a : c.attention)
    t += attention_line(a);
  if (!c.attention.empty() && !c.summary.attention_tflops) {
    t += "    (hcp-plan's own forward kernel: it checks this GPU and the numerics; plans keep "
         "their\n    attention rate, since TE runs cuDNN or flash attention, not this kernel)\n";
  }
  for (const CollectiveMeasurement& m : c.collectives)
    t += collective_line(m);
  t += "  calibration written to " + saved;
  if (!c.summary.has_figures()) {
    t += "; it holds no figure that plans use (links are measured between 2 or more local GPUs)";
  }
  return t + "\n";
}

std::string format_confirm_line(const Calibration& measured, double estimated_step_s,
                                double step_with_measured_s, const std::string& mismatch) {
  std::string t;
  for (const AttentionMeasurement& a : measured.attention) {
    t += "attention " + std::to_string(a.seq_q) + "x" + std::to_string(a.seq_kv) + " " +
         format_fixed(a.tflops, 0) + " TFLOP/s (hcp-plan's kernel, not applied); ";
  }
  for (const CollectiveMeasurement& m : measured.collectives)
    t += m.op + " busbw " + format_fixed(m.busbw_gbps, 1) + " GB/s; ";
  if (!measured.summary.has_figures()) {  // nothing applied, so no GPU to tell apart either
    return t + "no link measured (" + counted(measured.gpus, "local GPU") + "): step " +
           format_fixed(estimated_step_s, 2) + " s as estimated";
  }
  t += "step " + format_fixed(estimated_step_s, 2) + " s estimated, " +
       format_fixed(step_with_measured_s, 2) + " s with the measured figures";
  return mismatch.empty() ? t : t + "; " + mismatch;
}

}  // namespace hcp
