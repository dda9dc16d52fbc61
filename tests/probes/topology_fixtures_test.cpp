// Every capture in tests/fixtures/topologies loads and gives the machine it describes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hcp/topology.h"

namespace hcp {
namespace {

std::string fixture(const std::string& rel) {
  return std::string(HCP_FIXTURES_DIR) + "/topologies/" + rel;
}

Topology load(Result<Topology> r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : Topology{};
}

const Nic* nic(const Topology& t, const std::string& name) {
  for (const auto& n : t.nics)
    if (n.name == name) return &n;
  return nullptr;
}

bool has_text(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

int count_kind(const Topology& t, NicKind k) {
  return static_cast<int>(
      std::count_if(t.nics.begin(), t.nics.end(), [&](const Nic& n) { return n.kind == k; }));
}

using Gpus = std::vector<int>;

// --- hwloc XML -----------------------------------------------------------------------------------

TEST(HwlocFixture, Power8MinskyHasNvlinkPairsAndCpuLinks) {
  auto t = load(load_hwloc_xml(
      fixture("hwloc/ibm-power8-minsky_4xP100_cuda-opencl-nvml_NVLinkBandwidth.xml")));
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(t.gpus[0].name, "P100-SXM2-16GB");
  EXPECT_EQ(t.gpus[0].pci_bus_id, "0002:01:00.0");
  EXPECT_EQ(t.nvlink.matrix[0][1], 2);  // 40000 MB/s = 2 links x 20 GB/s
  EXPECT_EQ(t.nvlink.matrix[2][3], 2);
  EXPECT_EQ(t.nvlink.matrix[0][2], 0);
  EXPECT_EQ(t.nvlink.cpu_links[0], 2);
  EXPECT_EQ(t.nvlink.links_per_gpu[0], 4);
  EXPECT_DOUBLE_EQ(t.nvlink.gbps_per_gpu[0], 80);
  EXPECT_FALSE(t.nvlink.via_switch);
  EXPECT_EQ(t.gpus[0].numa_node, 0);
  EXPECT_EQ(t.gpus[3].numa_node, 1);
  EXPECT_TRUE(t.nics.empty());
  EXPECT_EQ(t.numa_nodes.size(), 2u);
}

TEST(HwlocFixture, Dgx2SixteenV100ThroughNvswitch) {
  auto t = load(
      load_hwloc_xml(fixture("hwloc/nvidia-dgx2_16xV100_12xNVSwitch_nvml_NVLinkBandwidth.xml")));
  ASSERT_EQ(t.gpus_per_node, 16);
  EXPECT_EQ(t.gpus[0].name, "V100-SXM3-32GB");
  EXPECT_TRUE(t.nvlink.via_switch);
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(t.nvlink.switch_links[i], 6) << i;
    EXPECT_EQ(t.nvlink.links_per_gpu[i], 6) << i;
    EXPECT_DOUBLE_EQ(t.nvlink.gbps_per_gpu[i], 150) << i;
  }
  EXPECT_EQ(t.nvlink.matrix[0][15], 6);  // across the two baseboards
  EXPECT_EQ(t.nvlink.matrix[8][9], 6);
  EXPECT_TRUE(t.nics.empty());
}

void expect_juwels_booster_layout(const Topology& t) {
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(t.gpus[0].name, "A100-SXM4-40GB");
  EXPECT_EQ(t.gpus[0].pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(t.gpus[0].numa_node, 3);
  EXPECT_NEAR(t.gpus[0].pcie_gbps, 31.5, 0.1);
  EXPECT_EQ(t.nvlink.matrix[0][1], -1);  // no NVML in this export: unknown, not zero
  EXPECT_EQ(t.nvlink.links_per_gpu[0], -1);
  EXPECT_EQ(t.nics.size(), 6u);
  EXPECT_EQ(count_kind(t, NicKind::kInfiniBand), 4);
  EXPECT_EQ(count_kind(t, NicKind::kEthernet), 2);
  const Nic* m0 = nic(t, "mlx5_0");
  ASSERT_NE(m0, nullptr);
  EXPECT_EQ(m0->netdev, "ib0");
  EXPECT_EQ(m0->nearest_gpus, Gpus{0});
  EXPECT_EQ(m0->nearest_level, Affinity::kSameSwitch);
  EXPECT_EQ(m0->gpu_affinity[1], Affinity::kCrossSocket);  // other NUMA node (NPS4)
  EXPECT_EQ(nic(t, "mlx5_1")->nearest_gpus, Gpus{1});
  EXPECT_EQ(nic(t, "mlx5_2")->nearest_gpus, Gpus{2});
  EXPECT_EQ(nic(t, "mlx5_3")->nearest_gpus, Gpus{3});
  EXPECT_EQ(t.numa_nodes.size(), 8u);
  EXPECT_TRUE(has_text(t.notes, "no NVLinkBandwidth"));
}

TEST(HwlocFixture, JuwelsBoosterOneHdrNicPerGpu) {
  auto t = load(
      load_hwloc_xml(fixture("hwloc/juwels-booster_jwb0004_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml")));
  expect_juwels_booster_layout(t);
  EXPECT_EQ(t.pus, 96);
}

TEST(HwlocFixture, JurecaDcSameLayoutOtherCpu) {
  auto t = load(
      load_hwloc_xml(fixture("hwloc/jureca-dc-gpu_jrc0323_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml")));
  expect_juwels_booster_layout(t);
  EXPECT_EQ(t.pus, 256);
}

TEST(HwlocFixture, JuwelsClusterHwloc1FormatTwoGpusPerNic) {
  auto t = load(
      load_hwloc_xml(fixture("hwloc/juwels-cluster-gpu_jwc09n003_4xV100_2xCX5-EDR_hwloc1.11.xml")));
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(t.gpus[0].name, "V100-SXM2-16GB");
  EXPECT_EQ(count_kind(t, NicKind::kInfiniBand), 2);
  EXPECT_EQ(nic(t, "mlx5_0")->nearest_gpus, (Gpus{0, 1}));
  EXPECT_EQ(nic(t, "mlx5_0")->nearest_level, Affinity::kSameSwitch);
  EXPECT_EQ(nic(t, "mlx5_1")->nearest_gpus, (Gpus{2, 3}));
  EXPECT_EQ(t.gpus[2].numa_node, 1);
}

// --- NCCL topology XML ---------------------------------------------------------------------------

TEST(NcclFixture, HgxA100DumpNv12ThroughSixSwitches) {
  auto t = load(
      load_nccl_topo(fixture("nccl/hgx_8xA100-80GB_6xNVSwitch_4xCX6Dx-RoCE_ncclTopoDump.xml")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_EQ(t.gpus[0].name, "A100-SXM4-80GB");
  EXPECT_EQ(t.gpus[0].sm, 80);
  EXPECT_TRUE(t.nvlink.via_switch);
  EXPECT_EQ(t.nvlink.matrix[0][7], 12);
  EXPECT_EQ(t.nvlink.links_per_gpu[3], 12);
  EXPECT_DOUBLE_EQ(t.nvlink.gbps_per_gpu[3], 300);
  ASSERT_EQ(t.nics.size(), 5u);
  EXPECT_EQ(count_kind(t, NicKind::kRoce), 5);
  EXPECT_DOUBLE_EQ(nic(t, "mlx5_bond_1")->gbps, 200);
  EXPECT_EQ(nic(t, "mlx5_bond_1")->nearest_gpus, (Gpus{0, 1}));
  EXPECT_EQ(nic(t, "mlx5_bond_4")->nearest_gpus, (Gpus{6, 7}));
  EXPECT_EQ(nic(t, "mlx5_bond_0")->nearest_level, Affinity::kSameNuma);
  EXPECT_EQ(nic(t, "mlx5_bond_0")->gpu_affinity[4], Affinity::kCrossSocket);
}

TEST(NcclFixture, IbmCloudH100DumpEighteenLinksOneNicPerGpu) {
  auto t = load(
      load_nccl_topo(fixture("nccl/ibmcloud_gx3d_8xH100_4xNVSwitch_8xCX7-RoCE_ncclTopoDump.xml")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_EQ(t.gpus[0].name, "H100-SXM5-80GB");
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(t.nvlink.links_per_gpu[i], 18) << i;  // 5+5+4+4 over four NVSwitches
    EXPECT_DOUBLE_EQ(t.nvlink.gbps_per_gpu[i], 450) << i;
  }
  EXPECT_EQ(t.nvlink.matrix[1][6], 18);
  ASSERT_EQ(t.nics.size(), 8u);
  EXPECT_EQ(nic(t, "mlx5_7")->nearest_gpus, Gpus{0});
  EXPECT_EQ(nic(t, "mlx5_0")->nearest_gpus, Gpus{7});
  EXPECT_EQ(nic(t, "mlx5_0")->numa_node, 1);
  EXPECT_DOUBLE_EQ(nic(t, "mlx5_3")->gbps, 200);
}

TEST(NcclFixture, AzureNdv4HintTwoGpusTwoNicsPerSwitch) {
  auto t = load(load_nccl_topo(fixture("nccl/azure_ndv4_8xA100_8xHDR_topohint.xml")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_EQ(t.nvlink.matrix[0][1], -1);  // a hint: NCCL fills NVLink at run time
  EXPECT_EQ(t.nvlink.links_per_gpu[0], -1);
  ASSERT_EQ(t.nics.size(), 8u);
  EXPECT_EQ(count_kind(t, NicKind::kInfiniBand), 8);
  EXPECT_EQ(t.gpus[0].pci_bus_id, "0001:00:00.0");
  EXPECT_EQ(t.gpus[0].numa_node, 1);
  EXPECT_EQ(nic(t, "0101:00:00.0")->nearest_gpus, (Gpus{0, 1}));
  EXPECT_EQ(nic(t, "0107:00:00.0")->nearest_gpus, (Gpus{6, 7}));
  EXPECT_EQ(t.numa_nodes.size(), 4u);
  EXPECT_EQ(t.numa_nodes[1].cpus, "24-47");
}

TEST(NcclFixture, AzureNdv5HintOneNicPerGpuGen5) {
  auto t = load(load_nccl_topo(fixture("nccl/azure_ndv5_8xH100_8xNDR_topohint.xml")));
  ASSERT_EQ(t.gpus_per_node, 8);
  ASSERT_EQ(t.nics.size(), 8u);
  for (int k = 0; k < 8; ++k)
    EXPECT_EQ(t.nics[k].nearest_gpus, Gpus{k}) << k;
  EXPECT_NEAR(t.gpus[0].pcie_gbps, 63.0, 0.1);
}

TEST(NcclFixture, AwsP4dHintEfaPerPairOfGpus) {
  auto t = load(load_nccl_topo(fixture("nccl/aws_p4d.24xlarge_8xA100_4xEFA_topohint.xml")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_EQ(t.gpus[0].name, "A100-SXM4-40GB");
  ASSERT_EQ(t.nics.size(), 4u);
  EXPECT_EQ(count_kind(t, NicKind::kEfa), 4);
  EXPECT_EQ(nic(t, "0000:10:1b.0")->nearest_gpus, (Gpus{0, 1}));
  EXPECT_EQ(nic(t, "0000:a0:1b.0")->nearest_gpus, (Gpus{6, 7}));
  EXPECT_EQ(nic(t, "0000:10:1b.0")->gbps, 0);  // not in the file: unknown
}

TEST(NcclFixture, AwsP5HintWithoutClassesCountsNothingItCannotName) {
  auto t = load(load_nccl_topo(fixture("nccl/aws_p5.48xlarge_8xH100_32xEFA_topohint.xml")));
  EXPECT_EQ(t.gpus_per_node, 0);
  EXPECT_TRUE(t.nics.empty());
  EXPECT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_TRUE(has_text(t.warnings, "32 PCI devices have no class"));
}

// --- nvidia-smi topo -m --------------------------------------------------------------------------

TEST(NvidiaSmiFixture, HgxH100EightGpusTabSeparated) {
  auto t = load(load_nvidia_smi_topo(fixture("nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_TRUE(t.nvlink.via_switch);
  EXPECT_EQ(t.nvlink.matrix[0][7], 18);
  EXPECT_EQ(t.nvlink.links_per_gpu[5], 18);
  EXPECT_EQ(t.nvlink.gbps_per_gpu[5], 0);  // GPU model not in nvidia-smi topo output
  ASSERT_EQ(t.nics.size(), 10u);
  EXPECT_EQ(nic(t, "NIC5")->nearest_gpus, Gpus{3});
  EXPECT_EQ(nic(t, "NIC9")->nearest_gpus, Gpus{7});
  EXPECT_EQ(t.gpus[4].numa_node, 1);
  EXPECT_EQ(t.gpus[4].cpu_affinity, "56-111,168-223");
  EXPECT_TRUE(has_text(t.warnings, "no rows for NIC3"));
}

TEST(NvidiaSmiFixture, HgxH100FourGpusDirectNv6) {
  auto t =
      load(load_nvidia_smi_topo(fixture("nvidia-smi/hgx-h100-4gpu_NV6_4nic_TRUNCATED-legend.txt")));
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_FALSE(t.nvlink.via_switch);
  EXPECT_EQ(t.nvlink.matrix[0][3], 6);
  EXPECT_EQ(t.nvlink.links_per_gpu[0], 18);  // 3 peers x NV6
  ASSERT_EQ(t.nics.size(), 4u);
  EXPECT_EQ(nic(t, "NIC2")->nearest_gpus, Gpus{2});
  EXPECT_EQ(nic(t, "NIC2")->nearest_level, Affinity::kSameSwitch);
  EXPECT_EQ(t.gpus[2].numa_node, 7);
}

TEST(NvidiaSmiFixture, A100FourGpuBoardNicLegendCut) {
  auto t = load(
      load_nvidia_smi_topo(fixture("nvidia-smi/a100-sxm4-4gpu_NV4_4nic_TRUNCATED-niclegend.txt")));
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(t.nvlink.matrix[1][2], 4);
  EXPECT_EQ(t.nvlink.links_per_gpu[1], 12);
  ASSERT_EQ(t.nics.size(), 4u);
  EXPECT_EQ(t.nics[0].name, "mlx5_0");
  EXPECT_EQ(t.nics[1].name, "mlx5_1");
  EXPECT_EQ(t.nics[2].name, "NIC2");  // legend cut: the name stays unknown
  EXPECT_EQ(t.nics[3].nearest_gpus, Gpus{3});
  EXPECT_EQ(t.gpus[0].numa_node, -1);  // "0-1": not a single node
  EXPECT_EQ(t.gpus[0].numa_affinity, "0-1");
  EXPECT_TRUE(has_text(t.warnings, "NIC legend missing for NIC2, NIC3"));
}

TEST(NvidiaSmiFixture, DgxA100TruncatedRowsStayUnknown) {
  auto t =
      load(load_nvidia_smi_topo(fixture("nvidia-smi/dgx-a100-40gb_8gpu_NV12_12nic_TRUNCATED.txt")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_EQ(t.nvlink.matrix[0][4], 12);
  EXPECT_EQ(t.nvlink.matrix[4][0], 12);  // same link seen from GPU0's row
  EXPECT_EQ(t.nvlink.matrix[4][5], -1);  // no row for either: never invented
  EXPECT_EQ(t.nvlink.links_per_gpu[6], 12);
  EXPECT_EQ(t.gpus[6].numa_node, -1);
  EXPECT_EQ(t.gpus[2].numa_node, 1);
  ASSERT_EQ(t.nics.size(), 12u);
  EXPECT_EQ(nic(t, "NIC0")->nearest_gpus, (Gpus{0, 1}));
  EXPECT_EQ(nic(t, "NIC3")->nearest_gpus, (Gpus{2, 3}));
  EXPECT_TRUE(has_text(t.warnings, "no rows for GPU4, GPU5, GPU6, GPU7"));
}

TEST(NvidiaSmiFixture, Dgx2OldStyleMlxColumns) {
  auto t = load(load_nvidia_smi_topo(fixture("nvidia-smi/dgx2_16xV100_NV6_10nic_TRUNCATED.txt")));
  ASSERT_EQ(t.gpus_per_node, 16);
  EXPECT_EQ(t.nvlink.matrix[3][15], 6);
  EXPECT_EQ(t.nvlink.links_per_gpu[0], 6);
  ASSERT_EQ(t.nics.size(), 10u);
  EXPECT_EQ(nic(t, "mlx5_0")->gpu_affinity[0], Affinity::kSameSwitch);
  EXPECT_EQ(nic(t, "mlx5_2")->nearest_level, Affinity::kSameNuma);
  EXPECT_EQ(nic(t, "mlx5_9")->gpu_affinity[0], Affinity::kCrossSocket);
}

TEST(NvidiaSmiFixture, Dgx2PcieOnlySubsetKeepsNvlinkUnknown) {
  auto t =
      load(load_nvidia_smi_topo(fixture("nvidia-smi/dgx2_topo-mp_subset_nvidia-gds-guide.txt")));
  ASSERT_EQ(t.gpus_per_node, 16);
  EXPECT_EQ(t.nvlink.matrix[0][1], -1);  // -mp shows PCIe paths only
  EXPECT_EQ(t.nvlink.links_per_gpu[0], -1);
  ASSERT_EQ(t.nics.size(), 4u);
  // PIX and PXB both sit below one PCIe switch complex: same-switch.
  EXPECT_EQ(nic(t, "mlx5_0")->nearest_gpus, (Gpus{0, 1, 2, 3}));
  EXPECT_EQ(nic(t, "mlx5_3")->nearest_gpus, (Gpus{4, 5, 6, 7}));
  EXPECT_EQ(nic(t, "mlx5_3")->gpu_affinity[0], Affinity::kSameNuma);
  EXPECT_EQ(nic(t, "mlx5_3")->gpu_affinity[8], Affinity::kUnknown);
  EXPECT_TRUE(has_text(t.notes, "PCIe-only"));
  EXPECT_TRUE(has_text(t.warnings, "rows but not as columns"));
}

TEST(NvidiaSmiFixture, Gb200TrayNv18AndGraceNumaLists) {
  auto t =
      load(load_nvidia_smi_topo(fixture("nvidia-smi/gb200-nvl_tray_4gpu_NV18_6nic_TRUNCATED.txt")));
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_TRUE(t.nvlink.via_switch);
  EXPECT_EQ(t.nvlink.matrix[3][0], 18);
  EXPECT_EQ(t.nvlink.links_per_gpu[3], 18);
  EXPECT_EQ(t.gpus[0].numa_node, -1);
  EXPECT_EQ(t.gpus[0].numa_affinity, "0,3-9,11-17");
  ASSERT_EQ(t.nics.size(), 6u);
  EXPECT_EQ(t.nics[0].nearest_level, Affinity::kCrossSocket);
}

TEST(NvidiaSmiFixture, PcieA100NvlinkBridgePairs) {
  auto t = load(load_nvidia_smi_topo(
      fixture("nvidia-smi/pcie_8xA100-80GB_NVLink-bridge-pairs_TRUNCATED.txt")));
  ASSERT_EQ(t.gpus_per_node, 8);
  EXPECT_FALSE(t.nvlink.via_switch);
  EXPECT_EQ(t.nvlink.matrix[0][1], 12);
  EXPECT_EQ(t.nvlink.matrix[0][2], 0);
  EXPECT_EQ(t.nvlink.matrix[6][7], 12);
  EXPECT_EQ(t.nvlink.links_per_gpu[5], 12);
  EXPECT_EQ(t.gpus[4].cpu_affinity, "");  // empty column (Slurm cgroup) kept empty
  EXPECT_EQ(t.gpus[4].numa_node, 1);
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(t.nics[0].nearest_gpus, Gpus{6});
  EXPECT_EQ(t.nics[0].nearest_level, Affinity::kHostBridge);
}

// Captured on an H200 VM by scripts/gpu_check.py: driver 580 writes ESC[4m ... ESC[0m around the
// header even into a file. Before the escapes were skipped, this real capture was "binary data".
TEST(NvidiaSmiFixture, H200SingleGpuVmWithUnderlinedHeader) {
  auto t =
      load(load_nvidia_smi_topo(fixture("nvidia-smi/h200-1gpu-vm_driver580_ansi-underline.txt")));
  ASSERT_EQ(t.gpus_per_node, 1);
  EXPECT_EQ(t.gpus[0].cpu_affinity, "0-15");
  EXPECT_EQ(t.gpus[0].numa_node, 0);
  EXPECT_EQ(t.nvlink.links_per_gpu[0], 0);
  EXPECT_TRUE(t.nics.empty());
}

}  // namespace
}  // namespace hcp
