// Cluster profiles: the shipped YAML files, round trips and bad files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hcp/cluster.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

const char* kShipped[] = {"dgx-a100",    "dgx-h100", "dgx-h200",    "dgx-b200",
                          "gb200-nvl72", "dgx-b300", "gb300-nvl72", "pcie-8gpu"};

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int n = 0;
    path_ = (fs::temp_directory_path() /
             ("hcp_cluster_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".yaml"))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ClusterProfiles, ShippedProfilesLoadWithEverySourceNamed) {
  std::vector<std::string> names = cluster_profile_names();
  for (const char* name : kShipped) {
    SCOPED_TRACE(name);
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end());
    auto p = find_cluster_profile(name);
    ASSERT_TRUE(p.ok()) << p.error().str();
    EXPECT_EQ(p->name, name);
    EXPECT_FALSE(p->gpu_name.empty());
    EXPECT_GE(p->gpus_per_node, 1);
    EXPECT_GT(p->pcie_gbps_per_gpu, 0);
    EXPECT_GT(p->nics_per_node, 0);
    EXPECT_GT(p->gpu_memory_gib, 0);
    EXPECT_GT(p->bf16_dense_tflops, 0);
    for (const char* field :
         {"gpu_sm", "gpus_per_node", "nvlink_domain", "nvlink_gbps_per_gpu", "pcie_gbps_per_gpu",
          "nics_per_node", "nic_gbits", "gpu_memory_gib", "bf16_dense_tflops"}) {
      EXPECT_TRUE(p->sources.count(field)) << "no source for " << field;
    }
  }
}

TEST(ClusterProfiles, Nvl72DomainSpansSeveralTraysAndPcieHasNoNvlink) {
  auto nvl = find_cluster_profile("gb200-nvl72");
  ASSERT_TRUE(nvl.ok());
  EXPECT_EQ(nvl->gpus_per_node, 4);
  EXPECT_EQ(nvl->nvlink_domain, 72);
  auto h100 = find_cluster_profile("dgx-h100");
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(h100->nvlink_domain, h100->gpus_per_node);
  EXPECT_EQ(h100->nvlink_gbps_per_gpu, 450);
  auto pcie = find_cluster_profile("pcie-8gpu");
  ASSERT_TRUE(pcie.ok());
  EXPECT_EQ(pcie->nvlink_domain, 1);
  EXPECT_EQ(pcie->nvlink_gbps_per_gpu, 0);
}

TEST(ClusterProfiles, YamlRoundTripKeepsEveryField) {
  ClusterProfile p;
  p.name = "probe-node";
  p.description = "a \"quoted\" name: with colon # and hash\tand tab";
  p.gpu_name = "NVIDIA H100 80GB HBM3";
  p.gpu_sm = 90;
  p.gpus_per_node = 8;
  p.nvlink_domain = 8;
  p.nvlink_gbps_per_gpu = 370.25;
  p.pcie_gbps_per_gpu = 0.1;
  p.nics_per_node = 10;
  p.nic_gbits = 400;
  p.gpu_memory_gib = 79.6475;
  p.bf16_dense_tflops = 989.4;
  p.sources = {{"nvlink_gbps_per_gpu", "probe: NCCL topo dump"}, {"gpu_sm", "nvml"}};
  TempFile file(cluster_profile_yaml(p));
  auto back = load_cluster_profile(file.path());
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->name, p.name);
  EXPECT_EQ(back->description, p.description);
  EXPECT_EQ(back->gpu_name, p.gpu_name);
  EXPECT_EQ(back->gpu_sm, p.gpu_sm);
  EXPECT_EQ(back->gpus_per_node, p.gpus_per_node);
  EXPECT_EQ(back->nvlink_domain, p.nvlink_domain);
  EXPECT_EQ(back->nvlink_gbps_per_gpu, p.nvlink_gbps_per_gpu);
  EXPECT_EQ(back->pcie_gbps_per_gpu, p.pcie_gbps_per_gpu);
  EXPECT_EQ(back->nics_per_node, p.nics_per_node);
  EXPECT_EQ(back->nic_gbits, p.nic_gbits);
  EXPECT_EQ(back->gpu_memory_gib, p.gpu_memory_gib);
  EXPECT_EQ(back->bf16_dense_tflops, p.bf16_dense_tflops);
  EXPECT_EQ(back->sources, p.sources);
  EXPECT_EQ(cluster_profile_yaml(*back), cluster_profile_yaml(p));
}

