// Every writer round-trips through its reader: what hcp-plan writes it reads back, unchanged.
// Pairs: calibration JSON (bench -> plan --calibration), cluster profiles (probe --save -> plan
// --topology), topology JSON (probe --format json / MPI gather), a node's preflight on the wire
// (MPI gather). Issue #17: a calibration file that loaded could not be saved and re-read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "cli/cli_runner.h"
#include "hcp/calibration.h"
#include "hcp/cluster.h"
#include "hcp/json_io.h"
#include "hcp/preflight.h"
#include "hcp/recipe.h"
#include "hcp/topology.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

const std::string kSource = HCP_SOURCE_DIR;
const std::string kTopologies = kSource + "/tests/fixtures/topologies/";

/// Files below `dir` whose names end in one of `extensions`, sorted.
std::vector<std::string> files_in(const std::string& dir,
                                  const std::vector<std::string>& extensions) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    for (const std::string& ext : extensions) {
      if (entry.path().extension() == ext) out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Every topology capture fixture that loads, with its loader.
std::vector<std::pair<std::string, Topology>> capture_topologies() {
  std::vector<std::pair<std::string, Topology>> out;
  for (const auto& f : files_in(kTopologies + "hwloc", {".xml"}))
    if (auto t = load_hwloc_xml(f)) out.emplace_back(f, *t);
  for (const auto& f : files_in(kTopologies + "nccl", {".xml"}))
    if (auto t = load_nccl_topo(f)) out.emplace_back(f, *t);
  for (const auto& f : files_in(kTopologies + "nvidia-smi", {".txt"}))
    if (auto t = load_nvidia_smi_topo(f)) out.emplace_back(f, *t);
  return out;
}

// --- Calibration ------------------------------------------------------------------------------

/// Write, read back, write again: the reader accepts the text and the two texts are the same.
void expect_calibration_round_trip(const Calibration& c, const std::string& what) {
  std::string first = calibration_to_json(c);
  auto back = parse_calibration(first, what);
  ASSERT_TRUE(back) << what << ": " << back.error().str() << "\n" << first;
  EXPECT_EQ(calibration_to_json(*back), first) << what;
}

TEST(RoundTrip, CalibrationFixtures) {
  for (const auto& f : files_in(kSource + "/tests/fixtures/calibration", {".json"})) {
    auto c = load_calibration(f);
    ASSERT_TRUE(c) << c.error().str();
    expect_calibration_round_trip(*c, f);
  }
}

TEST(RoundTrip, CalibrationWithMissingFiguresSavesAndReloads) {
  // The finding: a measurement without "tflops" loads (every key is optional), its 0 was
  // written back, and the reader rejected the 0 it had itself produced.
  auto c = parse_calibration(
      "{\"schema_version\": 1, \"attention\": [{\"dtype\": \"bf16\"}], "
      "\"collectives\": [{\"op\": \"alltoall\", \"scope\": \"intra_node\"}]}",
      "missing.json");
  ASSERT_TRUE(c) << c.error().str();
  expect_calibration_round_trip(*c, "missing figures");
  fs::path path = fs::temp_directory_path() / ("hcp_rt_cal_" + std::to_string(getpid()) + ".json");
  ASSERT_TRUE(save_calibration(*c, path.string()));
  auto reloaded = load_calibration(path.string());
  EXPECT_TRUE(reloaded) << reloaded.error().str();
  fs::remove(path);
}

TEST(RoundTrip, CalibrationWithUnwritableValuesStillReloads) {
  Calibration c;
  c.source = std::string("bench \xff\xfe on a node");  // Invalid UTF-8 from a device name.
  c.device = "H100 \"SXM\"\n";
  c.gpus = 8;
  AttentionMeasurement a;
  a.time_ms = std::numeric_limits<double>::quiet_NaN();
  a.tflops = std::numeric_limits<double>::infinity();
  a.max_abs_error = std::numeric_limits<double>::quiet_NaN();
  c.attention.push_back(a);
  CollectiveMeasurement m;
  m.op = "sendrecv";
  m.scope = "inter_node";
  m.ranks = 16;
  m.busbw_gbps = -1;
  c.collectives.push_back(m);
  c.summary.attention_tflops = std::numeric_limits<double>::infinity();
  c.summary.intra_node_a2a_gbps = 360.5;
  // NaN, infinity and negative figures are left out (a reader default takes their place); the
  // text is readable, and from then on a fixed point of write(read(...)).
  std::string text = calibration_to_json(c);
  EXPECT_EQ(text.find("NaN"), std::string::npos) << text;
  EXPECT_EQ(text.find("null"), std::string::npos) << text;
  auto back = parse_calibration(text, "unwritable");
  ASSERT_TRUE(back) << back.error().str() << "\n" << text;
  expect_calibration_round_trip(*back, "unwritable values");
  EXPECT_NE(back->source.find("bench \xEF\xBF\xBD"), std::string::npos);  // U+FFFD
  EXPECT_FALSE(back->summary.attention_tflops.has_value());
  EXPECT_EQ(back->summary.intra_node_a2a_gbps, 360.5);
}

// --- Cluster profiles -------------------------------------------------------------------------

void expect_profile_round_trip(const ClusterProfile& p, const std::string& what) {
  std::string first = cluster_profile_yaml(p);
  fs::path path = fs::temp_directory_path() /
                  ("hcp_rt_profile_" + std::to_string(getpid()) + "_" + p.name + ".yaml");
  { std::ofstream(path, std::ios::binary) << first; }
  auto back = load_cluster_profile(path.string());
  fs::remove(path);
  ASSERT_TRUE(back) << what << ": " << back.error().str() << "\n" << first;
  EXPECT_EQ(cluster_profile_yaml(*back), first) << what;
}

TEST(RoundTrip, ShippedClusterProfiles) {
  for (const auto& f : files_in(kSource + "/recipes/clusters", {".yaml"})) {
    auto p = load_cluster_profile(f);
    ASSERT_TRUE(p) << p.error().str();
    expect_profile_round_trip(*p, f);
  }
}

TEST(RoundTrip, ClusterProfilesOfEveryCapture) {
  auto captures = capture_topologies();
  ASSERT_GE(captures.size(), 10u);
  int saved = 0;
  for (const auto& [file, topo] : captures) {
    if (topo.gpus.empty()) continue;  // probe --save refuses a node without GPUs.
    expect_profile_round_trip(cluster_profile_from_topology(topo, "rt"), file);
    ++saved;
  }
  EXPECT_GE(saved, 10);
}

TEST(RoundTrip, ClusterProfileWithAwkwardText) {
  ClusterProfile p;
  p.name = "awkward";
  p.description = "quotes \" and \\ backslashes, a tab\t, a newline\n, # not a comment: {x}";
  p.gpu_name = "H100 \xe2\x80\x94 SXM";  // An em dash.
  p.gpu_sm = 90;
  p.gpus_per_node = 8;
  p.nvlink_domain = 8;
  p.nvlink_gbps_per_gpu = 0.1 + 0.2;
  p.pcie_gbps_per_gpu = 1e-3;        // The smallest figure the physical range takes.
  p.nic_gbits = 1600.0000000000002;  // Needs all 17 digits to read back.
  p.sources["gpu_sm"] = "- a list? [no]\r";
  expect_profile_round_trip(p, "awkward text");
}

TEST(RoundTrip, ProbeSaveIsReadBackByPlan) {
  fs::path path = fs::temp_directory_path() / ("hcp_rt_save_" + std::to_string(getpid()) + ".yaml");
  auto r = testing::run_cli(
      "probe --nvidia-smi-topo " + kTopologies +
      "nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt --gpu-name H100 --save " + path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto loaded = load_cluster_profile(path.string());
  ASSERT_TRUE(loaded) << loaded.error().str();
  EXPECT_EQ(cluster_profile_yaml(*loaded), testing::read_whole_file(path.string()));
  // One node: the capture names the NICs but not their speed, which a multi-node plan needs.
  auto plan =
      testing::run_cli("plan llama32_1b_128k --nodes 1 --top 1 --topology " + path.string());
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  fs::remove(path);
}

// --- Topology JSON and the preflight wire form ------------------------------------------------

TEST(RoundTrip, TopologyJsonOfEveryCapture) {
  for (const auto& [file, topo] : capture_topologies()) {
    std::string first = json_dump(topology_to_json(topo), 1);
    auto parsed = parse_json_input(first, file, "topology JSON");
    ASSERT_TRUE(parsed) << parsed.error().str();
    auto back = topology_from_json(*parsed, file);
    ASSERT_TRUE(back) << file << ": " << back.error().str();
    EXPECT_EQ(json_dump(topology_to_json(*back), 1), first) << file;
  }
}

TEST(RoundTrip, NodePreflightWireForm) {
  auto recipe = load_recipe_file(kSource + "/recipes/llama3_8b_128k.yaml");
  ASSERT_TRUE(recipe) << recipe.error().str();
  for (const auto& [file, topo] : capture_topologies()) {
    PreflightInput in;
    in.recipe = *recipe;
    auto launch =
        launch_shape_from({}, 4, static_cast<int64_t>(std::max<size_t>(topo.gpus.size(), 1)));
    ASSERT_TRUE(launch) << launch.error().str();
    in.launch = *launch;
    in.node = topo;
    NodePreflight node;
    node.rank = 1;
    node.host = "node-\xff";  // Invalid UTF-8 in a host name must not break the wire form.
    node.report = run_preflight(in);
    node.exit_code = node.report->go ? 0 : 1;
    node.topology = topo;
    std::string first = json_dump(node_preflight_to_json(node));
    auto parsed = parse_json_input(first, file, "preflight JSON");
    ASSERT_TRUE(parsed) << parsed.error().str();
    auto back = node_preflight_from_json(*parsed, file);
    ASSERT_TRUE(back) << file << ": " << back.error().str();
    EXPECT_EQ(json_dump(node_preflight_to_json(*back)), first) << file;
  }
}

}  // namespace
}  // namespace hcp
