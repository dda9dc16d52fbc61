// GPU benchmark library: loads without a driver, reports what is missing, and (on a GPU node)
// runs a tiny attention kernel checked against cuBLAS. Skipped with the reason elsewhere.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "../src/sim/gpu_bench_abi.h"
#include "hcp/sim.h"

namespace hcp {
namespace {

TEST(GpuBench, LibraryLoadsWithoutTheDriver) {
  const std::string path = gpu_bench_library_path();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "GPU benchmark library not built: " << path;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto version = reinterpret_cast<int (*)()>(dlsym(handle, "hcp_gpu_bench_abi_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version(), HCP_GPU_BENCH_ABI_VERSION);
}

TEST(GpuBench, UnavailableReasonNamesWhatIsMissing) {
  const std::string reason = gpu_bench_unavailable_reason();
  if (reason.empty()) GTEST_SKIP() << "a GPU is available here";
  auto result = run_gpu_bench(GpuBenchRequest{});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "unavailable: " + reason);
  EXPECT_TRUE(reason.find("libcuda.so.1") != std::string::npos ||
              reason.find("libhcp_gpu_bench.so") != std::string::npos ||
              reason.find("GPU") != std::string::npos)
      << reason;
}

TEST(GpuBench, TinyAttentionMatchesCublas) {
  const std::string reason = gpu_bench_unavailable_reason();
  if (!reason.empty()) GTEST_SKIP() << "no GPU benchmark here: " << reason;
  for (const char* dtype : {"bf16", "fp16"}) {
    for (int64_t head_dim : {64, 128}) {
      for (bool causal : {false, true}) {
        GpuBenchRequest r;
        r.dtype = dtype;
        r.heads = 4;
        r.kv_heads = 2;
        r.head_dim = head_dim;
        r.seq_q = r.seq_kv = 256;
        r.causal = causal;
        r.warmup = 1;
        r.iterations = 2;
        auto c = run_gpu_bench(r);
        ASSERT_TRUE(c) << c.error().message;
        ASSERT_EQ(c->attention.size(), 1u);
        ASSERT_TRUE(c->attention[0].max_abs_error.has_value());
        EXPECT_LT(*c->attention[0].max_abs_error, 2e-2) << dtype << " d" << head_dim;
        EXPECT_GT(c->attention[0].tflops, 0.0);
        const std::string& kernel = c->attention[0].kernel;
        EXPECT_TRUE(kernel == HCP_ATTENTION_KERNEL_MMA || kernel == HCP_ATTENTION_KERNEL_WGMMA)
            << kernel;
      }
    }
  }
}

// HCP_ATTENTION_KERNEL forces each kernel: the mma.sync one runs everywhere, the wgmma one on an
// sm_90 GPU (head dim 128) and is refused with the reason elsewhere.
TEST(GpuBench, EachKernelMatchesCublasWhereItRuns) {
  const std::string reason = gpu_bench_unavailable_reason();
  if (!reason.empty()) GTEST_SKIP() << "no GPU benchmark here: " << reason;
  for (const char* kernel : {HCP_ATTENTION_KERNEL_MMA, HCP_ATTENTION_KERNEL_WGMMA}) {
    ASSERT_EQ(setenv("HCP_ATTENTION_KERNEL", kernel, 1), 0);
    GpuBenchRequest r;
    r.batch = 2;  // the check then runs two sequences: their offsets are checked too
    r.heads = 4;
    r.kv_heads = 2;
    r.head_dim = 128;
    r.seq_q = r.seq_kv = 512;
    r.warmup = 1;
    r.iterations = 2;
    auto c = run_gpu_bench(r);
    unsetenv("HCP_ATTENTION_KERNEL");
    if (!c) {
      EXPECT_STREQ(kernel, HCP_ATTENTION_KERNEL_WGMMA) << c.error().message;
      EXPECT_NE(c.error().message.find("sm_90"), std::string::npos) << c.error().message;
      continue;
    }
    ASSERT_EQ(c->attention.size(), 1u);
    EXPECT_EQ(c->attention[0].kernel, kernel);
    ASSERT_TRUE(c->attention[0].max_abs_error.has_value());
    EXPECT_LT(*c->attention[0].max_abs_error, 2e-2) << kernel;
  }
}

TEST(GpuBench, AnUnknownKernelNameIsRefused) {
  const std::string reason = gpu_bench_unavailable_reason();
  if (!reason.empty()) GTEST_SKIP() << "no GPU benchmark here: " << reason;
  ASSERT_EQ(setenv("HCP_ATTENTION_KERNEL", "fastest", 1), 0);
  GpuBenchRequest r;
  r.heads = r.kv_heads = 2;
  r.seq_q = r.seq_kv = 256;
  auto c = run_gpu_bench(r);
  unsetenv("HCP_ATTENTION_KERNEL");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("HCP_ATTENTION_KERNEL must be mma-sm80 or wgmma-sm90a"),
            std::string::npos)
      << c.error().message;
}

TEST(GpuBenchRequest, FollowsTheLayout) {
  CpVolumeInput in;
  in.seq_length = 131072;
  in.heads = 32;
  in.kv_heads = 8;
  in.head_dim = 128;
  in.cp = 16;
  in.comm_type = CpCommType::kA2aP2p;
  in.hcp_a2a = 8;
  in.hcp_p2p = 2;
  auto r = gpu_bench_request_for(in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->heads, 4);
  EXPECT_EQ(r->kv_heads, 1);
  EXPECT_EQ(r->seq_q, 65536);
  EXPECT_EQ(r->seq_kv, 32768);
  EXPECT_EQ(r->a2a_ranks, 8);
  EXPECT_EQ(r->ring_ranks, 2);
  EXPECT_EQ(r->ring_step_bytes, 2 * 8192 * 8 * 128 * 2);
  in.comm_type = CpCommType::kA2a;
  in.cp = 8;
  r = gpu_bench_request_for(in);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->causal);
  EXPECT_EQ(r->seq_q, 131072);
  EXPECT_EQ(r->heads, 4);
  EXPECT_EQ(r->ring_step_bytes, 0);
  in.head_dim = 96;  // the kernel has 64 and 128 only
  EXPECT_FALSE(gpu_bench_request_for(in));
}

// The library maps request.op through hcp_collective_op_name and rejects what it does not name
// (kernels/bench_api.cu); an unknown op used to run as send/recv.
TEST(GpuBench, CollectiveOpNamesOnlyTheTwoOperations) {
  EXPECT_STREQ(hcp_collective_op_name(HCP_COLLECTIVE_ALLTOALL), "alltoall");
  EXPECT_STREQ(hcp_collective_op_name(HCP_COLLECTIVE_SENDRECV), "sendrecv");
  EXPECT_EQ(hcp_collective_op_name(2), nullptr);
  EXPECT_EQ(hcp_collective_op_name(-1), nullptr);
}

}  // namespace
}  // namespace hcp