TEST(ClusterProfiles, ShippedProfilesRoundTrip) {
  for (const char* name : kShipped) {
    auto p = find_cluster_profile(name);
    ASSERT_TRUE(p.ok());
    TempFile file(cluster_profile_yaml(*p));
    auto back = load_cluster_profile(file.path());
    ASSERT_TRUE(back.ok()) << back.error().str();
    EXPECT_EQ(cluster_profile_yaml(*back), cluster_profile_yaml(*p)) << name;
  }
}

TEST(ClusterProfiles, NvlinkDomainDefaultsToTheNodeAndNameToTheFileStem) {
  TempFile file("gpus_per_node: 4\n");
  auto p = load_cluster_profile(file.path());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nvlink_domain, 4);
  EXPECT_EQ(p->name, fs::path(file.path()).stem().string());
  // The model announces the default (issue #29: a missing figure is never replaced silently).
  EXPECT_FALSE(p->nvlink_domain_given);
  TempFile given("gpus_per_node: 4\nnvlink_domain: 4\n");
  auto q = load_cluster_profile(given.path());
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->nvlink_domain_given);
}

struct BadProfile {
  const char* text;
  int line;
  const char* message_part;
};

TEST(ClusterProfiles, BadFilesGiveFileAndLine) {
  const BadProfile cases[] = {
      {"gpus_per_node: 8\nnvlink_domian: 8\n", 2, "did you mean 'nvlink_domain'"},
      {"gpus_per_node: eight\n", 1, "expected an integer"},
      {"gpus_per_node: 8\nnvlink_gbps_per_gpu: -3\n", 2, "below the physical range"},
      // Issue 28: a denormal, NaN or absurd figure gave NaN/inf predictions with exit 0.
      {"gpus_per_node: 8\nnvlink_gbps_per_gpu: 1e-320\n", 2, "'1e-320' is"},
      {"gpus_per_node: 8\nbf16_dense_tflops: .nan\n", 2, "expected a number in TFLOP/s"},
      {"gpus_per_node: 8\nfp8_dense_tflops: nan\n", 2, "not a finite number"},
      {"gpus_per_node: 8\nnic_gbits: 1e300\n", 2, "above the physical range"},
      {"gpus_per_node: 8\ngpu_memory_gib: 1e400\n", 2, "out of range"},
      {"gpus_per_node: 8\n---\ngpus_per_node: 4\n", 3, "2 documents"},
      {"gpus_per_node: !!python/object:x 8\n", 1, "YAML tag '!!python/object:x'"},
      {"gpus_per_node: 0\n", 1, "must be >= 1"},
      {"gpus_per_node: 8\ngpu_memory_gib: [80]\n", 2, "expected a single value"},
      {"gpus_per_node: 8\nsources:\n  nic_gbit: x\n", 3, "did you mean 'nic_gbits'"},
      {"gpus_per_node: 8\nsources: [a]\n", 2, "expected a mapping"},
      {"gpus_per_node: [8\n", 2, "malformed YAML"},
      {"name: x\n", 1, "missing required key 'gpus_per_node'"},
      {"- 1\n- 2\n", 1, "must be a YAML mapping"},
      {"gpus_per_node: 8\ngpus_per_node: 4\n", 2, "duplicate key"},
  };
  for (const BadProfile& c : cases) {
    SCOPED_TRACE(c.text);
    TempFile file(c.text);
    auto p = load_cluster_profile(file.path());
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().location.file, file.path());
    EXPECT_EQ(p.error().location.line, c.line) << p.error().str();
    EXPECT_NE(p.error().message.find(c.message_part), std::string::npos) << p.error().str();
  }
}

TEST(ClusterProfiles, UnknownNameSuggestsAndMissingFileFails) {
  auto p = find_cluster_profile("dgx-h10");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("did you mean 'dgx-h100'"), std::string::npos)
      << p.error().message;
  auto missing = find_cluster_profile("/nonexistent/dir/x.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
  auto dir = load_cluster_profile(fs::temp_directory_path().string());
  EXPECT_FALSE(dir.ok());
}

TEST(ClusterProfiles, ProfileByPath) {
  auto p = find_cluster_profile(std::string(HCP_RECIPES_DIR) + "/clusters/dgx-b200.yaml");
  ASSERT_TRUE(p.ok()) << p.error().str();
  EXPECT_EQ(p->gpu_sm, 100);
}

}  // namespace
}  // namespace hcp
