// Tests of src/model/model_hardware.cpp: where each figure of a cluster profile comes from, and
// that a figure the profile leaves 0 or missing is never replaced silently (issue #29).
#include <gtest/gtest.h>

#include <string>

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
};

class ProfileSubstitution : public ::testing::TestWithParam<MissingFigure> {};

TEST_P(ProfileSubstitution, SaysWhichFigureWasUsedAndWhereItCameFrom) {
  ClusterProfile p = dgx_h100();
  GetParam().clear(p);
  Hardware hw = hardware_from_profile(p, test_constants());
  ASSERT_EQ(hw.substituted.size(), 1u);
  const std::string& note = hw.substituted[0];
  EXPECT_NE(note.find("cluster profile dgx-h100-test: " + std::string(GetParam().field) +
                      " is 0 or missing: used " + GetParam().used),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("from GPU spec table H100: NVIDIA"), std::string::npos) << note;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ProfileSubstitution,
    ::testing::Values(MissingFigure{"bf16_dense_tflops",
                                    [](ClusterProfile& p) { p.bf16_dense_tflops = 0; },
                                    "989 TFLOP/s"},
                      MissingFigure{"gpu_memory_gib",
                                    [](ClusterProfile& p) { p.gpu_memory_gib = 0; }, "80 GiB"}));

TEST(ProfileSubstitution, ACompleteProfileAnnouncesNothing) {
  EXPECT_TRUE(hardware_from_profile(dgx_h100(), test_constants()).substituted.empty());
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
