// The topology findings (TOPO001-TOPO005) as `probe` reports them and as preflight does.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hcp/preflight.h"
#include "hcp/rules.h"
#include "hcp/topology.h"
#include "probes/nccl_dump.h"
#include "probes/topology_test_support.h"

namespace hcp {
namespace {

using testing::has;
using testing::smi4;
using testing::topology_fixture;

std::vector<std::string> ids(const std::vector<Diagnostic>& ds) {
  std::vector<std::string> out;
  out.reserve(ds.size());
  for (const auto& d : ds)
    out.push_back(d.id());
  return out;
}

// --- findings ------------------------------------------------------------------------------------

TEST(Findings, AsymmetricNvlinkFiresAndSymmetricDoesNot) {
  auto asym =
      parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX 0 0", "GPU1 NV2 X NV4 NV4 PIX 0 0",
                                 "GPU2 NV4 NV4 X NV4 PIX 0 0", "GPU3 NV4 NV4 NV4 X PIX 0 0"),
                            "asym.txt");
  ASSERT_TRUE(asym.ok());
  auto f = topology_findings(*asym);
  EXPECT_TRUE(has(ids(f), "TOPO001"));
  auto sym = parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX 0 0", "GPU1 NV4 X NV4 NV4 PIX 0 0",
                                        "GPU2 NV4 NV4 X NV4 PIX 0 0", "GPU3 NV4 NV4 NV4 X PIX 0 0"),
                                   "sym.txt");
  ASSERT_TRUE(sym.ok());
  EXPECT_TRUE(topology_findings(*sym).empty());
}

std::vector<NvmlGpuInfo> nvml_switch_node(int gpus, int links, int odd_gpu, int odd_links,
                                          int odd_down) {
  std::vector<NvmlGpuInfo> out;
  for (int i = 0; i < gpus; ++i) {
    NvmlGpuInfo g;
    g.index = i;
    g.pci_bus_id = normalize_bus_id("00000000:" + std::to_string(10 + i) + ":00.0");
    g.name = "NVIDIA H100 80GB HBM3";
    g.sm = 90;
    int n = i == odd_gpu ? odd_links : links;
    g.active_link_targets.assign(static_cast<size_t>(n), "switch");
    g.inactive_links = i == odd_gpu ? odd_down : 0;
    out.push_back(g);
  }
  return out;
}

TEST(Findings, NvlinksDownFireFromNvmlStateAndFromLinkCounts) {
  auto healthy = topology_from_nvml(nvml_switch_node(8, 18, -1, 0, 0));
  EXPECT_EQ(healthy.nvlink.matrix[2][5], 18);
  EXPECT_DOUBLE_EQ(healthy.nvlink.gbps_per_gpu[0], 450);
  EXPECT_EQ(healthy.gpus[0].name, "H100 80GB HBM3");
  EXPECT_FALSE(has(ids(topology_findings(healthy)), "TOPO002"));

  auto down = topology_from_nvml(nvml_switch_node(8, 18, 3, 16, 2));
  auto f = topology_findings(down);
  ASSERT_TRUE(has(ids(f), "TOPO002"));
  EXPECT_EQ(down.nvlink.matrix[3][4], 16);
  auto counted = topology_from_nvml(nvml_switch_node(8, 18, 5, 12, 0));
  auto g = topology_findings(counted);
  ASSERT_TRUE(has(ids(g), "TOPO002"));
  EXPECT_NE(g.front().message.find("GPU 5 has 12 active NVLinks, most GPUs have 18"),
            std::string::npos);
}

TEST(Findings, GpuWithoutNicOnItsSwitch) {
  auto pcie = load_nvidia_smi_topo(
      topology_fixture("nvidia-smi/pcie_8xA100-80GB_NVLink-bridge-pairs_TRUNCATED.txt"));
  ASSERT_TRUE(pcie.ok());
  auto f = topology_findings(*pcie);
  ASSERT_TRUE(has(ids(f), "TOPO003"));
  auto ndv5 = load_nccl_topo(topology_fixture("nccl/azure_ndv5_8xH100_8xNDR_topohint.xml"));
  ASSERT_TRUE(ndv5.ok());
  EXPECT_FALSE(has(ids(topology_findings(*ndv5)), "TOPO003"));
}

