// Bad inputs, merging, findings, JSON, cluster summaries, NVML facts and the live probe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "hcp/cluster.h"
#include "hcp/topology.h"
#include "probes/nccl_dump.h"
#include "probes/topology_test_support.h"

namespace hcp {
namespace {

using testing::has;
using testing::smi4;
using testing::topology_fixture;

std::string temp_file(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / ("hcp_probe_test_" + name);
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

// --- nvidia-smi: bad input -----------------------------------------------------------------------

TEST(NvidiaSmiParse, BinaryJunkIsRejectedWithOffset) {
  std::string junk("GPU0\x00\x01\x02\xff", 8);
  auto r = parse_nvidia_smi_topo(junk, "junk.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("binary data at byte 4"), std::string::npos);
}

TEST(NvidiaSmiParse, TextWithoutHeaderIsRejected) {
  auto r = parse_nvidia_smi_topo("hello world\nno matrix here\n", "x.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no header line naming GPU0"), std::string::npos);
}

TEST(NvidiaSmiParse, ShortRowInTheMiddleIsAnError) {
  auto r = parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX 0 0", "GPU1 NV4 X NV4",
                                      "GPU2 NV4 NV4 X NV4 SYS 0 0", "GPU3 NV4 NV4 NV4 X SYS 0 0"),
                                 "short.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("short.txt:3: row GPU1 has 3 entries, the header names 5"),
            std::string::npos)
      << r.error().message;
}

TEST(NvidiaSmiParse, ShortLastRowIsATruncationWarning) {
  auto r = parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX 0 0", "GPU1 NV4 X NV4 NV4 SYS 0 0",
                                      "GPU2 NV4 NV4 X NV4 SYS 0 0", "GPU3 NV4 NV4"),
                                 "cut.txt");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->gpus_per_node, 4);
  EXPECT_EQ(r->nvlink.matrix[3][0], 4);  // from GPU0's row
  EXPECT_EQ(r->gpus[3].numa_node, -1);
  EXPECT_NE(r->warnings.front().find("row GPU3 is cut short"), std::string::npos);
}

TEST(NvidiaSmiParse, TooManyEntriesIsAnError) {
  auto r =
      parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX SYS 0 0", "GPU1 NV4 X NV4 NV4 SYS 0 0",
                                 "GPU2 NV4 NV4 X NV4 SYS 0 0", "GPU3 NV4 NV4 NV4 X SYS 0 0"),
                            "wide.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than the 5 entries"), std::string::npos);
}

