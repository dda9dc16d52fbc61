// format_bench_text: bench's report of what it measured (moved from the CLI, issue 30).
#include "hcp/bench_report.h"

#include <gtest/gtest.h>

namespace hcp {
namespace {

Calibration measured() {
  Calibration c;
  c.option = "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2";
  c.gpus = 8;
  c.device = "NVIDIA H100 80GB HBM3";
  c.nccl_version = "2.21.5";
  AttentionMeasurement a;
  a.head_dim = 128;
  a.seq_q = 8192;
  a.seq_kv = 16384;
  a.time_ms = 1.23456;
  a.tflops = 412.34;
  a.max_abs_error = 0.0009765625;
  c.attention.push_back(a);
  CollectiveMeasurement m;
  m.op = "alltoall";
  m.ranks = 8;
  m.bytes = 134217728;
  m.time_us = 812.25;
  m.algbw_gbps = 165.24;
  m.busbw_gbps = 144.585;
  c.collectives.push_back(m);
  return c;
}

TEST(BenchReport, NamesTheNodeEachMeasurementAndTheFile) {
  EXPECT_EQ(format_bench_text(measured(), "calib.json"),
            "bench: tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2 on 8x NVIDIA H100 80GB HBM3, NCCL "
            "2.21.5\n"
            "  attention bf16 hd128 8192x16384: 1.235 ms, 412.3 TFLOP/s, max abs error vs cuBLAS "
            "0.000977\n"
            "  alltoall 8 GPUs 134217728 B: 812.2 us, algbw 165.24 GB/s, busbw 144.59 GB/s\n"
            "  calibration written to calib.json\n");
}

TEST(BenchReport, LeavesOutWhatWasNotMeasured) {
  Calibration c = measured();
  c.nccl_version.clear();
  c.attention.front().max_abs_error.reset();
  c.collectives.clear();
  const std::string text = format_bench_text(c, "x.json");
  EXPECT_EQ(text.find("NCCL"), std::string::npos) << text;
  EXPECT_EQ(text.find("cuBLAS"), std::string::npos) << text;
  EXPECT_EQ(text.find("alltoall"), std::string::npos) << text;
  EXPECT_NE(text.find("412.3 TFLOP/s\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace hcp
