// End-to-end tests of `hcp-plan probe`: live probe, captures, merging, bad input, --save, MPI.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using testing::run_cli;

const std::string kTopo = "tests/fixtures/topologies/";

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s)
    n += c == '\n';
  return n;
}

bool node_has_gpu() {
  auto r = run_cli("probe --no-nvml --format json");
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j.is_object() && !j["gpus"].empty();
}

TEST(ProbeCli, WithoutLibhwlocTopologyReadersExit3AndOtherCommandsRun) {
  // libhwloc is opened at run time (not linked): without it, each command that reads a topology
  // with hwloc says which library to install (exit 3: the environment, not the input) and every
  // other command runs.
  const std::string missing = "HCP_HWLOC_LIBRARY=/nonexistent/libhwloc.so.15";
  const std::string xml = kTopo + "hwloc/jureca-dc-gpu_jrc0323_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml";
  const struct {
    const char* name;
    std::string args;
  } readers[] = {
      {"live probe", "probe"},
      {"probe of an hwloc XML", "probe --hwloc-xml " + xml},
      {"preflight on an hwloc XML",
       "preflight llama3_8b_128k --nodes 1 --gpus-per-node 4 --hwloc-xml " + xml},
  };
  for (const auto& reader : readers) {
    auto r = run_cli(reader.args, missing);
    EXPECT_EQ(r.exit_code, 3) << reader.name << ": " << r.err;
    EXPECT_NE(r.err.find("/nonexistent/libhwloc.so.15 cannot be loaded"), std::string::npos)
        << reader.name << ": " << r.err;
    EXPECT_NE(r.err.find("apt-get install libhwloc15"), std::string::npos) << reader.name;
  }
  auto validate = run_cli("validate llama3_8b_128k --nodes 4 --gpus-per-node 8", missing);
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  auto nccl =
      run_cli("probe --nccl-topo " + kTopo + "nccl/azure_ndv5_8xH100_8xNDR_topohint.xml", missing);
  EXPECT_NE(nccl.exit_code, 3) << nccl.err;  // no hwloc in an NCCL capture
}

TEST(ProbeCli, LiveProbeSucceedsAndSaysWhatItFound) {
  auto r = run_cli("probe");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NUMA nodes:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NICs:"), std::string::npos);
  if (!node_has_gpu()) {
    EXPECT_NE(r.out.find("no NVIDIA GPU found"), std::string::npos) << r.out;
  }
}

TEST(ProbeCli, LiveProbeJsonHasTheContractKeys) {
  auto r = run_cli("probe --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"gpus", "nvlink", "nics", "gpus_per_node", "sources", "findings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["nvlink"].contains("matrix"));
  EXPECT_EQ(j["sources"][0], "hwloc");
}

TEST(ProbeCli, GpuOnlyOptionsExitThreeWithoutGpu) {
  if (node_has_gpu()) GTEST_SKIP() << "this node has an NVIDIA GPU";
  auto r = run_cli("probe --require-gpu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no NVIDIA GPU found"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1);
  auto n = run_cli("probe --nccl");
  EXPECT_EQ(n.exit_code, 3);
  EXPECT_NE(n.err.find("--nccl"), std::string::npos) << n.err;
}

TEST(ProbeCli, EveryCaptureLoads) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"hwloc", "--hwloc-xml"}, {"nccl", "--nccl-topo"}, {"nvidia-smi", "--nvidia-smi-topo"}};
  int loaded = 0;
  for (const auto& [dir, option] : kinds) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(HCP_FIXTURES_DIR) +
                                                                 "/topologies/" + dir)) {
      if (entry.path().extension() == ".md") continue;
      auto r = run_cli("probe " + option + " '" + entry.path().string() + "' --format json");
      EXPECT_EQ(r.exit_code, 0) << entry.path() << ": " << r.err;
      auto j = nlohmann::json::parse(r.out, nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << entry.path();
      ++loaded;
    }
  }
  EXPECT_EQ(loaded, 20);
}

TEST(ProbeCli, TextSummaryShowsTablesAndFindings) {
  auto r = run_cli("probe --nvidia-smi-topo " + kTopo +
                   "nvidia-smi/pcie_8xA100-80GB_NVLink-bridge-pairs_TRUNCATED.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPUs: 8"), std::string::npos);
  EXPECT_NE(r.out.find("NVLink matrix"), std::string::npos);
  EXPECT_NE(r.out.find("NIC0"), std::string::npos);
  EXPECT_NE(r.out.find("[TOPO003] GPUs 0,1,2,3,4,5,7 have no NIC on their PCIe switch"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[TOPO005]"), std::string::npos);
}

TEST(ProbeCli, SeveralSourcesMerge) {
  auto r = run_cli("probe --format json --hwloc-xml " + kTopo +
                   "hwloc/juwels-booster_jwb0004_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml "
                   "--nvidia-smi-topo " +
                   kTopo + "nvidia-smi/a100-sxm4-4gpu_NV4_4nic_TRUNCATED-niclegend.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sources"].size(), 2u);
  EXPECT_EQ(j["gpus_per_node"], 4);
  EXPECT_EQ(j["nvlink"]["links_per_gpu"], 12);
  EXPECT_EQ(j["nvlink"]["gbps_per_gpu"], 300.0);
  EXPECT_EQ(j["gpus"][0]["pci_bus_id"], "0000:03:00.0");
}

