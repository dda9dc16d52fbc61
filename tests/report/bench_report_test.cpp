// format_bench_text: bench's report of what it measured (moved from the CLI, issue 30).
#include "hcp/bench_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

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
  c.summary.intra_node_a2a_gbps = m.busbw_gbps;  // as run_gpu_bench records it
  return c;
}

TEST(BenchReport, NamesTheNodeEachMeasurementAndTheFile) {
  EXPECT_EQ(format_bench_text(measured(), "calib.json"),
            "bench: tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2 on 8x NVIDIA H100 80GB HBM3, NCCL "
            "2.21.5\n"
            "  attention bf16 hd128 8192x16384: 1.235 ms, 412.3 TFLOP/s, max abs error vs cuBLAS "
            "0.000977\n"
            "    (hcp-plan's own forward kernel: it checks this GPU and the numerics; plans keep "
            "their\n    attention rate, since TE runs cuDNN or flash attention, not this kernel)\n"
            "  alltoall 8 GPUs 134217728 B: 812.2 us, algbw 165.24 GB/s, busbw 144.59 GB/s\n"
            "  calibration written to calib.json\n");
}

TEST(BenchReport, NamesTheKernelThatRanWhenTheLibrarySaysWhich) {
  Calibration c = measured();
  c.attention.front().kernel = "wgmma-sm90a";
  EXPECT_NE(format_bench_text(c, "x.json").find("cuBLAS 0.000977 [wgmma-sm90a]\n"),
            std::string::npos)
      << format_bench_text(c, "x.json");
  EXPECT_EQ(format_bench_text(measured(), "x.json").find('['), std::string::npos);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `value` as the README writes it: `digits` decimals ("%.0f", "%.2f").
std::string shown(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

/// The largest error of the kernel matrix in one dtype, to two significant figures ("0.0027").
std::string largest_error(const nlohmann::json& run, const std::string& dtype) {
  double worst = 0;
  for (const auto& row : run["checks"]["kernel_matrix"]["rows"]) {
    if (row["dtype"] == dtype)
      worst = std::max(worst, row["max_abs_error_vs_cublas"].get<double>());
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", worst);
  return text;
}

// The README's table of attention rates and its error figures are the committed H200 run's.
TEST(BenchReport, TheReadmeAttentionFiguresAreTheH200Run) {
  const auto run = nlohmann::json::parse(
      read_text(HCP_SOURCE_DIR "/bench/results/nvidia-h200_2026-11-28_run4_wgmma.json"));
  const std::string readme = read_text(HCP_SOURCE_DIR "/README.md");
  int rows = 0;
  for (const auto& row : run["checks"]["attention"]["rows"]) {
    std::string tokens = std::to_string(row["seq_length"].get<int>());
    tokens.insert(tokens.size() - 3, ",");
    const std::string line = "| " + tokens + " | " +
                             shown(row["kernels"]["wgmma-sm90a"]["forward_tflops"], 0) + " | " +
                             shown(row["kernels"]["mma-sm80"]["forward_tflops"], 0) + " | " +
                             shown(row["sdpa"]["cudnn"]["forward_tflops"], 0) + " | " +
                             shown(row["sdpa"]["flash"]["forward_tflops"], 0) + " | " +
                             shown(row["ours_over_faster_sdpa_forward"], 2) + " |";
    EXPECT_NE(readme.find(line), std::string::npos) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 4);
  EXPECT_NE(readme.find("was " + largest_error(run, "bf16") + " in bf16 and " +
                        largest_error(run, "fp16") + " in fp16"),
            std::string::npos)
      << largest_error(run, "bf16") << " " << largest_error(run, "fp16");
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

TEST(BenchReport, SaysWhenTheFileHoldsNothingPlansUse) {
  Calibration c = measured();
  c.gpus = 1;
  c.collectives.clear();
  c.summary = {};
  const std::string text = format_bench_text(c, "x.json");
  EXPECT_NE(text.find("calibration written to x.json; it holds no figure that plans use"),
            std::string::npos)
      << text;
  EXPECT_EQ(format_bench_text(measured(), "x.json").find("no figure"), std::string::npos);
}

TEST(BenchReport, AttentionRateFromALogIsNotCalledTheKernels) {
  Calibration c = measured();
  c.summary.attention_tflops = 500.0;  // check-log's fit: TE's own rate
  EXPECT_EQ(format_bench_text(c, "x.json").find("own forward kernel"), std::string::npos);
}

TEST(ConfirmLine, OneGpuMeasuresNoLinkAndKeepsTheEstimate) {
  Calibration c = measured();
  c.gpus = 1;
  c.device = "NVIDIA H200";
  c.collectives.clear();
  c.summary = {};
  EXPECT_EQ(format_confirm_line(c, 48.0052, 48.0052, "measured on NVIDIA H200"),
            "attention 8192x16384 412 TFLOP/s (hcp-plan's kernel, not applied); no link measured "
            "(1 local GPU): step 48.01 s as estimated");
}

TEST(ConfirmLine, MeasuredLinksRepriceTheStepAndAnotherGpuIsNamed) {
  EXPECT_EQ(format_confirm_line(measured(), 48.0052, 47.25, "measured on NVIDIA H200"),
            "attention 8192x16384 412 TFLOP/s (hcp-plan's kernel, not applied); alltoall busbw "
            "144.6 GB/s; step 48.01 s estimated, 47.25 s with the measured figures; measured on "
            "NVIDIA H200");
  EXPECT_EQ(format_confirm_line(measured(), 48.0, 47.25, "").find("H200"), std::string::npos);
}

}  // namespace
}  // namespace hcp