TEST(Findings, MixedNicSpeeds) {
  auto mixed = parse_nccl_topo(nccl_dump("6", "200000"), "m.xml");
  ASSERT_TRUE(mixed.ok());
  auto f = topology_findings(*mixed);
  ASSERT_TRUE(has(ids(f), "TOPO004"));
  auto same = parse_nccl_topo(nccl_dump("6", "400000"), "s.xml");
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(has(ids(topology_findings(*same)), "TOPO004"));
}

TEST(Findings, GpusSplitAcrossNumaNodes) {
  auto hgx = load_nccl_topo(
      topology_fixture("nccl/hgx_8xA100-80GB_6xNVSwitch_4xCX6Dx-RoCE_ncclTopoDump.xml"));
  ASSERT_TRUE(hgx.ok());
  auto f = topology_findings(*hgx);
  EXPECT_EQ(ids(f), std::vector<std::string>{"TOPO005"});
  EXPECT_EQ(f.front().severity(), Severity::kInfo);
  auto one_node = parse_nccl_topo(nccl_dump("6", "400000"), "one.xml");
  ASSERT_TRUE(one_node.ok());
  EXPECT_FALSE(has(ids(topology_findings(*one_node)), "TOPO005"));
}

// Issue #26: preflight blocks a launch on a broken NVLink because the catalog's "preflight" case
// of TOPO001/TOPO002 says so, not because preflight re-raises the probe's warning.
TEST(Findings, PreflightReportsBrokenNvlinksAsTheCatalogSays) {
  auto asym =
      parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX 0 0", "GPU1 NV2 X NV4 NV4 PIX 0 0",
                                 "GPU2 NV4 NV4 X NV4 PIX 0 0", "GPU3 NV4 NV4 NV4 X PIX 0 0"),
                            "asym.txt");
  ASSERT_TRUE(asym.ok());
  auto probe = topology_findings(*asym);
  auto preflight = preflight_topology_findings(*asym);
  ASSERT_EQ(ids(probe), ids(preflight));
  ASSERT_FALSE(probe.empty());
  for (size_t i = 0; i < probe.size(); ++i) {
    EXPECT_EQ(probe[i].key, "topology");
    EXPECT_EQ(preflight[i].key, "node");
    EXPECT_EQ(probe[i].message, preflight[i].message);
    EXPECT_EQ(probe[i].fix(), preflight[i].fix());
  }
  EXPECT_EQ(probe.front().id(), "TOPO001");
  EXPECT_EQ(probe.front().fix(), find_rule("TOPO001")->fix);
  EXPECT_EQ(probe.front().severity(), Severity::kWarning);
  EXPECT_EQ(preflight.front().severity(), Severity::kError);
  auto counted = topology_from_nvml(nvml_switch_node(8, 18, 5, 12, 0));
  for (const Diagnostic& d : preflight_topology_findings(counted)) {
    if (d.id() == "TOPO002") {
      EXPECT_EQ(d.severity(), Severity::kError);
    }
  }
}

TEST(Findings, OtherTopologyFindingsKeepTheirSeverityInPreflight) {
  auto hgx = load_nccl_topo(
      topology_fixture("nccl/hgx_8xA100-80GB_6xNVSwitch_4xCX6Dx-RoCE_ncclTopoDump.xml"));
  ASSERT_TRUE(hgx.ok());
  auto f = preflight_topology_findings(*hgx);
  ASSERT_EQ(ids(f), std::vector<std::string>{"TOPO005"});
  EXPECT_EQ(f.front().severity(), Severity::kInfo);
  EXPECT_EQ(f.front().fix(), find_rule("TOPO005")->fix);
}

}  // namespace
}  // namespace hcp
