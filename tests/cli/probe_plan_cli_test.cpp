// End to end: `probe --save` from every shipped capture (tests/fixtures/topologies) feeding
// `plan --topology`; the saved profile's figures from the GPU spec table; the NVLink domain of an
// all-NVLink matrix; a plan that finds nothing; a profile lacking a figure.
#include <gtest/gtest.h>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

namespace fs = std::filesystem;

/// A scratch directory removed at the end of the test.
class Scratch {
 public:
  Scratch() {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("hcp_probe_plan_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }

 private:
  fs::path dir_;
};

/// The number after `key: ` in a saved profile; -1 when absent.
double profile_number(const std::string& yaml, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(yaml, m, std::regex("\n" + key + ": ([0-9.]+)\n"))) return -1;
  return std::stod(m[1]);
}

struct Capture {
  const char* option;    ///< --hwloc-xml, --nccl-topo, --nvidia-smi-topo
  const char* file;      ///< Under tests/fixtures/topologies/.
  const char* gpu_name;  ///< --gpu-name for captures that name no GPU ("" = none given).
  int gpus;              ///< GPUs the capture shows.
  int domain;            ///< NVLink domain the saved profile must carry.
  double memory_gib;     ///< From the GPU spec table (0: GPU not in the table).
  double bf16;           ///< Dense BF16 peak from the table (0: not in the table).
  double fp8;            ///< Dense FP8 peak from the table (0: none).
};

// Every shipped capture. Device names for unnamed captures follow the file names (the capture
// READMEs name the machines). P100 / V100 have no BF16 tensor-core path and are not in the GPU
// spec table: their profiles lack the BF16 peak and `plan` says so (exit 2).
const std::vector<Capture>& captures() {
  static const std::vector<Capture> all = {
      {"--hwloc-xml", "hwloc/ibm-power8-minsky_4xP100_cuda-opencl-nvml_NVLinkBandwidth.xml", "", 4,
       2, 0, 0, 0},
      {"--hwloc-xml", "hwloc/jureca-dc-gpu_jrc0323_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml", "", 4, 1,
       40, 312, 0},
      {"--hwloc-xml", "hwloc/juwels-booster_jwb0004_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml", "", 4, 1,
       40, 312, 0},
      {"--hwloc-xml", "hwloc/juwels-cluster-gpu_jwc09n003_4xV100_2xCX5-EDR_hwloc1.11.xml", "", 4, 1,
       0, 0, 0},
      {"--hwloc-xml", "hwloc/nvidia-dgx2_16xV100_12xNVSwitch_nvml_NVLinkBandwidth.xml", "", 16, 16,
       0, 0, 0},
      {"--nccl-topo", "nccl/aws_p4d.24xlarge_8xA100_4xEFA_topohint.xml", "", 8, 1, 40, 312, 0},
      {"--nccl-topo", "nccl/azure_ndv4_8xA100_8xHDR_topohint.xml", "A100-40", 8, 1, 40, 312, 0},
      {"--nccl-topo", "nccl/azure_ndv5_8xH100_8xNDR_topohint.xml", "H100", 8, 1, 80, 989, 1979},
      {"--nccl-topo", "nccl/hgx_8xA100-80GB_6xNVSwitch_4xCX6Dx-RoCE_ncclTopoDump.xml", "", 8, 8, 80,
       312, 0},
      {"--nccl-topo", "nccl/ibmcloud_gx3d_8xH100_4xNVSwitch_8xCX7-RoCE_ncclTopoDump.xml", "", 8, 8,
       80, 989, 1979},
      {"--nvidia-smi-topo", "nvidia-smi/a100-sxm4-4gpu_NV4_4nic_TRUNCATED-niclegend.txt", "A100", 4,
       4, 80, 312, 0},
      {"--nvidia-smi-topo", "nvidia-smi/dgx-a100-40gb_8gpu_NV12_12nic_TRUNCATED.txt", "A100-40", 8,
       8, 40, 312, 0},
      {"--nvidia-smi-topo", "nvidia-smi/dgx2_16xV100_NV6_10nic_TRUNCATED.txt", "", 16, 16, 0, 0, 0},
      {"--nvidia-smi-topo", "nvidia-smi/dgx2_topo-mp_subset_nvidia-gds-guide.txt", "", 16, 1, 0, 0,
       0},
      {"--nvidia-smi-topo", "nvidia-smi/gb200-nvl_tray_4gpu_NV18_6nic_TRUNCATED.txt", "GB200", 4, 4,
       186, 2500, 5000},
      {"--nvidia-smi-topo", "nvidia-smi/hgx-h100-4gpu_NV6_4nic_TRUNCATED-legend.txt", "H100", 4, 4,
       80, 989, 1979},
      {"--nvidia-smi-topo", "nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt", "H100", 8, 8, 80,
       989, 1979},
      {"--nvidia-smi-topo", "nvidia-smi/pcie_8xA100-80GB_NVLink-bridge-pairs_TRUNCATED.txt",
       "A100-PCIE", 8, 2, 80, 312, 0},
  };
  return all;
}

TEST(ProbeSavePlan, EveryShippedCaptureFeedsPlan) {
  Scratch s;
  for (const Capture& c : captures()) {
    SCOPED_TRACE(c.file);
    std::string profile = s.path("profile.yaml");
    std::string gpu = *c.gpu_name ? std::string(" --gpu-name ") + c.gpu_name : std::string();
    auto probe = run_cli(std::string("probe ") + c.option + " tests/fixtures/topologies/" + c.file +
                         gpu + " --save " + profile);
    ASSERT_EQ(probe.exit_code, 0) << probe.err;
    std::string yaml = read_whole_file(profile);
    EXPECT_EQ(profile_number(yaml, "gpus_per_node"), c.gpus);
    EXPECT_EQ(profile_number(yaml, "nvlink_domain"), c.domain);
    EXPECT_EQ(profile_number(yaml, "gpu_memory_gib"), c.memory_gib);
    EXPECT_EQ(profile_number(yaml, "bf16_dense_tflops"), c.bf16);
    EXPECT_EQ(profile_number(yaml, "fp8_dense_tflops"), c.fp8);
    if (c.bf16 > 0) {
      EXPECT_NE(yaml.find("GPU spec table"), std::string::npos);
    }

    auto plan = run_cli("plan llama32_1b_128k --nodes 1 --topology " + profile + " --format json");
    if (c.bf16 > 0) {
      // A search ran: 0 with a recommendation, 1 when nothing fits these GPUs.
      EXPECT_TRUE(plan.exit_code == 0 || plan.exit_code == 1) << plan.err;
      EXPECT_NE(plan.out.find("\"candidates\""), std::string::npos);
      EXPECT_EQ(plan.exit_code == 0, plan.out.find("\"recommended\": true") != std::string::npos);
    } else {
      EXPECT_EQ(plan.exit_code, 2);
      EXPECT_NE(plan.err.find("lacks bf16_dense_tflops"), std::string::npos) << plan.err;
      EXPECT_EQ(std::count(plan.err.begin(), plan.err.end(), '\n'), 1) << plan.err;
    }
  }
}

TEST(ProbeSavePlan, NvlinkDomainFollowsTheMatrixWithoutTheLinkRate) {
  // No --gpu-name: the link rate is unknown, the all-NV# matrix still makes one domain of 8.
  Scratch s;
  std::string profile = s.path("p.yaml");
  auto probe = run_cli(
      "probe --nvidia-smi-topo "
      "tests/fixtures/topologies/nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt --save " +
      profile);
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  std::string yaml = read_whole_file(profile);
  EXPECT_EQ(profile_number(yaml, "nvlink_domain"), 8);
  EXPECT_EQ(profile_number(yaml, "nvlink_gbps_per_gpu"), 0);
  // With the device named, the NVLink rate comes from the table too.
  probe = run_cli(
      "probe --nvidia-smi-topo "
      "tests/fixtures/topologies/nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt --gpu-name "
      "H100 --save " +
      profile);
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_EQ(profile_number(read_whole_file(profile), "nvlink_gbps_per_gpu"), 450);
}

TEST(ProbeSavePlan, UnnamedGpuProfileNamesTheMissingFigureAndTheFix) {
  Scratch s;
  std::string profile = s.path("p.yaml");
  ASSERT_EQ(
      run_cli("probe --nvidia-smi-topo "
              "tests/fixtures/topologies/nvidia-smi/gb200-nvl_tray_4gpu_NV18_6nic_TRUNCATED.txt"
              " --save " +
              profile)
          .exit_code,
      0);
  auto plan = run_cli("plan llama32_1b_128k --nodes 1 --topology " + profile);
  EXPECT_EQ(plan.exit_code, 2);
  EXPECT_EQ(plan.out, "");
  EXPECT_NE(plan.err.find(profile + ": cluster profile"), std::string::npos) << plan.err;
  EXPECT_NE(plan.err.find("lacks bf16_dense_tflops"), std::string::npos) << plan.err;
  EXPECT_NE(plan.err.find("--gpu-name"), std::string::npos) << plan.err;
  EXPECT_EQ(std::count(plan.err.begin(), plan.err.end(), '\n'), 1) << plan.err;
}

TEST(ProbeSavePlan, GpuNameMustBeInTheSpecTable) {
  auto r = run_cli(
      "probe --nvidia-smi-topo "
      "tests/fixtures/topologies/nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt --gpu-name "
      "H10O");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'H100'?"), std::string::npos) << r.err;
}

TEST(ProbeSavePlan, CaptureWithoutGpusCannotBeSaved) {
  // AWS's p5 hint says so itself: "GPUs are not reported in this file".
  Scratch s;
  auto r = run_cli(
      "probe --nccl-topo tests/fixtures/topologies/nccl/aws_p5.48xlarge_8xH100_32xEFA_topohint.xml "
      "--save " +
      s.path("p.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(s.path("p.yaml")));
}

const char* kProfileHead =
    "name: handmade\n"
    "gpu_name: \"Mystery-GPU\"\n"
    "gpus_per_node: 8\n"
    "nvlink_domain: 8\n"
    "nvlink_gbps_per_gpu: 450\n";

TEST(ProbeSavePlan, ProfileLackingMemoryNamesIt) {
  Scratch s;
  std::string p = s.file("p.yaml", std::string(kProfileHead) + "bf16_dense_tflops: 989\n");
  auto r = run_cli("plan llama32_1b_128k --nodes 1 --topology " + p);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("lacks gpu_memory_gib"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'Mystery-GPU' is not in the GPU spec table"), std::string::npos) << r.err;
  // --memory-limit supplies the figure.
  r = run_cli("plan llama32_1b_128k --nodes 1 --memory-limit 80 --topology " + p);
  EXPECT_NE(r.exit_code, 2) << r.err;
}

TEST(ProbeSavePlan, ProfileLackingTheNetworkNamesItOnlyAcrossNodes) {
  Scratch s;
  std::string p =
      s.file("p.yaml", std::string(kProfileHead) + "bf16_dense_tflops: 989\ngpu_memory_gib: 80\n");
  auto one = run_cli("plan llama32_1b_128k --nodes 1 --topology " + p);
  EXPECT_NE(one.exit_code, 2) << one.err;
  auto two = run_cli("plan llama32_1b_128k --nodes 2 --topology " + p);
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("lacks nic_gbits and nics_per_node"), std::string::npos) << two.err;
  // The one-node plan's JSON has no network figures: null, not a bandwidth of 0.
  auto json = run_cli("plan llama32_1b_128k --nodes 1 --format json --topology " + p);
  EXPECT_NE(json.out.find("\"nic_gbs\": null"), std::string::npos) << json.out.substr(0, 2000);
  EXPECT_EQ(json.out.find("\"nic_gbs\": 0"), std::string::npos);
  // ... and no source for a figure it does not print (it once named "NICs x ~48 of 50 GB/s").
  auto plan = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(plan.is_discarded());
  const auto& hardware = plan["hardware"];
  for (const char* key : {"nic_gbs", "nic_a2a_gbs"}) {
    EXPECT_TRUE(hardware[key].is_null()) << key;
    EXPECT_FALSE(hardware["sources"].contains(key)) << key << ": " << hardware["sources"].dump();
  }
  EXPECT_TRUE(hardware["sources"].contains("nvlink_gbs")) << hardware["sources"].dump();
  // A profile with one of the two figures is told the one it lacks.
  for (const auto& [line, lacks] : {std::pair{"nics_per_node: 8\n", "lacks nic_gbits ("},
                                    std::pair{"nic_gbits: 400\n", "lacks nics_per_node ("}}) {
    std::string half =
        s.file("half.yaml",
               std::string(kProfileHead) + "bf16_dense_tflops: 989\ngpu_memory_gib: 80\n" + line);
    auto r = run_cli("plan llama32_1b_128k --nodes 2 --topology " + half);
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find(lacks), std::string::npos) << line << r.err;
  }
}

TEST(ProbeSavePlan, PlanFindingNothingExitsOneWithCountedReasons) {
  // 3 GPUs: no TP, CP or DP of 3 passes the rules for a 32-head, 128K-token model.
  auto r = run_cli("plan llama3_8b_128k --nodes 1 --gpus-per-node 3");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("no layout passes the rules"), std::string::npos);
  EXPECT_NE(r.out.find("main rejection reasons:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 x [CP040]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[CP030]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("rejected layouts ("), std::string::npos);  // not the --show-rejected list
  auto json = run_cli("plan llama3_8b_128k --nodes 1 --gpus-per-node 3 --format json");
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_NE(json.out.find("\"rejection_reasons\""), std::string::npos);
  // A plan that finds a layout exits 0 and prints no rejection summary.
  auto ok = run_cli("plan llama32_1b_128k --nodes 1");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.find("main rejection reasons"), std::string::npos);
}

TEST(ProbeSavePlan, ProfileFp8FigureReadsBack) {
  Scratch s;
  std::string p = s.file("p.yaml", std::string(kProfileHead) +
                                       "bf16_dense_tflops: 989\ngpu_memory_gib: 80\n"
                                       "fp8_dense_tflops: 1500\n");
  auto r = run_cli("plan llama32_1b_128k --nodes 1 --topology " + p + " --format json");
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("\"fp8_tflops\": 1500"), std::string::npos) << r.out.substr(0, 400);
}

}  // namespace
}  // namespace hcp::testing
