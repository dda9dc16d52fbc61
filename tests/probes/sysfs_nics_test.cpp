// RDMA port state from sysfs trees: the fixture nodes, missing and garbled files, merging into a
// capture, JSON round trip and the text NIC table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "hcp/topology.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

const std::string kDir = HCP_FIXTURES_DIR "/preflight/";

Topology read_tree(const std::string& name) {
  auto topo = read_sysfs_nics(kDir + name);
  EXPECT_TRUE(topo.ok()) << topo.error().str();
  return topo.ok() ? *topo : Topology{};
}

const Nic* nic_named(const Topology& t, const std::string& name, int port = 1) {
  for (const Nic& n : t.nics)
    if (n.name == name && n.port == port) return &n;
  return nullptr;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

/// A scratch sysfs tree, removed at the end of the test.
class ScratchTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("hcp_sysfs_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Write `text` to root/sys/class/infiniband/REL, creating directories.
  void write(const std::string& rel, const std::string& text) {
    fs::path p = root_ / "sys/class/infiniband" / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST(PortState, ParsesKernelLinesAndNames) {
  EXPECT_EQ(port_state_from("4: ACTIVE"), PortState::kActive);
  EXPECT_EQ(port_state_from("1: DOWN\n"), PortState::kDown);
  EXPECT_EQ(port_state_from("2: INIT"), PortState::kInit);
  EXPECT_EQ(port_state_from("ARMED"), PortState::kArmed);
  EXPECT_EQ(port_state_from("5: ACTIVE_DEFER"), PortState::kActiveDefer);
  EXPECT_EQ(port_state_from(""), PortState::kUnknown);
  EXPECT_EQ(port_state_from("4:"), PortState::kUnknown);
  EXPECT_EQ(port_state_from("active"), PortState::kUnknown);  // The kernel writes upper case.
  EXPECT_EQ(port_state_from("x4: ACTIVE"), PortState::kUnknown);
  EXPECT_STREQ(port_state_name(PortState::kActive), "ACTIVE");
  EXPECT_STREQ(port_state_name(PortState::kUnknown), "unknown");
  EXPECT_TRUE(port_active(PortState::kActive));
  EXPECT_TRUE(port_active(PortState::kActiveDefer));
  EXPECT_FALSE(port_active(PortState::kInit));
  EXPECT_FALSE(port_active(PortState::kUnknown));
}

TEST(SysfsNics, HealthyNdrNodeHasEightActivePorts) {
  Topology t = read_tree("sysfs_ndr_healthy");
  ASSERT_EQ(t.nics.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const Nic* n = nic_named(t, "mlx5_" + std::to_string(i));
    ASSERT_NE(n, nullptr) << i;
    EXPECT_EQ(n->kind, NicKind::kInfiniBand);
    EXPECT_EQ(n->state, PortState::kActive);
    EXPECT_EQ(n->phys_state, "LinkUp");
    EXPECT_DOUBLE_EQ(n->gbps, 400);
    EXPECT_EQ(n->netdev, "ib" + std::to_string(i));
    EXPECT_EQ(n->numa_node, i / 4);
  }
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].rfind("sysfs:", 0), 0u);
}

TEST(SysfsNics, TwoPortsDownAreNamed) {
  Topology t = read_tree("sysfs_ndr_2down");
  ASSERT_EQ(t.nics.size(), 8u);
  std::vector<std::string> down;
  for (const Nic& n : t.nics)
    if (!port_active(n.state)) down.push_back(n.name + "/" + n.phys_state);
  EXPECT_EQ(down, (std::vector<std::string>{"mlx5_2/Disabled", "mlx5_5/Disabled"}));
}

TEST(SysfsNics, AllDownNodeHasNoActivePortAndOneInInit) {
  Topology t = read_tree("sysfs_ndr_all_down");
  ASSERT_EQ(t.nics.size(), 8u);
  for (const Nic& n : t.nics)
    EXPECT_FALSE(port_active(n.state)) << n.name;
  EXPECT_EQ(nic_named(t, "mlx5_0")->phys_state, "Polling");
  EXPECT_EQ(nic_named(t, "mlx5_7")->state, PortState::kInit);
}

TEST(SysfsNics, EthernetLinkLayerIsRoce) {
  Topology t = read_tree("sysfs_roce");
  ASSERT_EQ(t.nics.size(), 8u);
  const Nic* n = nic_named(t, "mlx5_3");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->kind, NicKind::kRoce);
  EXPECT_DOUBLE_EQ(n->gbps, 200);
  EXPECT_EQ(n->netdev, "ens3f0np0");
  EXPECT_EQ(n->state, PortState::kActive);
}

TEST_F(ScratchTree, EmptyRootHasNoNicsAndSaysSo) {
  auto t = read_sysfs_nics(root());
  ASSERT_TRUE(t.ok()) << t.error().str();
  EXPECT_TRUE(t->nics.empty());
  EXPECT_TRUE(mentions(t->notes, "no RDMA port under")) << testing::PrintToString(t->notes);
}