TEST(NvidiaSmiParse, AbsurdNvlinkCountIsAnError) {
  auto r =
      parse_nvidia_smi_topo(smi4("GPU0 X NV999 NV4 NV4 PIX 0 0", "GPU1 NV999 X NV4 NV4 SYS 0 0",
                                 "GPU2 NV4 NV4 X NV4 SYS 0 0", "GPU3 NV4 NV4 NV4 X SYS 0 0"),
                            "absurd.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("NV999 out of range"), std::string::npos);
}

TEST(NvidiaSmiParse, SelfOffTheDiagonalIsAnError) {
  auto r = parse_nvidia_smi_topo(smi4("GPU0 NV4 X NV4 NV4 PIX 0 0", "GPU1 NV4 X NV4 NV4 SYS 0 0",
                                      "GPU2 NV4 NV4 X NV4 SYS 0 0", "GPU3 NV4 NV4 NV4 X SYS 0 0"),
                                 "shifted.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("lacks X"), std::string::npos);
}

TEST(NvidiaSmiParse, UnknownLinkTypeIsAnError) {
  auto r = parse_nvidia_smi_topo(smi4("GPU0 X NV4 FOO NV4 PIX 0 0", "GPU1 NV4 X NV4 NV4 SYS 0 0",
                                      "GPU2 NV4 NV4 X NV4 SYS 0 0", "GPU3 NV4 NV4 NV4 X SYS 0 0"),
                                 "foo.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown link type 'FOO'"), std::string::npos);
}

TEST(NvidiaSmiParse, MissingFileIsAnError) {
  auto r = load_nvidia_smi_topo("/nonexistent/topo.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().str().find("/nonexistent/topo.txt: no such file"), std::string::npos);
}

// --- NCCL XML: bad input -------------------------------------------------------------------------

TEST(NcclParse, SmallDumpGivesDirectLinksAndNicSpeeds) {
  auto r = parse_nccl_topo(nccl_dump("6", "400000"), "d.xml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->nvlink.matrix[0][1], 6);
  EXPECT_EQ(r->nvlink.links_per_gpu[0], 6);
  EXPECT_DOUBLE_EQ(r->nvlink.gbps_per_gpu[0], 150);
  EXPECT_DOUBLE_EQ(r->nics[0].gbps, 400);
  EXPECT_EQ(r->nics[0].kind, NicKind::kInfiniBand);
  EXPECT_EQ(r->nics[1].nearest_level, Affinity::kCrossSocket);
}

TEST(NcclParse, MalformedXmlGivesLineAndColumn) {
  auto r = parse_nccl_topo("<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n", "bad.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bad.xml:3:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("malformed XML"), std::string::npos);
}

TEST(NcclParse, WrongRootIsRejected) {
  auto r = parse_nccl_topo("<topology version=\"2.0\"/>", "hw.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("expected <system>"), std::string::npos);
}

TEST(NcclParse, AbsurdNvlinkCountIsRejected) {
  auto r = parse_nccl_topo(nccl_dump("1000", "400000"), "n.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("count=\"1000\" out of range 1..36"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("n.xml:5:"), std::string::npos) << r.error().message;
}

TEST(NcclParse, AbsurdOrJunkNicSpeedIsRejected) {
  EXPECT_FALSE(parse_nccl_topo(nccl_dump("6", "99999999999"), "s.xml").ok());
  EXPECT_FALSE(parse_nccl_topo(nccl_dump("6", "-5"), "s.xml").ok());
  auto r = parse_nccl_topo(nccl_dump("6", "fast"), "s.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("speed=\"fast\" is not a number"), std::string::npos);
}

struct PcieCase {
  const char* name;
  std::string speed;
  std::string width;
  double gbps;  ///< GPU 0's PCIe GB/s; 0 when unknown
  bool warns;   ///< a warning names the rate, taken as unknown
};

TEST(NcclParse, PcieRatesOutsidePciesRangeAreUnknownWithAWarning) {
  const std::vector<PcieCase> cases = {
      {"Gen5 x16", "32.0 GT/s PCIe", "16", 32 * 128.0 / 130.0 / 8.0 * 16, false},
      {"Gen1 x1 (8b/10b)", "2.5 GT/s PCIe", "1", 0.25, false},
      {"no speed", "", "16", 0, false},
      {"infinite speed", "inf GT/s PCIe", "16", 0, true},
      {"speed past double", "1e400 GT/s PCIe", "16", 0, true},
      {"1e308 GT/s", "1e308 GT/s PCIe", "16", 0, true},
      {"NaN speed", "nan GT/s PCIe", "16", 0, true},
      {"negative speed", "-32 GT/s PCIe", "16", 0, false},
      {"width past int", "32.0 GT/s PCIe", "99999999999999999999999", 0, true},
  };
  for (const PcieCase& c : cases) {
    std::string text = nccl_dump("6", "400000");
    const std::string speed = "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"";
    text.replace(text.find(speed), speed.size(),
                 "link_speed=\"" + c.speed + "\" link_width=\"" + c.width + "\"");
    auto r = parse_nccl_topo(text, "p.xml");
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.error().str();
    EXPECT_NEAR(r->gpus[0].pcie_gbps, c.gbps, 1e-9) << c.name;
    bool warned = false;
    for (const std::string& w : r->warnings)
      warned |= w.find("taken as unknown") != std::string::npos;
    EXPECT_EQ(warned, c.warns) << c.name;
  }
}

TEST(NcclParse, MoreGpusThanANodeHoldsIsAnError) {
  auto dump = [](int gpus) {
    std::string text = "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"0000ffff\">\n";
    for (int i = 0; i < gpus; ++i) {
      char bus[32];
      std::snprintf(bus, sizeof bus, "0000:%02x:%02x.0", i / 32, i % 32);
      text +=
          std::string("    <pci busid=\"") + bus + "\" class=\"0x030200\" vendor=\"0x10de\"/>\n";
    }
    return text + "  </cpu>\n</system>\n";
  };
  auto most = parse_nccl_topo(dump(1024), "many.xml");
  ASSERT_TRUE(most.ok()) << most.error().str();
  EXPECT_EQ(most->gpus.size(), 1024U);
  auto over = parse_nccl_topo(dump(1025), "many.xml");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().str(),
            "many.xml: more than 1024 GPUs in one node's topology (nvidia-smi numbers them "
            "GPU0..GPU1023)");
}

TEST(NcclParse, TwoGpusAtOneBusIdAreAnError) {
  std::string text = nccl_dump("6", "400000");
  const std::string second = "<pci busid=\"0000:0c:00.0\" class=\"0x030200\"";
  ASSERT_NE(text.find(second), std::string::npos);
  text.replace(text.find(second), second.size(), "<pci busid=\"0000:0b:00.0\" class=\"0x030200\"");
  auto r = parse_nccl_topo(text, "dup.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().str(), "dup.xml: two GPUs at PCI bus id 0000:0b:00.0");
  EXPECT_TRUE(parse_nccl_topo(nccl_dump("6", "400000"), "dup.xml").ok());
}

TEST(NcclParse, BinaryJunkIsRejected) {
  std::string junk(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  auto r = parse_nccl_topo(junk, "elf.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("binary data at byte 0"), std::string::npos);
}

// --- nvidia-smi topo -m: terminal escapes
// ----------------------------------------------------------

constexpr const char* kTwoGpuRows =
    "GPU0\t X \tNV18\t0-15\t0\t\tN/A\n"
    "GPU1\tNV18\t X \t0-15\t0\t\tN/A\n";

struct EscapedHeader {
  const char* name;
  std::string header;
  bool parses;
};

TEST(NvidiaSmiParse, TerminalEscapesAreSkippedAndBrokenOnesRejected) {
  const std::string plain = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  const EscapedHeader cases[] = {
      {"no escapes", plain, true},
      {"underline, as driver 580 writes it",
       "\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n", true},
      {"colour with parameters",
       "\x1b[1;32m\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[m\n", true},
      {"erase to end of line", "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[K\n",
       true},
      {"ESC without '['", "\t\x1bGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n", false},
      {"unfinished sequence at the end", plain + kTwoGpuRows + "\x1b[4", false},
      {"sequence broken by a control byte", "\t\x1b[4\x01mGPU0\tGPU1\tCPU Affinity\n", false},
  };
  for (const auto& c : cases) {
    const bool at_end = c.header.find(kTwoGpuRows) != std::string::npos;
    auto r = parse_nvidia_smi_topo(at_end ? c.header : c.header + kTwoGpuRows, "topo.txt");
    EXPECT_EQ(r.ok(), c.parses) << c.name << (r.ok() ? "" : ": " + r.error().message);
    if (r.ok()) {
      EXPECT_EQ(r->gpus_per_node, 2) << c.name;
      EXPECT_EQ(r->nvlink.matrix[0][1], 18) << c.name;
    } else {
      EXPECT_NE(r.error().message.find("binary data"), std::string::npos) << c.name;
    }
  }
}

// --- hwloc XML: bad input ------------------------------------------------------------------------

TEST(HwlocParse, JunkAndWrongRootAndNewerVersionAreRejected) {
  auto junk = load_hwloc_xml(temp_file("junk.xml", std::string("\x01\x02garbage", 9)));
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().message.find("binary data"), std::string::npos);
  auto root = load_hwloc_xml(temp_file("root.xml", "<system version=\"1\"/>"));
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.error().message.find("expected <topology>"), std::string::npos);
  auto v3 = load_hwloc_xml(temp_file("v3.xml", "<topology version=\"3.0\"></topology>"));
  ASSERT_FALSE(v3.ok());
  EXPECT_NE(v3.error().message.find("version 3.0"), std::string::npos);
  auto cut = load_hwloc_xml(temp_file("cut.xml", "<topology version=\"2.0\"><object type="));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("malformed XML"), std::string::npos);
}

TEST(HwlocParse, AbsurdNvlinkBandwidthIsRejected) {
  std::string text;
  {
    std::ifstream in(
        topology_fixture("hwloc/nvidia-dgx2_16xV100_12xNVSwitch_nvml_NVLinkBandwidth.xml"));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string row =
      "<u64values length=\"36\">0 0 0 0 0 0 25000 25000 25000 25000 </u64values>";
  auto at = text.find(row);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, row.size(),
               "<u64values length=\"39\">0 0 0 0 0 0 25000000 25000 25000 25000 </u64values>");
  auto r = load_hwloc_xml(temp_file("dgx2-absurd.xml", text));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("NVLinkBandwidth value 25000000 MB/s"), std::string::npos)
      << r.error().message;
}

TEST(HwlocParse, PcieRatesOutsidePciesRangeAreUnknownWithAWarning) {
  std::string text;
  {
    std::ifstream in(
        topology_fixture("hwloc/jureca-dc-gpu_jrc0323_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml"));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto good = load_hwloc_xml(temp_file("jureca.xml", text));
  ASSERT_TRUE(good.ok()) << good.error().str();
  ASSERT_FALSE(good->gpus.empty());
  EXPECT_NEAR(good->gpus[0].pcie_gbps, 31.507692, 1e-5);
  for (const char* bad : {"nan", "inf", "-5", "100000"}) {
    std::string edited = text;
    const std::string rate = "pci_link_speed=\"31.507692\"";
    for (size_t at = edited.find(rate); at != std::string::npos; at = edited.find(rate, at))
      edited.replace(at, rate.size(), std::string("pci_link_speed=\"") + bad + "\"");
    auto r = load_hwloc_xml(temp_file("jureca-bad-rate.xml", edited));
    ASSERT_TRUE(r.ok()) << bad << ": " << r.error().str();
    ASSERT_FALSE(r->gpus.empty());
    bool warned = false;
    for (const std::string& w : r->warnings)
      warned |= w.find("taken as unknown") != std::string::npos;
    for (const Gpu& g : r->gpus)
      EXPECT_EQ(g.pcie_gbps, 0) << bad;
    EXPECT_TRUE(warned) << bad;
  }
}

/// The cpusets and nodesets of an object spanning both PUs of the small exports below.
const std::string kBothPus =
    R"( cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001")";

/// A 1.x export of a one-core node whose NUMA node carries `numa_sets` and is named `numa_type`.
std::string v1_export(const std::string& numa_type, const std::string& numa_sets) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc.dtd">
<topology version="1.0">
  <object type="Machine" os_index="0")" +
         kBothPus + R"(>
    <object type=")" +
         numa_type + R"(" os_index="0")" + numa_sets + R"( local_memory="1073741824">
      <object type="Core" os_index="0")" +
         kBothPus + R"(>
        <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001"/>
      </object>
    </object>
  </object>
