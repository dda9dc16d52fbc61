// PF206 (RDMA ports not ACTIVE on a multi-node launch) and the CUDA driver version below a root.
#include <gtest/gtest.h>

#include <algorithm>

#include "hcp/preflight.h"

namespace hcp {
namespace {

const std::string kDir = HCP_FIXTURES_DIR "/preflight/";

/// The DGX H100 capture with the port state of one of the sysfs fixture trees ("" = none).
Topology dgx_node(const std::string& sysfs_tree) {
  auto topo = load_nvidia_smi_topo(kDir + "dgx_h100_healthy.txt");
  EXPECT_TRUE(topo.ok()) << topo.error().str();
  if (!topo.ok()) return {};
  Status merged = merge_sysfs_nics(*topo, sysfs_tree.empty() ? "" : kDir + sysfs_tree);
  EXPECT_TRUE(merged.ok()) << merged.error().str();
  return *topo;
}

Recipe llama_recipe() {
  auto r = load_recipe_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml");
  EXPECT_TRUE(r.ok()) << r.error().str();
  return r.ok() ? *r : Recipe{};
}

LaunchShape launch(int64_t nodes) {
  auto s = launch_shape_from({}, nodes, 8);
  EXPECT_TRUE(s.ok());
  return s.ok() ? *s : LaunchShape{};
}

std::vector<Diagnostic> pf206(const Topology& node, int64_t nodes, const EnvMap& env = {}) {
  std::vector<Diagnostic> out;
  for (Diagnostic& d : node_findings(node, launch(nodes), llama_recipe(), env))
    if (d.id() == "PF206") out.push_back(std::move(d));
  return out;
}

TEST(NicStatePf206, AllPortsDownIsAnErrorNamingThem) {
  auto found = pf206(dgx_node("sysfs_ndr_all_down"), 4);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity(), Severity::kError);
  EXPECT_NE(found[0].message.find("no RDMA NIC port of this node is ACTIVE"), std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].message.find("mlx5_0 (DOWN, Polling)"), std::string::npos);
  EXPECT_NE(found[0].message.find("mlx5_7 (INIT, LinkUp)"), std::string::npos);
  EXPECT_NE(found[0].message.find("4 nodes"), std::string::npos);
}

TEST(NicStatePf206, SomePortsDownIsAWarningNamingOnlyThose) {
  auto found = pf206(dgx_node("sysfs_ndr_2down"), 2);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity(), Severity::kWarning);
  EXPECT_NE(found[0].message.find("2 of the 8 RDMA NIC ports"), std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].message.find("mlx5_2 (DOWN, Disabled), mlx5_5 (DOWN, Disabled)"),
            std::string::npos)
      << found[0].message;
  EXPECT_EQ(found[0].message.find("mlx5_0"), std::string::npos);
}

TEST(NicStatePf206, AllActiveIsSilent) {
  EXPECT_TRUE(pf206(dgx_node("sysfs_ndr_healthy"), 4).empty());
  EXPECT_TRUE(pf206(dgx_node("sysfs_roce"), 4).empty());
}

TEST(NicStatePf206, SingleNodeLaunchIsSilent) {
  EXPECT_TRUE(pf206(dgx_node("sysfs_ndr_all_down"), 1).empty());
}

TEST(NicStatePf206, UnknownStateIsSilentButNoted) {
  Topology node = dgx_node("");
  EXPECT_TRUE(pf206(node, 4).empty());
  EXPECT_TRUE(std::any_of(node.notes.begin(), node.notes.end(), [](const std::string& n) {
    return n.find("NIC port state unknown") != std::string::npos;
  }));
}

TEST(NicStatePf206, OnlyTheNicsNcclIbHcaSelectsCount) {
  Topology node = dgx_node("sysfs_ndr_2down");
  // The selected HCAs are all active: the down ones do not matter.
  EXPECT_TRUE(pf206(node, 4, {{"NCCL_IB_HCA", "mlx5_0,mlx5_1"}}).empty());
  // Only down HCAs selected: nothing left for NCCL.
  auto only_down = pf206(node, 4, {{"NCCL_IB_HCA", "=mlx5_2:1,mlx5_5:1"}});
  ASSERT_EQ(only_down.size(), 1u);
  EXPECT_EQ(only_down[0].severity(), Severity::kError);
  EXPECT_NE(only_down[0].message.find("NCCL_IB_HCA selects"), std::string::npos);
  // Excluding one of the two down HCAs leaves one down among seven.
  auto excluded = pf206(node, 4, {{"NCCL_IB_HCA", "^mlx5_2"}});
  ASSERT_EQ(excluded.size(), 1u);
  EXPECT_EQ(excluded[0].severity(), Severity::kWarning);
  EXPECT_NE(excluded[0].message.find("1 of the 7"), std::string::npos) << excluded[0].message;
}

TEST(NicStatePf206, RunPreflightCountsItAsANodeFinding) {
  PreflightInput in;
  in.recipe = llama_recipe();
  in.launch = launch(4);
  in.node = dgx_node("sysfs_ndr_all_down");
  in.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  PreflightReport report = run_preflight(in);
  EXPECT_FALSE(report.go);
  EXPECT_TRUE(
      std::any_of(report.findings.begin(), report.findings.end(), [](const PreflightFinding& f) {
        return f.source == "node" && f.diagnostic.id() == "PF206";
      }));
}

TEST(DriverVersion, ReadBelowARoot) {
  EXPECT_EQ(read_driver_version_under(kDir + "sysfs_ndr_healthy"), "550.54.15");
  EXPECT_EQ(read_driver_version_under(kDir + "sysfs_roce"), "");  // No driver file there.
}

}  // namespace
}  // namespace hcp