TEST_F(ScratchTree, MissingFilesLeaveFieldsUnknownWithoutWarnings) {
  write("mlx5_0/ports/1/link_layer", "InfiniBand\n");
  auto t = read_sysfs_nics(root());
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->nics.size(), 1u);
  const Nic& n = t->nics[0];
  EXPECT_EQ(n.state, PortState::kUnknown);
  EXPECT_EQ(n.phys_state, "");
  EXPECT_EQ(n.gbps, 0);
  EXPECT_EQ(n.netdev, "");
  EXPECT_EQ(n.numa_node, -1);
  EXPECT_EQ(n.kind, NicKind::kInfiniBand);
  EXPECT_TRUE(t->warnings.empty()) << testing::PrintToString(t->warnings);
}

TEST_F(ScratchTree, DeviceWithoutPortsIsWarned) {
  write("mlx5_9/node_type", "1: CA\n");
  auto t = read_sysfs_nics(root());
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->nics.empty());
  EXPECT_TRUE(mentions(t->warnings, "mlx5_9 has no ports/")) << testing::PrintToString(t->warnings);
}

TEST_F(ScratchTree, GarbageInStateFilesIsUnknownAndWarned) {
  write("mlx5_0/ports/1/state", "7: BANANA\n");
  write("mlx5_0/ports/1/phys_state", std::string("\x01\x02\xff", 3));
  write("mlx5_0/ports/1/rate", "fast\n");
  write("mlx5_0/ports/1/link_layer", "Carrier pigeon\n");
  write("mlx5_0/device/numa_node", "zero\n");
  auto t = read_sysfs_nics(root());
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->nics.size(), 1u);
  const Nic& n = t->nics[0];
  EXPECT_EQ(n.state, PortState::kUnknown);
  EXPECT_EQ(n.phys_state, "");
  EXPECT_EQ(n.gbps, 0);
  EXPECT_EQ(n.kind, NicKind::kUnknown);
  EXPECT_EQ(n.numa_node, -1);
  EXPECT_TRUE(mentions(t->warnings, "mlx5_0 port 1: state '7: BANANA' not understood"))
      << testing::PrintToString(t->warnings);
  EXPECT_TRUE(mentions(t->warnings, "phys_state"));
  EXPECT_TRUE(mentions(t->warnings, "rate 'fast'"));
}

TEST_F(ScratchTree, AbsurdRateIsRejected) {
  write("mlx5_0/ports/1/rate", "99999 Gb/sec (4X XDR)\n");
  auto t = read_sysfs_nics(root());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->nics.at(0).gbps, 0);
}

TEST_F(ScratchTree, TwoPortHcaGivesTwoNicsWithTheirNetdevs) {
  for (int p : {1, 2}) {
    std::string port = "mlx5_0/ports/" + std::to_string(p) + "/";
    write(port + "state", p == 1 ? "4: ACTIVE\n" : "1: DOWN\n");
    write(port + "link_layer", "Ethernet\n");
    write("mlx5_0/device/net/eth" + std::to_string(p) + "/dev_port", std::to_string(p - 1));
  }
  write("mlx5_0/ports/notaport/state", "4: ACTIVE\n");
  auto t = read_sysfs_nics(root());
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->nics.size(), 2u);
  EXPECT_EQ(nic_named(*t, "mlx5_0", 1)->netdev, "eth1");
  EXPECT_EQ(nic_named(*t, "mlx5_0", 2)->netdev, "eth2");
  EXPECT_EQ(nic_named(*t, "mlx5_0", 2)->state, PortState::kDown);

  // Merged into a node that knows the HCA by name only, both ports stay separate.
  Topology node;
  Nic hca;
  hca.name = "mlx5_0";
  hca.kind = NicKind::kRoce;
  node.nics.push_back(hca);
  ASSERT_TRUE(merge_sysfs_nics(node, root()).ok());
  ASSERT_EQ(node.nics.size(), 2u);
  EXPECT_EQ(nic_named(node, "mlx5_0", 1)->state, PortState::kActive);
  EXPECT_EQ(nic_named(node, "mlx5_0", 2)->state, PortState::kDown);
}

TEST(SysfsNics, RootThatIsNotADirectoryIsAnError) {
  EXPECT_FALSE(read_sysfs_nics("/nonexistent/hcp-sysfs").ok());
  EXPECT_FALSE(read_sysfs_nics(kDir + "dgx_h100_healthy.txt").ok());
  EXPECT_FALSE(read_sysfs_nics("").ok());
  Topology t;
  EXPECT_FALSE(merge_sysfs_nics(t, "/nonexistent/hcp-sysfs").ok());
}

Topology dgx_capture() {
  auto t = load_nvidia_smi_topo(kDir + "dgx_h100_healthy.txt");
  EXPECT_TRUE(t.ok()) << t.error().str();
  return t.ok() ? *t : Topology{};
}