</topology>
)";
}

TEST(HwlocParse, V1NumaNodeWithoutCompleteCpusetIsRejectedBeforeHwlocSeesIt) {
  // hwloc 2.9 dereferences a 1.x NUMA node's missing complete_cpuset (SIGSEGV, fuzz finding);
  // hwloc reads "NUMA1" as NUMANode, so the check must too.
  const std::string nodesets = R"( nodeset="0x00000001" complete_nodeset="0x00000001")";
  for (const std::string type : {"NUMANode", "NUMA1"}) {
    auto r = load_hwloc_xml(temp_file("v1-numa-" + type + ".xml", v1_export(type, nodesets)));
    ASSERT_FALSE(r.ok()) << type;
    EXPECT_NE(r.error().message.find(":5: <object> is a NUMA node without a complete_cpuset"),
              std::string::npos)
        << r.error().message;
  }
  auto ok = load_hwloc_xml(temp_file(
      "v1-numa-ok.xml",
      v1_export("NUMANode", R"( cpuset="0x00000003" complete_cpuset="0x00000003")" + nodesets)));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->numa_nodes.size(), 1u);
}

/// A one-socket node with a GPU and an InfiniBand HCA behind one PCIe switch, whose HCA has an
/// OS device of each osdev_type given and whose switch has the bridge_type given.
std::string gpu_and_hca_behind_switch(const std::string& netdev_type,
                                      const std::string& fabric_type,
                                      const std::string& switch_type) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0")" +
         kBothPus + R"( gp_index="1">
    <object type="Package" os_index="0")" +
         kBothPus + R"( gp_index="2">
      <object type="NUMANode" os_index="0")" +
         kBothPus + R"( gp_index="3" local_memory="1073741824"/>
      <object type="Core" os_index="0")" +
         kBothPus + R"( gp_index="4">
        <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5"/>
        <object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="6"/>
      </object>
    </object>
    <object type="Bridge" gp_index="20" bridge_type="0-1" depth="0" bridge_pci="0000:[40-45]">
      <object type="Bridge" gp_index="23" bridge_type=")" +
         switch_type +
         R"(" depth="1" bridge_pci="0000:[41-45]" pci_busid="0000:40:01.1" pci_type="0604 [1000:c010] [1000:100b] b0" pci_link_speed="31.5">
        <object type="PCIDev" gp_index="21" pci_busid="0000:43:00.0" pci_type="0207 [15b3:101b] [119f:1bc7] 00" pci_link_speed="31.5">
          <object type="OSDev" gp_index="22" name="ib0" osdev_type=")" +
         netdev_type + R"("/>
          <object type="OSDev" gp_index="24" name="mlx5_0" osdev_type=")" +
         fabric_type + R"("/>
        </object>
        <object type="PCIDev" gp_index="25" pci_busid="0000:44:00.0" pci_type="0302 [10de:20b0] [10de:134f] a1" pci_link_speed="31.5"/>
      </object>
    </object>
  </object>
