#include "hcp/bench_report.h"

#include "hcp/text_util.h"

namespace hcp {

namespace {

std::string attention_line(const AttentionMeasurement& a) {
  std::string t = "  attention " + a.dtype + " hd" + std::to_string(a.head_dim) + " " +
                  std::to_string(a.seq_q) + "x" + std::to_string(a.seq_kv) + ": " +
                  format_fixed(a.time_ms, 3) + " ms, " + format_fixed(a.tflops, 1) + " TFLOP/s";
  if (a.max_abs_error) t += ", max abs error vs cuBLAS " + format_fixed(*a.max_abs_error, 6);
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
  for (const CollectiveMeasurement& m : c.collectives)
    t += collective_line(m);
  t += "  calibration written to " + saved + "\n";
  return t;
}

}  // namespace hcp
