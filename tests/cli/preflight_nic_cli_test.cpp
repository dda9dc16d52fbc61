// `probe` and `preflight` with --sysfs-root: RDMA port state and the CUDA driver version read
// from recorded sysfs/procfs trees.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::run_cli;

const std::string kFix = "tests/fixtures/preflight/";

/// preflight of llama3_8b_128k on a recorded 4 x 8 Slurm job, DGX H100 capture, given sysfs tree.
std::string preflight_args(const std::string& tree, const std::string& extra = "") {
  return "preflight llama3_8b_128k --env-file " + kFix + "slurm_4x8.env --nvidia-smi-topo " + kFix +
         "dgx_h100_healthy.txt --python " + kFix + "python_good --sysfs-root " + kFix + tree +
         " --wide " + extra;
}

TEST(PreflightNicCli, AllPortsDownIsNoGoNamingTheNics) {
  auto r = run_cli(preflight_args("sysfs_ndr_all_down"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("NO-GO: 1 error", 0), 0u) << r.out;
  // slurm_4x8.env sets NCCL_IB_HCA=mlx5, which selects every port of this node.
  EXPECT_NE(r.out.find("error: [PF206] no RDMA NIC port NCCL_IB_HCA selects is ACTIVE: mlx5_0 "
                       "(DOWN, Polling)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("mlx5_7 (INIT, LinkUp)"), std::string::npos) << r.out;
}

TEST(PreflightNicCli, TwoPortsDownIsAWarningAndStrictMakesItNoGo) {
  auto r = run_cli(preflight_args("sysfs_ndr_2down"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("warning: [PF206] 2 of the 8 RDMA NIC ports NCCL_IB_HCA selects are not "
                       "ACTIVE: mlx5_2 (DOWN, Disabled), mlx5_5 (DOWN, Disabled)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(run_cli(preflight_args("sysfs_ndr_2down", "--strict")).exit_code, 1);
}

TEST(PreflightNicCli, HealthyTreeIsGoAndShowsTheDriver) {
  auto r = run_cli(preflight_args("sysfs_ndr_healthy", "--format json"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "GO");
  EXPECT_EQ(j["environment"]["driver_version"], "550.54.15");
  for (const auto& d : j["diagnostics"])
    EXPECT_NE(d["id"], "PF206") << d.dump();
  auto text = run_cli(preflight_args("sysfs_ndr_healthy"));
  EXPECT_NE(text.out.find("CUDA driver 550.54.15"), std::string::npos) << text.out;
}

TEST(PreflightNicCli, CapturesWithoutSysfsRootNoteTheUnknownState) {
  auto r =
      run_cli("preflight llama3_8b_128k --env-file " + kFix + "slurm_4x8.env --nvidia-smi-topo " +
              kFix + "dgx_h100_healthy.txt --python " + kFix + "python_good --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["node"]["notes"].dump().find("NIC port state unknown"), std::string::npos)
      << j["node"].dump();
  EXPECT_TRUE(j["environment"]["driver_version"].is_null());
}

TEST(PreflightNicCli, MissingSysfsRootIsBadInput) {
  auto r = run_cli(preflight_args("no_such_tree"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--sysfs-root"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli("probe --sysfs-root " + kFix + "no_such_tree").exit_code, 2);
}

TEST(ProbeNicCli, SysfsRootAddsThePortState) {
  auto r = run_cli("probe --nvidia-smi-topo " + kFix + "dgx_h100_healthy.txt --sysfs-root " + kFix +
                   "sysfs_ndr_2down --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["nics"].size(), 8u) << j["nics"].dump();
  for (const auto& n : j["nics"]) {
    bool down = n["name"] == "mlx5_2" || n["name"] == "mlx5_5";
    EXPECT_EQ(n["state"], down ? "DOWN" : "ACTIVE") << n.dump();
  }
  auto plain = run_cli("probe --nvidia-smi-topo " + kFix + "dgx_h100_healthy.txt --format json");
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_TRUE(nlohmann::json::parse(plain.out)["nics"][0]["state"].is_null());
}

}  // namespace
}  // namespace hcp