</topology>
)";
}

TEST(HwlocParse, OsdevAndBridgeTypesAreReadAsHwlocDefinesThem) {
  // hwloc 2: osdev_type 2 = network, 3 = OpenFabrics; bridge_type "1-1" = PCI-to-PCI.
  auto t = load_hwloc_xml(temp_file("types-known.xml", gpu_and_hca_behind_switch("2", "3", "1-1")));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->gpus.size(), 1u);
  ASSERT_EQ(t->nics.size(), 1u);
  EXPECT_EQ(t->nics[0].name, "mlx5_0");
  EXPECT_EQ(t->nics[0].netdev, "ib0");
  ASSERT_EQ(t->nics[0].gpu_affinity.size(), 1u);
  EXPECT_EQ(t->nics[0].gpu_affinity[0], Affinity::kSameSwitch);
}

TEST(HwlocParse, OsdevAndBridgeTypesOutsideTheEnumerationMatchNoKind) {
  // hwloc's importer stores these numbers unchecked: values no hwloc defines must load (no
  // undefined behaviour under UBSan, fuzz finding) and name no network device and no PCI switch.
  auto t =
      load_hwloc_xml(temp_file("types-unknown.xml", gpu_and_hca_behind_switch("10", "11", "9-9")));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->nics.size(), 1u);  // still an HCA by its PCI class
  EXPECT_EQ(t->nics[0].name, "0000:43:00.0");
  EXPECT_EQ(t->nics[0].netdev, "");
  ASSERT_EQ(t->nics[0].gpu_affinity.size(), 1u);
  EXPECT_EQ(t->nics[0].gpu_affinity[0], Affinity::kHostBridge);
}

