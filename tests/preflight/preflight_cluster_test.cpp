// Cluster preflight: rank 0 merges every node's report into one verdict and names the odd nodes.
#include <gtest/gtest.h>

#include <algorithm>

#include "hcp/preflight.h"
#include "preflight/preflight_fixtures.h"

namespace hcp {
namespace {

using namespace preflight_fixtures;

/// A node checked by run_preflight, as it would reach rank 0 (through its JSON wire form).
NodePreflight checked_node(int rank, const std::string& host, PreflightInput in) {
  in.node.host = host;
  NodePreflight n;
  n.rank = rank;
  n.host = host;
  n.report = run_preflight(in);
  n.exit_code = n.report->go ? 0 : 1;
  n.topology = in.node;
  auto back = node_preflight_from_json(node_preflight_to_json(n), "rank " + std::to_string(rank));
  EXPECT_TRUE(back.ok()) << back.error().str();
  return back.ok() ? *back : n;
}

std::vector<NodePreflight> healthy_cluster(int nodes) {
  std::vector<NodePreflight> all;
  for (int r = 0; r < nodes; ++r) {
    PreflightInput in = healthy_input();
    in.launch = shape(nodes, 8);
    all.push_back(checked_node(r, "dgx-0" + std::to_string(r + 1), in));
  }
  return all;
}

const ClusterFinding* find(const ClusterPreflightReport& c, const std::string& id) {
  auto it = std::find_if(c.findings.begin(), c.findings.end(),
                         [&](const ClusterFinding& f) { return f.diagnostic.id() == id; });
  return it == c.findings.end() ? nullptr : &*it;
}

TEST(ClusterPreflight, HealthyNodesAreGoAndFindingsAppearOnce) {
  ClusterPreflightReport c = aggregate_preflight(healthy_cluster(4));
  EXPECT_TRUE(c.go) << cluster_preflight_text(c);
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_TRUE(c.differing_nodes.empty());
  ASSERT_EQ(c.nodes.size(), 4u);
  const ClusterFinding* numa = find(c, "TOPO005");
  ASSERT_NE(numa, nullptr) << cluster_preflight_text(c);
  EXPECT_TRUE(numa->every_node);
  EXPECT_EQ(numa->hosts.size(), 4u);
  EXPECT_EQ(std::count_if(c.findings.begin(), c.findings.end(),
                          [](const ClusterFinding& f) { return f.diagnostic.id() == "TOPO005"; }),
            1);
  for (const char* id : {"PF301", "PF302", "PF303", "PF304", "PF305"})
    EXPECT_EQ(find(c, id), nullptr) << id << "\n" << cluster_preflight_text(c);
  EXPECT_EQ(cluster_preflight_text(c).rfind("GO for the cluster: 4 nodes; 0 errors", 0), 0u)
      << cluster_preflight_text(c);
}

TEST(ClusterPreflight, OneFailingNodeMakesTheClusterNoGoAndIsNamed) {
  auto nodes = healthy_cluster(4);
  PreflightInput odd = healthy_input();
  odd.node = capture("hgx_h100_4gpu.txt");
  nodes[2] = checked_node(2, "dgx-03", odd);
  ClusterPreflightReport c = aggregate_preflight(nodes);
  EXPECT_FALSE(c.go);
  EXPECT_EQ(c.exit_code, 1);
  const ClusterFinding* gpus = find(c, "PF201");
  ASSERT_NE(gpus, nullptr) << cluster_preflight_text(c);
  EXPECT_EQ(gpus->hosts, std::vector<std::string>{"dgx-03"});
  EXPECT_FALSE(gpus->every_node);
  const ClusterFinding* hardware = find(c, "PF303");
  ASSERT_NE(hardware, nullptr);
  EXPECT_NE(hardware->diagnostic.message.find("4 GPUs (majority: 8)"), std::string::npos);
  ASSERT_EQ(c.differing_nodes.size(), 1u);
  EXPECT_EQ(c.differing_nodes[0].host, "dgx-03");
  std::string text = cluster_preflight_text(c);
  EXPECT_EQ(text.rfind("NO-GO for the cluster: 4 nodes, 1 failing (dgx-03)", 0), 0u) << text;
  EXPECT_NE(text.find("      on dgx-03\n"), std::string::npos) << text;
}

TEST(ClusterPreflight, DifferentPackageVersionsAreAnError) {
  auto nodes = healthy_cluster(4);
  PreflightInput in = healthy_input();
  in.launch = shape(4, 8);
  in.python = parse_python_env_output(
      "transformer_engine=2.8.0\nmegatron-core=0.16.1\nmegatron-bridge=0.3.0\ntorch=2.7.1\n"
      "nccl=2.27.3\n",
      "py");
  nodes[1] = checked_node(1, "dgx-02", in);
  ASSERT_TRUE(nodes[1].report->go);  // TE 2.8 alone is fine for this recipe.
  ClusterPreflightReport c = aggregate_preflight(nodes);
  const ClusterFinding* versions = find(c, "PF301");
  ASSERT_NE(versions, nullptr) << cluster_preflight_text(c);
  EXPECT_EQ(versions->diagnostic.severity(), Severity::kError);
  EXPECT_EQ(versions->hosts, std::vector<std::string>{"dgx-02"});
  EXPECT_NE(versions->diagnostic.message.find("transformer_engine"), std::string::npos);
  EXPECT_NE(versions->diagnostic.message.find("2.8.0 on dgx-02 (majority: 2.10.0)"),
            std::string::npos)
      << versions->diagnostic.message;
  EXPECT_FALSE(c.go);
  EXPECT_EQ(c.exit_code, 1);
}

TEST(ClusterPreflight, DifferentVariablesAndDriversAreWarnings) {
  auto nodes = healthy_cluster(4);
  PreflightInput in = healthy_input();
  in.launch = shape(4, 8);
  in.process_env["NCCL_IB_HCA"] = "mlx5_0";
  in.driver_version = "550.54.15";
  nodes[0] = checked_node(0, "dgx-01", in);
  ClusterPreflightReport c = aggregate_preflight(nodes);
  std::vector<std::string> messages;
  for (const ClusterFinding& f : c.findings)
    if (f.diagnostic.id() == "PF302") {
      EXPECT_EQ(f.diagnostic.severity(), Severity::kWarning);
      EXPECT_EQ(f.hosts, std::vector<std::string>{"dgx-01"});
      messages.push_back(f.diagnostic.message);
    }
  ASSERT_EQ(messages.size(), 2u) << cluster_preflight_text(c);
  EXPECT_NE(messages[0].find("CUDA driver differs across the nodes: 550.54.15 on dgx-01"),
            std::string::npos)
      << messages[0];
  EXPECT_NE(messages[1].find("NCCL_IB_HCA differs across the nodes: mlx5_0 on dgx-01 "
                             "(majority: unset)"),
            std::string::npos)
      << messages[1];
  ASSERT_EQ(c.differing_nodes.size(), 1u);
  EXPECT_EQ(c.differing_nodes[0].differences.size(), 2u);
  EXPECT_EQ(c.exit_code, nodes[0].report->go ? 0 : 1);
}

TEST(ClusterPreflight, UncheckedNodesDecideTheExitCode) {
  auto nodes = healthy_cluster(4);
  nodes[1].report.reset();
  nodes[1].exit_code = 3;
  nodes[1].problem = "cannot probe this node: hwloc failed";
  ClusterPreflightReport c = aggregate_preflight(nodes);
  EXPECT_FALSE(c.go);
  EXPECT_EQ(c.exit_code, 3);
  EXPECT_NE(cluster_preflight_text(c).find("not checked (exit 3): cannot probe this node"),
            std::string::npos);
  nodes[2].report.reset();
  nodes[2].exit_code = 2;
  EXPECT_EQ(aggregate_preflight(nodes).exit_code, 2);  // Bad input wins over a missing probe.
}

TEST(ClusterPreflight, CoverageOfTheLaunch) {
  auto nodes = healthy_cluster(2);
  nodes[1].host = nodes[0].host;  // Two ranks on one host.
  ClusterPreflightReport c = aggregate_preflight(nodes);
  const ClusterFinding* twice = find(c, "PF304");
  ASSERT_NE(twice, nullptr) << cluster_preflight_text(c);
  EXPECT_NE(twice->diagnostic.message.find("2 preflight ranks ran on dgx-01"), std::string::npos);
  const ClusterFinding* missing = find(c, "PF305");  // The launch says 2 nodes, 1 host answered.
  ASSERT_NE(missing, nullptr);
  EXPECT_NE(missing->diagnostic.message.find("the launch has 2 nodes but preflight ran on 1"),
            std::string::npos);
  EXPECT_EQ(find(aggregate_preflight(healthy_cluster(2)), "PF305"), nullptr);
}

TEST(ClusterPreflight, JsonShape) {
  auto nodes = healthy_cluster(2);
  nodes[1].report->go = false;
  auto j = cluster_preflight_json(aggregate_preflight(nodes));
  for (const char* key : {"verdict", "exit_code", "summary", "recipe", "launch", "nodes",
                          "differing_nodes", "diagnostics"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["verdict"], "NO-GO");
  EXPECT_EQ(j["nodes"][1]["verdict"], "NO-GO");
  EXPECT_EQ(j["nodes"][0]["host"], "dgx-01");
  EXPECT_EQ(j["launch"]["nodes"], 2);
  EXPECT_TRUE(j["diagnostics"][0].contains("hosts"));
}

TEST(NodePreflightJson, RoundTripAndMalformedInput) {
  NodePreflight n = healthy_cluster(1).front();
  auto back = node_preflight_from_json(node_preflight_to_json(n), "rank 0");
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->host, n.host);
  ASSERT_TRUE(back->report.has_value());
  EXPECT_EQ(back->report->findings.size(), n.report->findings.size());
  EXPECT_EQ(back->report->launch.world_size, 8);
  EXPECT_EQ(back->topology->gpus.size(), 8u);

  EXPECT_FALSE(node_preflight_from_json(nlohmann::json::array(), "rank 1").ok());
  EXPECT_FALSE(node_preflight_from_json({{"rank", "one"}, {"exit_code", 0}}, "rank 1").ok());
  auto j = node_preflight_to_json(n);
  j["report"]["diagnostics"][0]["severity"] = "fatal";
  auto bad = node_preflight_from_json(j, "rank 2");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().str().find("unknown severity 'fatal'"), std::string::npos);
  j = node_preflight_to_json(n);
  j["report"].erase("diagnostics");
  EXPECT_FALSE(node_preflight_from_json(j, "rank 3").ok());
}

}  // namespace
}  // namespace hcp
