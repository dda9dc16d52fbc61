// `hcp-plan preflight` end to end: recorded environments, topology captures and fake interpreters.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::run_cli;

const std::string kFix = "tests/fixtures/preflight/";

/// preflight of the shipped llama3_8b_128k recipe (CP 16 as HCP [8, 2]) on a 4 x 8 launch.
std::string args(const std::string& env, const std::string& topo, const std::string& python,
                 const std::string& extra = "") {
  return "preflight llama3_8b_128k --env-file " + kFix + env + " --nvidia-smi-topo " + kFix + topo +
         " --python " + kFix + python + " --wide " + extra;
}

TEST(PreflightCli, HealthyDgxNodeIsGo) {
  auto r = run_cli(args("slurm_4x8.env", "dgx_h100_healthy.txt", "python_good"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("GO: 0 errors", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("4 nodes x 8 GPUs (world size 32), from slurm [dgx-[01-04]]"),
            std::string::npos)
      << r.out;
}

TEST(PreflightCli, NvlinkLinkDownIsNoGo) {
  auto r = run_cli(args("slurm_4x8.env", "dgx_h100_nvlink_down.txt", "python_good"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("NO-GO: ", 0), 0u);
  EXPECT_NE(r.out.find("error: [TOPO002] GPU 3"), std::string::npos) << r.out;
}

TEST(PreflightCli, FewerGpusThanTheLaunchIsNoGo) {
  auto r = run_cli(args("slurm_4x8.env", "hgx_h100_4gpu.txt", "python_good"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[PF201] 4 GPUs visible, the launch asks for 8 per node"), std::string::npos)
      << r.out;
}

TEST(PreflightCli, TeTooOldForTheCommTypeIsNoGo) {
  auto r = run_cli(args("slurm_4x8.env", "dgx_h100_healthy.txt", "python_old_te", "--format json"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "NO-GO");
  bool found = false;
  for (const auto& d : j["diagnostics"])
    found =
        found || (d["id"] == "CP018" && d["severity"] == "error" && d["source"] == "environment");
  EXPECT_TRUE(found) << r.out;
  EXPECT_EQ(j["environment"]["packages"]["transformer_engine"], "1.11.0");
}

TEST(PreflightCli, MissingCudaDeviceMaxConnectionsIsNoGo) {
  auto mlm = run_cli(
      args("slurm_4x8_no_cdmc.env", "dgx_h100_healthy.txt", "python_good", "--framework mlm"));
  EXPECT_EQ(mlm.exit_code, 1) << mlm.out << mlm.err;
  EXPECT_NE(mlm.out.find("error: [CP111]"), std::string::npos) << mlm.out;
  // Bridge does not assert it: a warning, which --strict turns into NO-GO.
  auto bridge = run_cli(args("slurm_4x8_no_cdmc.env", "dgx_h100_healthy.txt", "python_good"));
  EXPECT_EQ(bridge.exit_code, 0) << bridge.out;
  EXPECT_NE(bridge.out.find("warning: [CP111]"), std::string::npos) << bridge.out;
  auto strict =
      run_cli(args("slurm_4x8_no_cdmc.env", "dgx_h100_healthy.txt", "python_good", "--strict"));
  EXPECT_EQ(strict.exit_code, 1) << strict.out;
}

TEST(PreflightCli, JsonShape) {
  auto r = run_cli(args("slurm_4x8.env", "dgx_h100_healthy.txt", "python_good", "--format json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"verdict", "launch", "environment", "node", "diagnostics"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["launch"]["source"], "slurm");
  EXPECT_EQ(j["node"]["gpus"], 8);
  EXPECT_EQ(j["environment"]["variables"]["CUDA_DEVICE_MAX_CONNECTIONS"], "1");
}

TEST(PreflightCli, CommandLineShapeWithoutLauncher) {
  auto r = run_cli(
      "preflight llama3_8b_128k --env CUDA_DEVICE_MAX_CONNECTIONS=1 --env-file /dev/null "
      "--nodes 2 --gpus-per-node 8 --nvidia-smi-topo " +
      kFix + "dgx_h100_healthy.txt --format json");
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["launch"]["source"], "command line");
  EXPECT_EQ(j["launch"]["world_size"], 16);
}

TEST(PreflightCli, BadInputsExitTwo) {
  EXPECT_EQ(run_cli("preflight").exit_code, 2);
  EXPECT_EQ(run_cli("preflight no_such_recipe --env-file /dev/null").exit_code, 2);
  EXPECT_EQ(run_cli("preflight llama3_8b_128k --env-file " + kFix + "missing.env").exit_code, 2);
  EXPECT_EQ(run_cli("preflight llama3_8b_128k --env SLURM_NNODES=x --env-file /dev/null "
                    "--nvidia-smi-topo " +
                    kFix + "dgx_h100_healthy.txt")
                .exit_code,
            2);
  auto bad_topo = run_cli("preflight llama3_8b_128k --env-file /dev/null --nvidia-smi-topo " +
                          kFix + "missing.txt");
  EXPECT_EQ(bad_topo.exit_code, 2);
  EXPECT_NE(bad_topo.err.find("error:"), std::string::npos);
}

TEST(PreflightCli, MissingInterpreterExitsThree) {
  auto r = run_cli(args("slurm_4x8.env", "dgx_h100_healthy.txt", "no_such_python"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "hcp-plan: error: <command line>: Python interpreter '" + kFix +
                       "no_such_python' not found or not executable\n");
}

TEST(PreflightCli, LiveProbeOnThisMachineNeverCrashes) {
  auto r = run_cli("preflight llama3_8b_128k --env-file /dev/null --nodes 4 --gpus-per-node 8");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 3) << r.out << r.err;
  if (r.exit_code == 3) {
    EXPECT_NE(r.err.find("cannot probe"), std::string::npos) << r.err;
  } else if (r.out.find(" 0 GPUs,") != std::string::npos) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("[PF201] no NVIDIA GPU visible on this node"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace hcp