// --- merging -------------------------------------------------------------------------------------

std::vector<std::string> conflicts(const Topology& t) {
  std::vector<std::string> out;
  for (const auto& w : t.warnings)
    if (w.find("earlier source") != std::string::npos) out.push_back(w);
  return out;
}

TEST(Merge, NvidiaSmiFillsNvlinkOfAnHwlocExportAndGetsBandwidthFromIt) {
  auto hw = load_hwloc_xml(
      topology_fixture("hwloc/juwels-booster_jwb0004_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml"));
  ASSERT_TRUE(hw.ok());
  auto smi = parse_nvidia_smi_topo(
      smi4("GPU0 X NV4 NV4 NV4 PIX 18-23 3", "GPU1 NV4 X NV4 NV4 SYS 6-11 1",
           "GPU2 NV4 NV4 X NV4 SYS 42-47 7", "GPU3 NV4 NV4 NV4 X SYS 30-35 5"),
      "booster-smi.txt");
  ASSERT_TRUE(smi.ok());
  Topology t = *hw;
  merge_topology(t, *smi);
  ASSERT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(t.gpus[0].pci_bus_id, "0000:03:00.0");  // hwloc's
  EXPECT_EQ(t.nvlink.matrix[0][1], 4);              // nvidia-smi's
  EXPECT_EQ(t.nvlink.links_per_gpu[0], 12);
  EXPECT_DOUBLE_EQ(t.nvlink.gbps_per_gpu[0], 300);  // A100 rate from hwloc's PCI id
  EXPECT_EQ(t.sources.size(), 2u);
  EXPECT_TRUE(conflicts(t).empty()) << conflicts(t).front();
}