TEST(MergeSysfsNics, StateJoinsTheCapturedNicsByName) {
  Topology node = dgx_capture();
  ASSERT_EQ(node.nics.size(), 8u);
  ASSERT_EQ(nic_named(node, "mlx5_2", 0)->state, PortState::kUnknown);
  ASSERT_TRUE(merge_sysfs_nics(node, kDir + "sysfs_ndr_2down").ok());
  ASSERT_EQ(node.nics.size(), 8u);  // Matched, not added.
  const Nic* down = nic_named(node, "mlx5_2");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->state, PortState::kDown);
  EXPECT_EQ(down->netdev, "ib2");
  EXPECT_EQ(down->nearest_gpus, std::vector<int>{2});  // The capture's affinity is kept.
  EXPECT_EQ(nic_named(node, "mlx5_0")->state, PortState::kActive);
  EXPECT_TRUE(mentions(node.sources, "sysfs:"));
}

TEST(MergeSysfsNics, NicsOnlySysfsKnowsAreAdded) {
  Topology node;
  ASSERT_TRUE(merge_sysfs_nics(node, kDir + "sysfs_roce").ok());
  EXPECT_EQ(node.nics.size(), 8u);
}

TEST(MergeSysfsNics, NoRootNotesUnknownStateOnlyWhenThereAreRdmaNics) {
  Topology node = dgx_capture();
  ASSERT_TRUE(merge_sysfs_nics(node, "").ok());
  EXPECT_TRUE(mentions(node.notes, "NIC port state unknown"));
  Topology bare;
  ASSERT_TRUE(merge_sysfs_nics(bare, "").ok());
  EXPECT_TRUE(bare.notes.empty());
}

TEST(SysfsNicsJson, StateRoundTrips) {
  Topology node = dgx_capture();
  ASSERT_TRUE(merge_sysfs_nics(node, kDir + "sysfs_ndr_all_down").ok());
  Nic unknown;
  unknown.name = "mlx5_bond_0";
  node.nics.push_back(unknown);
  finalize_topology(node);
  auto j = topology_to_json(node);
  bool seen_init = false, seen_null = false;
  for (const auto& n : j["nics"]) {
    if (n["name"] == "mlx5_7") {
      EXPECT_EQ(n["state"], "INIT");
      EXPECT_EQ(n["phys_state"], "LinkUp");
      seen_init = true;
    }
    if (n["name"] == "mlx5_bond_0") {
      EXPECT_TRUE(n["state"].is_null());
      EXPECT_TRUE(n["phys_state"].is_null());
      seen_null = true;
    }
  }
  EXPECT_TRUE(seen_init && seen_null) << j["nics"].dump();
  auto back = topology_from_json(j, "round-trip");
  ASSERT_TRUE(back.ok()) << back.error().str();
  ASSERT_EQ(back->nics.size(), node.nics.size());
  for (size_t i = 0; i < node.nics.size(); ++i) {
    EXPECT_EQ(back->nics[i].state, node.nics[i].state) << node.nics[i].name;
    EXPECT_EQ(back->nics[i].phys_state, node.nics[i].phys_state) << node.nics[i].name;
  }
}

TEST(SysfsNicsText, TableShowsTheState) {
  Topology node = dgx_capture();
  ASSERT_TRUE(merge_sysfs_nics(node, kDir + "sysfs_ndr_2down").ok());
  std::string text = topology_text(node, {});
  EXPECT_NE(text.find("state"), std::string::npos) << text;
  auto line_of = [&](const std::string& nic) {
    auto at = text.find("  " + nic + " ");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_NE(line_of("mlx5_2").find("DOWN"), std::string::npos) << text;
  EXPECT_NE(line_of("mlx5_1").find("ACTIVE"), std::string::npos) << text;
}

TEST(ClusterSummaryPorts, NodeWithPortsDownDiffersFromTheMajority) {
  std::vector<Topology> nodes(3, dgx_capture());
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].host = "dgx-0" + std::to_string(i + 1);
    std::string tree = i == 1 ? "sysfs_ndr_2down" : "sysfs_ndr_healthy";
    ASSERT_TRUE(merge_sysfs_nics(nodes[i], kDir + tree).ok());
  }
  ClusterSummary s = summarize_cluster(nodes);
  ASSERT_EQ(s.odd_nodes.size(), 1u);
  EXPECT_EQ(s.odd_nodes[0].host, "dgx-02");
  EXPECT_TRUE(mentions(s.odd_nodes[0].differences, "6 active NIC ports (majority: 8)"));
  // Captures alone carry no port state: nothing to compare, nothing reported.
  std::vector<Topology> captures(2, dgx_capture());
  captures[1].host = "other";
  EXPECT_TRUE(summarize_cluster(captures).odd_nodes.empty());
}

}  // namespace
}  // namespace hcp
