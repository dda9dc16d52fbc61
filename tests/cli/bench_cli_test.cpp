// End-to-end tests of `hcp-plan bench` on a machine that may lack a GPU, driver or NCCL.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace hcp::testing {
namespace {

const char* kOption = "--option \"tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2\"";

bool driver_present() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

TEST(BenchCli, WithoutTheDriverExits3NamingIt) {
  if (driver_present()) GTEST_SKIP() << "libcuda.so.1 is present on this machine";
  auto r = run_cli(std::string("bench llama3_8b_128k ") + kOption + " --save /dev/null");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("libcuda.so.1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unavailable"), std::string::npos) << r.err;
}

TEST(BenchCli, WithoutTheLibraryExits3NamingIt) {
  auto r = run_cli(std::string("bench llama3_8b_128k ") + kOption + " --save /dev/null",
                   "HCP_GPU_BENCH_LIB=/nonexistent/libhcp_gpu_bench.so");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("/nonexistent/libhcp_gpu_bench.so not found"), std::string::npos) << r.err;
}

// An empty HCP_GPU_BENCH_LIB is unset: the message must not blame the variable.
TEST(BenchCli, AnEmptyLibraryVariableIsUnset) {
  auto r = run_cli(std::string("bench llama3_8b_128k ") + kOption + " --save /dev/null",
                   "HCP_GPU_BENCH_LIB=");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.err.find("set by HCP_GPU_BENCH_LIB"), std::string::npos) << r.err;
}

TEST(BenchCli, DryRunPrintsTheMeasurementsOfTheOption) {
  auto r = run_cli(std::string("bench llama3_8b_128k ") + kOption + " --dry-run --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["option"], "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2");
  EXPECT_EQ(j["attention"]["heads"], 4);
  EXPECT_EQ(j["attention"]["kv_heads"], 1);
  EXPECT_EQ(j["attention"]["seq_q"], 65536);
  // Q_loc + K_loc + V_loc of 8192 tokens: 8192*(32+2*8)*128*2 bytes.
  EXPECT_EQ(j["alltoall"]["bytes"], 8192LL * (32 + 2 * 8) * 128 * 2);
  EXPECT_EQ(j["alltoall"]["ranks"], 8);
  EXPECT_EQ(j["sendrecv"]["bytes"], 2LL * 8192 * 8 * 128 * 2);
  EXPECT_EQ(j["sendrecv"]["ranks"], 2);
}

TEST(BenchCli, BadInputsExit2BeforeLookingForAGpu) {
  for (const std::string& args :
       {std::string("bench llama3_8b_128k --option \"tp=1,cp=16,hcp=8x4\""),
        std::string("bench llama3_8b_128k --option \"tpp=2\""),
        std::string("bench llama3_8b_128k --option \"cp=32,cp_comm_type=a2a+p2p\""),
        std::string("bench no_such_recipe ") + kOption,
        std::string("bench llama3_8b_128k --option \"cp=64,cp_comm_type=a2a\"")}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
  }
}

}  // namespace
}  // namespace hcp::testing