TEST(Merge, ConflictingSourcesKeepTheFirstAndWarn) {
  auto a = parse_nvidia_smi_topo(smi4("GPU0 X NV4 NV4 NV4 PIX 0 0", "GPU1 NV4 X NV4 NV4 SYS 0 0",
                                      "GPU2 NV4 NV4 X NV4 SYS 0 1", "GPU3 NV4 NV4 NV4 X SYS 0 1"),
                                 "a.txt");
  auto b = parse_nvidia_smi_topo(smi4("GPU0 X NV2 NV4 NV4 PIX 0 0", "GPU1 NV2 X NV4 NV4 SYS 0 0",
                                      "GPU2 NV4 NV4 X NV4 SYS 0 1", "GPU3 NV4 NV4 NV4 X SYS 0 0"),
                                 "b.txt");
  ASSERT_TRUE(a.ok() && b.ok());
  Topology t = *a;
  merge_topology(t, *b);
  EXPECT_EQ(t.nvlink.matrix[0][1], 4);
  EXPECT_EQ(t.gpus[3].numa_node, 1);
  auto c = conflicts(t);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NE(c[0].find("NUMA node 0"), std::string::npos);
  EXPECT_NE(c[1].find("2 matrix cells"), std::string::npos);
}

// --- JSON, profile, cluster ----------------------------------------------------------------------

TEST(TopologyJson, ContractKeysAndRoundTrip) {
  auto t = load_nccl_topo(
      topology_fixture("nccl/ibmcloud_gx3d_8xH100_4xNVSwitch_8xCX7-RoCE_ncclTopoDump.xml"));
  ASSERT_TRUE(t.ok());
  auto j = topology_to_json(*t);
  EXPECT_EQ(j["gpus_per_node"], 8);
  EXPECT_EQ(j["gpus"][0]["pci_bus_id"], "0000:a4:00.0");
  EXPECT_EQ(j["gpus"][0]["numa_node"], 0);
  EXPECT_EQ(j["gpus"][0]["name"], "H100-SXM5-80GB");
  EXPECT_EQ(j["nvlink"]["links_per_gpu"], 18);
  EXPECT_EQ(j["nvlink"]["gbps_per_gpu"], 450.0);
  EXPECT_EQ(j["nvlink"]["matrix"][0][1], 18);
  EXPECT_EQ(j["nics"][0]["kind"], "roce");
  EXPECT_EQ(j["nics"][0]["gbps"], 200.0);
  EXPECT_EQ(j["nics"][0]["nearest_gpus"], nlohmann::json::array({0}));
  EXPECT_TRUE(j["sources"].is_array());
  auto back = topology_from_json(j, "rt");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->nvlink.matrix, t->nvlink.matrix);
  EXPECT_EQ(back->nics[7].nearest_gpus, t->nics[7].nearest_gpus);
  EXPECT_EQ(topology_to_json(*back), j);
}

TEST(TopologyJson, UnknownsAreNullAndBadJsonIsRejected) {
  auto t = load_nvidia_smi_topo(
      topology_fixture("nvidia-smi/dgx-a100-40gb_8gpu_NV12_12nic_TRUNCATED.txt"));
  ASSERT_TRUE(t.ok());
  auto j = topology_to_json(*t);
  EXPECT_TRUE(j["nvlink"]["matrix"][4][5].is_null());
  EXPECT_TRUE(j["gpus"][0]["pci_bus_id"].is_null());
  EXPECT_TRUE(j["nvlink"]["gbps_per_gpu"].is_null());
  EXPECT_FALSE(topology_from_json(nlohmann::json{{"x", 1}}, "x").ok());
  j["nvlink"]["matrix"].erase(0);
  EXPECT_FALSE(topology_from_json(j, "x").ok());
}

