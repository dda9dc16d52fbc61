// The hardware table (gpu_specs.h): lookups by name, name fragment and PCI id; priced rows and rows
// known by PCI id only; the NVLink figures agree with each other; every shipped cluster profile
// agrees with the table, and so do the profiles check-log assumes per GPU model.
#include "hcp/gpu_specs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "hcp/cluster.h"

namespace hcp {
namespace {

TEST(GpuSpecs, FindsDevicesByTheirNvidiaSmiNames) {
  struct Case {
    const char* name;
    const char* key;
  };
  for (Case c :
       {Case{"NVIDIA A100-SXM4-80GB", "A100"}, Case{"NVIDIA A100-SXM4-40GB", "A100-40"},
        Case{"NVIDIA A800-SXM4-80GB", "A800"}, Case{"NVIDIA H100 80GB HBM3", "H100"},
        Case{"NVIDIA H100 PCIe", "H100-PCIE"}, Case{"H100-SXM5-80GB", "H100"},
        Case{"NVIDIA H800", "H800"}, Case{"NVIDIA H200", "H200"}, Case{"NVIDIA B200", "B200"},
        Case{"NVIDIA GB200", "GB200"}, Case{"NVIDIA B300 SXM6 AC", "B300"},
        Case{"NVIDIA GB300", "GB300"}, Case{"NVIDIA L20", "L20"}, Case{"NVIDIA L40S", "L40S"},
        Case{"NVIDIA GeForce RTX 4090", "RTX 4090"}, Case{"nvidia_geforce_rtx_4090", "RTX 4090"},
        Case{"A100 40GB PCIe", "A100-PCIE"}, Case{"B300-SXM-288GB", "B300"},
        Case{"NVIDIA L40", "L40"}}) {
    const GpuSpec* spec = find_gpu_spec(c.name);
    ASSERT_NE(spec, nullptr) << c.name;
    EXPECT_STREQ(spec->key, c.key) << c.name;
  }
}

TEST(GpuSpecs, FindsEveryPricedRowByItsKeyAndNoRowForUnknownOrUnpricedNames) {
  // probe --gpu-name takes the priced rows' keys; the cost model cannot price the others.
  int unpriced = 0;
  for (const GpuSpec& s : gpu_spec_table()) {
    if (!is_priced(s)) {
      EXPECT_EQ(find_gpu_spec(s.key), nullptr) << s.key;
      ++unpriced;
      continue;
    }
    ASSERT_NE(find_gpu_spec(s.key), nullptr) << s.key;
    EXPECT_STREQ(find_gpu_spec(s.key)->key, s.key);
  }
  EXPECT_EQ(unpriced, 4);  // P100-PCIE, P100-SXM2, V100-SXM, V100-PCIE.
  EXPECT_EQ(find_gpu_spec(""), nullptr);
  EXPECT_EQ(find_gpu_spec("NVIDIA"), nullptr);
  EXPECT_EQ(find_gpu_spec("MI300X"), nullptr);
  EXPECT_EQ(find_gpu_spec("Tesla V100-SXM2-32GB"), nullptr);  // Known by PCI id, not modelled.
}

TEST(GpuSpecs, LongerNamesWinOverTheShorterNamesTheyContainOrResemble) {
  // Each pair: the longer (or sibling) name takes its own row, and the shorter one is not taken
  // for it, both as nvidia-smi prints them and as the model name check-log keeps.
  struct Case {
    const char* name;
    const char* key;
    const char* model;
  };
  for (Case c : {Case{"NVIDIA GB200", "GB200", "GB200"}, Case{"NVIDIA B200", "B200", "B200"},
                 Case{"GB300", "GB300", "GB300"}, Case{"B300", "B300", "B300"},
                 Case{"NVIDIA L40S", "L40S", "L40S"}, Case{"NVIDIA L40", "L40", "L40"},
                 Case{"L40S", "L40S", "L40S"}, Case{"L40", "L40", "L40"},
                 Case{"NVIDIA H800", "H800", "H800"}, Case{"NVIDIA H100", "H100", "H100"},
                 Case{"H800", "H800", "H800"}, Case{"H100", "H100", "H100"},
                 Case{"NVIDIA H100 PCIe", "H100-PCIE", "H100"},
                 Case{"NVIDIA A100-SXM4-40GB", "A100-40", "A100"},
                 Case{"NVIDIA A100-SXM4-80GB", "A100", "A100"}}) {
    const GpuSpec* spec = find_gpu_spec(c.name);
    ASSERT_NE(spec, nullptr) << c.name;
    EXPECT_STREQ(spec->key, c.key) << c.name;
    EXPECT_EQ(gpu_model(*spec), c.model) << c.name;
  }
}

TEST(GpuSpecs, RowsKnownByPciIdOnlyHaveNoGenerationAndNoPricingFigures) {
  for (const GpuSpec& s : gpu_spec_table()) {
    if (is_priced(s)) continue;
    EXPECT_FALSE(generation_of_sm(s.sm).has_value()) << s.key;
    EXPECT_FALSE(s.pci_ids.empty()) << s.key;
    EXPECT_EQ(s.memory_gib, 0) << s.key;
    EXPECT_EQ(s.bf16_tflops, 0) << s.key;
    EXPECT_EQ(s.hbm_gbs, 0) << s.key;
    EXPECT_STREQ(s.log_cluster, "") << s.key;
    EXPECT_GT(std::string(s.source).size(), 20u) << s.key;
  }
  const GpuSpec& last = gpu_spec_table().back();  // Its own key finds no row to price.
  EXPECT_FALSE(is_priced(last));
  EXPECT_EQ(find_gpu_spec(last.key), nullptr);
  EXPECT_TRUE(is_priced(*find_gpu_spec("H100")));
}

TEST(GpuSpecs, EveryPricedRowHasItsFiguresAndASource) {
  for (const GpuSpec& s : gpu_spec_table()) {
    if (!is_priced(s)) continue;
    EXPECT_FALSE(s.name_parts.empty()) << s.key;
    EXPECT_GT(s.memory_gib, 0) << s.key;
    EXPECT_GT(s.bf16_tflops, 0) << s.key;
    EXPECT_GT(s.hbm_gbs, 0) << s.key;
    EXPECT_GE(s.nvlink_domain, 1) << s.key;
    EXPECT_GT(std::string(s.source).size(), 20u) << s.key;
    EXPECT_FALSE(s.name_parts.empty()) << s.key;
    EXPECT_EQ(generation_of_sm(s.sm), s.generation) << s.key;
    bool blackwell =
        s.generation == GpuGeneration::kBlackwell || s.generation == GpuGeneration::kBlackwellUltra;
    if (blackwell) {
      EXPECT_GT(s.fp4_tflops, s.fp8_tflops) << s.key;
    } else {
      EXPECT_EQ(s.fp4_tflops, 0) << s.key;
    }
  }
  EXPECT_EQ(generation_of_sm(90), GpuGeneration::kHopper);
  EXPECT_EQ(generation_of_sm(103), GpuGeneration::kBlackwellUltra);
  EXPECT_FALSE(generation_of_sm(70).has_value());
  EXPECT_EQ(parse_generation("blackwell_ultra"), GpuGeneration::kBlackwellUltra);
  EXPECT_FALSE(parse_generation("volta").has_value());
}

TEST(GpuSpecs, NvlinkPerGpuIsLinksTimesTheRatePerLink) {
  for (const GpuSpec& s : gpu_spec_table()) {
    EXPECT_DOUBLE_EQ(s.nvlink_gbs, s.nvlink_links * s.nvlink_link_gbs) << s.key;
    bool has_nvlink = s.nvlink_links > 0;
    if (has_nvlink) {
      EXPECT_DOUBLE_EQ(s.nvlink_link_gbs, nvlink_link_gbs_of_sm(s.sm)) << s.key;
    }
    if (is_priced(s)) {
      EXPECT_EQ(has_nvlink, s.nvlink_domain > 1) << s.key;
    }
  }
}

TEST(GpuSpecs, NvlinkRatePerLinkFollowsTheNvlinkGenerationOfTheSm) {
  EXPECT_EQ(nvlink_link_gbs_of_sm(0), 0);
  EXPECT_EQ(nvlink_link_gbs_of_sm(-1), 0);
  EXPECT_EQ(nvlink_link_gbs_of_sm(52), 20);  // Older than every NVLink device: NVLink 1's rate.
  EXPECT_EQ(nvlink_link_gbs_of_sm(60), 20);  // P100, NVLink 1.
  EXPECT_EQ(nvlink_link_gbs_of_sm(70), 25);  // V100, NVLink 2.
  EXPECT_EQ(nvlink_link_gbs_of_sm(80), 25);  // A100, NVLink 3.
  EXPECT_EQ(nvlink_link_gbs_of_sm(86), 25);
  EXPECT_EQ(nvlink_link_gbs_of_sm(89), 25);
  EXPECT_EQ(nvlink_link_gbs_of_sm(90), 25);   // H100, NVLink 4.
  EXPECT_EQ(nvlink_link_gbs_of_sm(100), 50);  // B200, NVLink 5.
  EXPECT_EQ(nvlink_link_gbs_of_sm(103), 50);
  EXPECT_EQ(nvlink_link_gbs_of_sm(120), 50);
}

TEST(GpuSpecs, FindsGpusByPciDeviceId) {
  auto h100 = find_pci_gpu(0x2330);
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->name, "H100-SXM5-80GB");
  EXPECT_EQ(h100->sm, 90);
  auto b200 = find_pci_gpu(0x2901);
  ASSERT_TRUE(b200.has_value());
  EXPECT_EQ(b200->name, "B200");
  EXPECT_EQ(b200->sm, 100);
  auto v100 = find_pci_gpu(0x1db5);  // Not modelled, still named.
  ASSERT_TRUE(v100.has_value());
  EXPECT_EQ(v100->name, "V100-SXM2-32GB");
  EXPECT_EQ(v100->sm, 70);
  EXPECT_FALSE(find_pci_gpu(0).has_value());
  EXPECT_FALSE(find_pci_gpu(-1).has_value());
  EXPECT_FALSE(find_pci_gpu(0x1234).has_value());
  EXPECT_FALSE(find_pci_gpu(0x10de).has_value());  // NVIDIA's vendor id, not a device id.
}

TEST(GpuSpecs, EveryPciIdIsListedOnceAndNamesTheRowThatHoldsIt) {
  std::set<int> seen;
  for (const GpuSpec& s : gpu_spec_table()) {
    for (const GpuPciId& id : s.pci_ids) {
      EXPECT_TRUE(seen.insert(id.device_id).second) << id.name;
      EXPECT_EQ(find_pci_gpu(id.device_id)->sm, s.sm) << id.name;
      const GpuSpec* by_name = find_gpu_spec(id.name);
      if (!is_priced(s)) {
        EXPECT_EQ(by_name, nullptr) << id.name;  // Named by PCI id, not priced.
        continue;
      }
      ASSERT_NE(by_name, nullptr) << id.name;
      EXPECT_STREQ(by_name->key, s.key) << id.name;
    }
  }
  EXPECT_EQ(seen.size(), 21u);
}

/// Every GPU figure of a shipped profile either equals the table's or is omitted (0) and taken
/// from the table. A PCIe card's NVLink bridges are optional: a profile of such cards may say
/// "no NVLink" (rate 0, domain 1).
void expect_agrees_with_table(const ClusterProfile& p) {
  const GpuSpec* spec = find_gpu_spec(p.gpu_name);
  ASSERT_NE(spec, nullptr) << p.name << ": gpu_name '" << p.gpu_name << "'";
  auto agrees = [](double profile, double table) { return profile == 0 || profile == table; };
  EXPECT_TRUE(agrees(p.gpu_sm, spec->sm)) << p.name << ": gpu_sm " << p.gpu_sm;
  EXPECT_TRUE(agrees(p.gpu_memory_gib, spec->memory_gib)) << p.name << ": gpu_memory_gib";
  EXPECT_TRUE(agrees(p.bf16_dense_tflops, spec->bf16_tflops)) << p.name << ": bf16_dense_tflops";
  EXPECT_TRUE(agrees(p.fp8_dense_tflops, spec->fp8_tflops)) << p.name << ": fp8_dense_tflops";
  bool bridges_left_out =
      p.nvlink_gbps_per_gpu == 0 && p.nvlink_domain == 1 && spec->nvlink_domain <= 2;
  if (bridges_left_out) return;
  EXPECT_EQ(p.nvlink_gbps_per_gpu, spec->nvlink_gbs) << p.name << ": nvlink_gbps_per_gpu";
  EXPECT_EQ(p.nvlink_domain, spec->nvlink_domain) << p.name << ": nvlink_domain";
}

TEST(GpuSpecs, EveryShippedClusterProfileAgreesWithTheTable) {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(HCP_RECIPES_DIR) + "/clusters")) {
    if (entry.path().extension() != ".yaml") continue;
    auto profile = load_cluster_profile(entry.path().string());
    ASSERT_TRUE(profile.ok()) << entry.path();
    SCOPED_TRACE(entry.path().filename().string());
    expect_agrees_with_table(*profile);
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

TEST(GpuSpecs, TheProfileCheckLogAssumesPerModelIsShippedAndHoldsThatModel) {
  std::set<std::string> models_with_a_profile;
  for (const GpuSpec& s : gpu_spec_table()) {
    // Every variant of a model implies the profile its model's own row does.
    EXPECT_STREQ(s.log_cluster, find_gpu_spec(gpu_model(s)) != nullptr
                                    ? find_gpu_spec(gpu_model(s))->log_cluster
                                    : "")
        << s.key;
    if (*s.log_cluster == '\0') continue;
    models_with_a_profile.insert(gpu_model(s));
    auto profile = find_cluster_profile(s.log_cluster);
    ASSERT_TRUE(profile.ok()) << s.key << ": " << s.log_cluster;
    const GpuSpec* of_profile = find_gpu_spec(profile->gpu_name);
    ASSERT_NE(of_profile, nullptr) << s.log_cluster;
    EXPECT_EQ(gpu_model(*of_profile), gpu_model(s)) << s.key << ": " << s.log_cluster;
  }
  EXPECT_EQ(models_with_a_profile,
            (std::set<std::string>{"A100", "B200", "GB200", "H100", "H200"}));
}

}  // namespace
}  // namespace hcp
