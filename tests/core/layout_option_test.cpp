// Tests for the --option parser shared by bench and compare.
#include "hcp/layout_option.h"

#include <gtest/gtest.h>

namespace hcp {
namespace {

TEST(LayoutOption, ParsesTheSeedExample) {
  auto o = parse_layout_option("tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2");
  ASSERT_TRUE(o) << o.error().str();
  EXPECT_EQ(o->layout.tp, 1);
  EXPECT_EQ(o->layout.cp, 16);
  EXPECT_EQ(o->layout.comm, CpCommType::kA2aP2p);
  EXPECT_EQ(o->layout.hcp, (std::vector<int64_t>{8, 2}));
  EXPECT_TRUE(o->has(LayoutField::kTp));
  EXPECT_TRUE(o->has(LayoutField::kCpCommType));
  EXPECT_FALSE(o->has(LayoutField::kPp));
  EXPECT_EQ(o->given.count(), 4u);
  EXPECT_EQ(layout_option_text(*o), "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2");
}

TEST(LayoutOption, AcceptsBracketListsAndSpaces) {
  auto o = parse_layout_option(" cp = 8 , hcp=[4, 2], pp=2,dp=3,ep=2,etp=1 ");
  ASSERT_TRUE(o) << o.error().str();
  EXPECT_EQ(o->layout.hcp, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(o->layout.pp, 2);
  EXPECT_EQ(o->layout.dp, 3);
  EXPECT_EQ(o->layout.ep, 2);
  EXPECT_EQ(o->layout.etp, 1);
  EXPECT_FALSE(o->has(LayoutField::kTp));
  EXPECT_EQ(layout_option_text(*o), "cp=8,pp=2,ep=2,etp=1,dp=3,hcp=4x2");
}

TEST(LayoutOption, KeysNotGivenKeepTheLayoutDefaults) {
  auto o = parse_layout_option("vp=4");
  ASSERT_TRUE(o) << o.error().str();
  EXPECT_EQ(o->layout.vpp, 4);
  EXPECT_FALSE(o->layout.etp.has_value());  // not given: follows TP
  EXPECT_EQ(o->layout.tp, 1);
  EXPECT_EQ(layout_option_text(*o), "vp=4");
}

struct BadOption {
  const char* text;
  const char* message_part;
  const char* key;
};

class LayoutOptionBad : public ::testing::TestWithParam<BadOption> {};

TEST_P(LayoutOptionBad, IsAnErrorValueNamingTheProblem) {
  auto o = parse_layout_option(GetParam().text);
  ASSERT_FALSE(o) << GetParam().text;
  EXPECT_NE(o.error().message.find(GetParam().message_part), std::string::npos)
      << o.error().message;
  EXPECT_EQ(o.error().key, GetParam().key);
}

INSTANTIATE_TEST_SUITE_P(
    All, LayoutOptionBad,
    ::testing::Values(
        BadOption{"", "empty option", ""}, BadOption{"tp2", "expected key=value", ""},
        BadOption{"tpp=2", "did you mean 'tp'", "tpp"}, BadOption{"tp=2,tp=4", "given twice", "tp"},
        BadOption{"cp=abc", "positive integer", "cp"}, BadOption{"cp=0", "must be positive", "cp"},
        BadOption{"cp=-2", "must be positive", "cp"}, BadOption{"cp=4x", "positive integer", "cp"},
        BadOption{"cp_comm_type=ring", "unknown cp_comm_type", "cp_comm_type"},
        BadOption{"cp=16,hcp=8x4", "prod(hcp)=32 != cp=16", "hcp"},
        BadOption{"hcp=[8,2", "unbalanced '['", ""},
        BadOption{"hcp=8", "at least two sizes", "hcp"},
        BadOption{"hcp=[8,x]", "positive integer", "hcp"}));

}  // namespace
}  // namespace hcp