TEST(ClusterProfileFromTopology, DescribesTheNodeAndReloads) {
  auto t = load_nccl_topo(
      topology_fixture("nccl/ibmcloud_gx3d_8xH100_4xNVSwitch_8xCX7-RoCE_ncclTopoDump.xml"));
  ASSERT_TRUE(t.ok());
  ClusterProfile p = cluster_profile_from_topology(*t, "gx3d-h100");
  EXPECT_EQ(p.name, "gx3d-h100");
  EXPECT_EQ(p.gpus_per_node, 8);
  EXPECT_EQ(p.gpu_name, "H100-SXM5-80GB");
  EXPECT_EQ(p.gpu_sm, 90);
  EXPECT_DOUBLE_EQ(p.nvlink_gbps_per_gpu, 450);
  EXPECT_EQ(p.nvlink_domain, 8);
  EXPECT_EQ(p.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(p.nic_gbits, 200);
  auto path = temp_file("profile.yaml", cluster_profile_yaml(p));
  auto back = load_cluster_profile(path);
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(back->nvlink_gbps_per_gpu, 450);
}

TEST(ClusterProfileFromTopology, DirectNvlinkDomainIsTheLinkedGroup) {
  auto t = load_hwloc_xml(
      topology_fixture("hwloc/ibm-power8-minsky_4xP100_cuda-opencl-nvml_NVLinkBandwidth.xml"));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(cluster_profile_from_topology(*t, "minsky").nvlink_domain, 2);
}

struct NvlinkKnowledgeCase {
  const char* name;
  const char* fixture;
  bool unknown;  ///< nvlink_unknown()
};

class NvlinkKnowledge : public ::testing::TestWithParam<NvlinkKnowledgeCase> {};

/// Whether a capture shows NVLink, shows none, or cannot tell; a saved profile marks the third
/// case's PCIe-only values as an assumption, not as what the capture showed.
TEST_P(NvlinkKnowledge, ASavedProfileSaysWhenNvlinkIsAnAssumption) {
  const NvlinkKnowledgeCase& c = GetParam();
  std::string path = topology_fixture(c.fixture);
  auto t = std::string(c.fixture).rfind("nccl/", 0) == 0         ? load_nccl_topo(path)
           : std::string(c.fixture).rfind("nvidia-smi/", 0) == 0 ? load_nvidia_smi_topo(path)
                                                                 : load_hwloc_xml(path);
  ASSERT_TRUE(t.ok()) << t.error().str();
  EXPECT_EQ(nvlink_unknown(*t), c.unknown);
  ClusterProfile p = cluster_profile_from_topology(*t, "node");
  for (const char* key : {"nvlink_domain", "nvlink_gbps_per_gpu"}) {
    EXPECT_EQ(p.sources[key].rfind("assumed: no NVLink, since ", 0) == 0, c.unknown)
        << key << ": " << p.sources[key];
  }
  if (c.unknown) {
    EXPECT_EQ(p.nvlink_domain, 1);
    EXPECT_EQ(p.nvlink_gbps_per_gpu, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Captures, NvlinkKnowledge,
    ::testing::Values(
        NvlinkKnowledgeCase{"nccl_hint_without_gpus",
                            "nccl/aws_p4d.24xlarge_8xA100_4xEFA_topohint.xml", true},
        NvlinkKnowledgeCase{"nccl_dump_with_nvswitch",
                            "nccl/ibmcloud_gx3d_8xH100_4xNVSwitch_8xCX7-RoCE_ncclTopoDump.xml",
                            false},
        NvlinkKnowledgeCase{"nvidia_smi_nv18", "nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt",
                            false},
        NvlinkKnowledgeCase{"nvidia_smi_topo_mp_pcie_paths_only",
                            "nvidia-smi/dgx2_topo-mp_subset_nvidia-gds-guide.txt", true},
        NvlinkKnowledgeCase{"hwloc_nvlink_pairs",
                            "hwloc/ibm-power8-minsky_4xP100_cuda-opencl-nvml_NVLinkBandwidth.xml",
                            false}),
    [](const ::testing::TestParamInfo<NvlinkKnowledgeCase>& info) { return info.param.name; });

TEST(ClusterSummary, NamesTheNodeThatDiffersFromTheMajority) {
  auto h100 =
      load_nvidia_smi_topo(topology_fixture("nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt"));
  auto small = load_nvidia_smi_topo(
      topology_fixture("nvidia-smi/hgx-h100-4gpu_NV6_4nic_TRUNCATED-legend.txt"));
  ASSERT_TRUE(h100.ok() && small.ok());
  std::vector<Topology> nodes = {*h100, *h100, *small, *h100};
  nodes[0].host = "node-a";
  nodes[1].host = "node-b";
  nodes[2].host = "node-c";
  nodes[3].host = "node-b";  // a second rank on node-b: counted once
  ClusterSummary s = summarize_cluster(nodes);
  EXPECT_EQ(s.node_count, 3);
  ASSERT_EQ(s.odd_nodes.size(), 1u);
  EXPECT_EQ(s.odd_nodes[0].host, "node-c");
  EXPECT_TRUE(has(s.odd_nodes[0].differences, "4 GPUs (majority: 8)"));
  EXPECT_TRUE(has(s.odd_nodes[0].differences, "NVLink matrix differs from the majority"));
  EXPECT_TRUE(has(s.odd_nodes[0].differences, "4 NICs (majority: 10)"));
  EXPECT_NE(cluster_summary_text(s).find("node-c: 4 GPUs"), std::string::npos);
  EXPECT_EQ(cluster_summary_to_json(s)["differing_nodes"][0]["host"], "node-c");

  std::vector<Topology> same = {*h100, *h100};
  same[1].host = "other";
  EXPECT_TRUE(summarize_cluster(same).odd_nodes.empty());
}

// --- helpers, NVML, live probe -------------------------------------------------------------------

TEST(Helpers, BusIdsAndNvlinkRates) {
  EXPECT_EQ(normalize_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_bus_id("3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(gpu_name_from_device_id(0x2335), "H200-SXM-141GB");
  EXPECT_EQ(gpu_sm_from_device_id(0x20b2), 80);
  EXPECT_EQ(gpu_name_from_device_id(0x1234), "");
  EXPECT_DOUBLE_EQ(nvlink_gbps_per_link(60), 20);
  EXPECT_DOUBLE_EQ(nvlink_gbps_per_link(90), 25);
  EXPECT_DOUBLE_EQ(nvlink_gbps_per_link(100), 50);
  EXPECT_DOUBLE_EQ(nvlink_gbps_per_link(0), 0);
}

TEST(Nvml, DirectLinksAndCpuLinksFromRemoteEnds) {
  NvmlGpuInfo a, b;
  a.index = 0;
  a.pci_bus_id = "0000:04:00.0";
  a.sm = 60;
  a.active_link_targets = {"0000:05:00.0", "0000:05:00.0", "cpu", "cpu"};
  b.index = 1;
  b.pci_bus_id = "0000:05:00.0";
  b.sm = 60;
  b.active_link_targets = {"0000:04:00.0", "0000:04:00.0", "cpu", "cpu"};
  auto t = topology_from_nvml({a, b});
  EXPECT_FALSE(t.nvlink.via_switch);
  EXPECT_EQ(t.nvlink.matrix[0][1], 2);
  EXPECT_EQ(t.nvlink.cpu_links[1], 2);
  EXPECT_EQ(t.nvlink.links_per_gpu[0], 4);
  EXPECT_DOUBLE_EQ(t.nvlink.gbps_per_gpu[0], 80);
}

TEST(LiveProbe, SucceedsAndSaysWhatItFound) {
  auto t = probe_live(LiveProbeOptions{});
  ASSERT_TRUE(t.ok()) << t.error().str();
  EXPECT_GT(t->pus, 0);
  EXPECT_FALSE(t->numa_nodes.empty());
  EXPECT_TRUE(has(t->sources, "hwloc"));
  EXPECT_FALSE(t->host.empty());
  if (t->gpus.empty()) {
    bool said = std::any_of(t->notes.begin(), t->notes.end(), [](const std::string& n) {
      return n.find("no NVIDIA GPU found") != std::string::npos;
    });
    EXPECT_TRUE(said);
  }
  EXPECT_NE(topology_text(*t, {}).find("NUMA nodes"), std::string::npos);
}

TEST(LiveProbe, NcclWithoutGpusSaysWhy) {
  NcclProbe p = probe_nccl(0);
  EXPECT_FALSE(p.ran);
  EXPECT_NE(p.problem.find("no NVIDIA GPU"), std::string::npos);
}

}  // namespace
}  // namespace hcp