TEST(ProbeCli, MalformedCapturesExitTwoWithOneLine) {
  auto dir = std::filesystem::temp_directory_path();
  auto write = [&](const std::string& name, const std::string& text) {
    auto p = (dir / ("hcp_probe_cli_" + name)).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  };
  std::string junk("\x89PNG\r\n\x1a\n\x00\x00", 10);
  const std::vector<std::string> bad = {
      "--nvidia-smi-topo " + write("junk.txt", junk),
      "--nccl-topo " + write("junk.xml", junk),
      "--hwloc-xml " + write("junk2.xml", junk),
      "--nvidia-smi-topo " + write("wide.txt", "\tGPU0\tGPU1\nGPU0\tX\tNV4\tNV4\nGPU1\tNV4\tX\n"),
      "--nvidia-smi-topo " + write("absurd.txt", "\tGPU0\tGPU1\nGPU0\tX\tNV400\nGPU1\tNV400\tX\n"),
      "--nccl-topo " + write("speed.xml",
                             "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" "
                             "class=\"0x020700\"><nic><net name=\"mlx5_0\" speed=\"1e99\"/></nic>"
                             "</pci></cpu></system>"),
      "--nvidia-smi-topo /nonexistent/file.txt",
  };
  for (const auto& args : bad) {
    auto r = run_cli("probe " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("hcp-plan: error: "), std::string::npos) << r.err;
  }
}

TEST(ProbeCli, ALongGpuNameKeepsTheGpuTableAligned) {
  auto r = run_cli("probe --nvidia-smi-topo " + kTopo +
                   "nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt --gpu-name \"NVIDIA H100 "
                   "80GB HBM3\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  size_t column = std::string::npos;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  GPU  ", 0) == 0) column = line.find("PCIe GB/s");
    if (column == std::string::npos || line.find("NVIDIA H100 80GB HBM3") == std::string::npos)
      continue;
    ++rows;
    ASSERT_GT(line.size(), column) << line;
    EXPECT_EQ(line[column - 1], ' ') << line;  // the name ends before the PCIe column
    EXPECT_NE(line[column], ' ') << line;      // whose cell starts under its header
  }
  EXPECT_EQ(rows, 8) << r.out;
}

TEST(ProbeCli, SaveWritesAClusterProfile) {
  auto path = (std::filesystem::temp_directory_path() / "hcp_probe_cli_profile.yaml").string();
  auto r = run_cli("probe --nccl-topo " + kTopo +
                   "nccl/hgx_8xA100-80GB_6xNVSwitch_4xCX6Dx-RoCE_ncclTopoDump.xml --name hgx-a100 "
                   "--save " +
                   path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string yaml = testing::read_whole_file(path);
  EXPECT_NE(yaml.find("hgx-a100"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("gpus_per_node: 8"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("nvlink_gbps_per_gpu: 300"), std::string::npos) << yaml;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;  // the dump shows NVLink
  // A topology hint without <gpu> elements cannot tell NVLink: the profile saves PCIe-only
  // values, and both the warning and the profile's sources say they are assumed.
  auto hint = run_cli("probe --nccl-topo " + kTopo +
                      "nccl/aws_p4d.24xlarge_8xA100_4xEFA_topohint.xml --save " + path);
  ASSERT_EQ(hint.exit_code, 0) << hint.err;
  EXPECT_EQ(count_lines(hint.err), 1) << hint.err;
  EXPECT_NE(hint.err.find("hcp-plan: warning: --save: these sources do not show whether the GPUs "
                          "share NVLink"),
            std::string::npos)
      << hint.err;
  yaml = testing::read_whole_file(path);
  EXPECT_NE(yaml.find("\"nvlink_domain\": \"assumed: no NVLink, since nccl-topo:"),
            std::string::npos)
      << yaml;
  // plan on that profile says which figures are assumed (on stderr, as other profile notes).
  auto plan = run_cli("plan llama3_8b_128k --nodes 1 --top 1 --topology " + path);
  EXPECT_NE(plan.exit_code, 2) << plan.err;
  for (const char* field : {"nvlink_domain", "nvlink_gbps_per_gpu"}) {
    EXPECT_NE(plan.err.find(std::string(": ") + field +
                            " is an assumption, not a reading: no NVLink, since nccl-topo:"),
              std::string::npos)
        << field << "\n"
        << plan.err;
  }
  auto none = run_cli("probe --nccl-topo " + kTopo +
                      "nccl/aws_p5.48xlarge_8xH100_32xEFA_topohint.xml --save " + path);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no GPU"), std::string::npos) << none.err;
}

TEST(ProbeCli, MpiRanksReportTheOddNode) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)";
  // mpirun is the "hcp-plan" of run_cli's command line; each rank reads its own capture.
  auto r = run_cli("probe --format json --nvidia-smi-topo '" + kTopo + "mpi/rank{rank}.txt'",
                   hcp::testing::kMpirun + " -np 3");
  if (r.err.find("built without MPI") != std::string::npos)
    GTEST_SKIP() << "hcp-plan built without MPI";
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& out = r.out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["nodes"], 3);
  ASSERT_EQ(j["differing_nodes"].size(), 1u) << out;
  EXPECT_EQ(j["differing_nodes"][0]["host"], "rank2.txt");
  EXPECT_EQ(j["differing_nodes"][0]["differences"][0], "4 GPUs (majority: 8)");
}

}  // namespace
}  // namespace hcp
