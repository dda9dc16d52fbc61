// Tests of src/model/model_hardware.cpp: where each figure of a cluster profile comes from, and
// that a figure the profile leaves 0 or missing is never replaced silently (issue #29).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hcp/model.h"
#include "model_test_support.h"

namespace hcp {
namespace {

using testing::dgx_h100;
using testing::test_constants;

struct MissingFigure {
  const char* field;
  void (*clear)(ClusterProfile&);
  const char* used;  ///< The spec table's figure, as the announcement writes it.
  const char* where = "from GPU spec table H100: NVIDIA";  ///< Where it says the figure came from.
  const char* said = "0 or missing";                       ///< What it says of the field.
};

class ProfileSubstitution : public ::testing::TestWithParam<MissingFigure> {};

TEST_P(ProfileSubstitution, SaysWhichFigureWasUsedAndWhereItCameFrom) {
  ClusterProfile p = dgx_h100();
  GetParam().clear(p);
  Hardware hw = hardware_from_profile(p, test_constants());
  ASSERT_EQ(hw.substituted.size(), 1u);
  const std::string& note = hw.substituted[0];
  EXPECT_NE(note.find("cluster profile dgx-h100-test: " + std::string(GetParam().field) + " is " +
                      GetParam().said + ": used " + GetParam().used),
            std::string::npos)
      << note;
  EXPECT_NE(note.find(std::string(GetParam().where)), std::string::npos) << note;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ProfileSubstitution,
    ::testing::Values(
        MissingFigure{"bf16_dense_tflops", [](ClusterProfile& p) { p.bf16_dense_tflops = 0; },
                      "989 TFLOP/s"},
        MissingFigure{"gpu_memory_gib", [](ClusterProfile& p) { p.gpu_memory_gib = 0; }, "80 GiB"},
        // The generation picks the model's named constants.
        MissingFigure{"gpu_sm", [](ClusterProfile& p) { p.gpu_sm = 0; }, "generation hopper"},
        MissingFigure{"nvlink_domain", [](ClusterProfile& p) { p.nvlink_domain_given = false; },
                      "gpus_per_node (8 GPUs", "one node per NVLink domain",
                      "missing"}));  // the loader refuses 0 (cluster_test.cpp)

TEST(ProfileSubstitution, ACompleteProfileAnnouncesNothing) {
  EXPECT_TRUE(hardware_from_profile(dgx_h100(), test_constants()).substituted.empty());
}

TEST(ProfileSubstitution, AnUnknownGpuWithoutGpuSmSaysHopperIsAssumed) {
  ClusterProfile p = dgx_h100();
  p.gpu_name = "no-such-gpu";
  p.gpu_sm = 0;
  Hardware hw = hardware_from_profile(p, test_constants());
  ASSERT_EQ(hw.substituted.size(), 1u);
  EXPECT_NE(hw.substituted[0].find("gpu_sm is 0 or missing: used generation hopper assumed (no "
                                   "GPU spec for 'no-such-gpu'"),
            std::string::npos)
      << hw.substituted[0];
}

// Issue #29: fp8_dense_tflops 0 or missing was filled from the GPU spec table unannounced. It is
// announced where a run computes in FP8 (GEMMs or attention); a BF16 run never reads it.
TEST(ProfileSubstitution, TheFp8PeakIsAnnouncedWhereARunComputesInFp8) {
  ClusterProfile p = dgx_h100();  // no fp8_dense_tflops; its BF16 figure is 989.4, the table's 989
  Hardware hw = hardware_from_profile(p, test_constants());
  const GpuSpec* spec = find_gpu_spec(p.gpu_name);
  ASSERT_NE(spec, nullptr);
  EXPECT_NEAR(hw.fp8_tflops, spec->fp8_tflops * 989.4 / 989, 1e-9);
  TrainingSetup bf16;
  EXPECT_TRUE(substitutions_used(hw, bf16).empty());
  TrainingSetup fp8_gemms;
  fp8_gemms.precision = Precision::kFp8Current;
  TrainingSetup fp8_attention;
  fp8_attention.fp8_attention = true;
  for (const TrainingSetup& setup : {fp8_gemms, fp8_attention}) {
    std::vector<std::string> notes = substitutions_used(hw, setup);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("cluster profile dgx-h100-test: fp8_dense_tflops is 0 or missing: "
                            "used 1979"),
              std::string::npos)
        << notes[0];
    EXPECT_NE(notes[0].find("from GPU spec table H100"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("x the profile's bf16_dense_tflops 989.4 / the table's 989"),
              std::string::npos)
        << notes[0];
  }
  // Given, it is used as given and nothing is said.
  p.fp8_dense_tflops = 1800;
  Hardware given = hardware_from_profile(p, test_constants());
  EXPECT_EQ(given.fp8_tflops, 1800);
  EXPECT_TRUE(substitutions_used(given, fp8_gemms).empty());
  // A GPU without an FP8 path (A100) says FP8 runs at the BF16 rate.
  p.gpu_name = "A100-SXM4-80GB";
  p.gpu_sm = 80;
  p.bf16_dense_tflops = 312;
  p.fp8_dense_tflops = 0;
  std::vector<std::string> a100 =
      substitutions_used(hardware_from_profile(p, test_constants()), fp8_gemms);
  ASSERT_EQ(a100.size(), 1u);
  EXPECT_NE(a100[0].find("used 0 TFLOP/s"), std::string::npos) << a100[0];
  EXPECT_NE(a100[0].find("(no FP8 path: FP8 runs at the BF16 rate)"), std::string::npos) << a100[0];
}

TEST(ProfileSubstitution, AnUnknownGpuHasNothingToSubstitute) {
  ClusterProfile p = dgx_h100();
  p.gpu_name = "no-such-gpu";
  p.bf16_dense_tflops = 0;
  Hardware hw = hardware_from_profile(p, test_constants());
  EXPECT_TRUE(hw.substituted.empty());
  EXPECT_EQ(hw.peak_tflops, 0);  // planner/inputs.cpp missing_figure() makes it an error.
}

}  // namespace
}  // namespace hcp
