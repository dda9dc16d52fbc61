// Tests for the one parallel-layout type: what "unset" means for ETP and VPP, DP, hcp, labels.
#include "hcp/parallel_layout.h"

#include <gtest/gtest.h>

namespace hcp {
namespace {

TEST(Layout, EtpUnsetFollowsTp) {
  Layout l;
  l.tp = 4;
  EXPECT_EQ(l.expert_tp(), 4);
  l.etp = 1;
  EXPECT_EQ(l.expert_tp(), 1);
}

TEST(Layout, VppUnsetMeansOneVirtualStage) {
  Layout l;
  l.pp = 4;
  EXPECT_EQ(l.virtual_stages(), 1);
  l.vpp = 5;
  EXPECT_EQ(l.virtual_stages(), 5);
  l.vpp = 0;  // below 1: no interleaving
  EXPECT_EQ(l.virtual_stages(), 1);
}

TEST(Layout, DataParallelSizeIsTheWorldOverTheModelParallelSizes) {
  Layout l;
  l.tp = 2;
  l.cp = 4;
  l.pp = 2;
  EXPECT_EQ(data_parallel_size(l, 64), 4);
  EXPECT_EQ(data_parallel_size(l, 16), 1);
  EXPECT_FALSE(data_parallel_size(l, 24).has_value());  // 16 does not divide 24
  l.tp = 0;
  EXPECT_FALSE(data_parallel_size(l, 64).has_value());
}

TEST(Layout, HcpSizesOnlyWithA2aP2p) {
  Layout l;
  l.cp = 16;
  l.hcp = {8, 2};
  EXPECT_TRUE(l.hcp_sizes().empty());  // p2p
  l.comm = CpCommType::kA2aP2p;
  EXPECT_EQ(l.hcp_sizes(), (std::vector<int64_t>{8, 2}));
  l.hcp.clear();
  EXPECT_EQ(l.hcp_sizes(), (std::vector<int64_t>{1, 1}));
  l.comm = CpCommType::kP2p;
  l.windowed_comm = CpCommType::kA2aP2p;
  EXPECT_TRUE(l.uses(CpCommType::kA2aP2p));
  EXPECT_EQ(l.hcp_sizes(), (std::vector<int64_t>{1, 1}));
}

TEST(Layout, CpExchangesAreTheLayersTypesEachOnceAndNoneWithoutCp) {
  using T = CpCommType;
  Layout l;
  EXPECT_TRUE(l.cp_exchanges().empty());  // CP 1
  l.cp = 4;
  EXPECT_EQ(l.cp_exchanges(), (std::vector<T>{T::kP2p}));
  l.comm = T::kA2aP2p;
  l.windowed_comm = T::kAllGather;
  EXPECT_EQ(l.cp_exchanges(), (std::vector<T>{T::kA2aP2p, T::kAllGather}));
  l.windowed_comm = T::kA2aP2p;
  EXPECT_EQ(l.cp_exchanges(), (std::vector<T>{T::kA2aP2p}));
}

TEST(Layout, Label) {
  Layout l;
  l.cp = 16;
  l.dp = 2;
  l.comm = CpCommType::kA2aP2p;
  l.hcp = {8, 2};
  EXPECT_EQ(l.label(), "TP1 CP16 a2a+p2p [8,2] DP2");
  Layout p;
  p.pp = 4;
  p.vpp = 5;
  p.ep = 8;
  p.cp = 2;
  p.windowed_comm = CpCommType::kA2a;
  EXPECT_EQ(p.label(), "TP1 CP2 PP4 VP5 EP8 p2p (windowed: a2a) DP1");
  // Without CP no attention data moves: no comm type is named, whatever the field holds.
  Layout no_cp;
  no_cp.tp = 8;
  no_cp.dp = 4;
  no_cp.comm = CpCommType::kAllGather;
  EXPECT_EQ(no_cp.label(), "TP8 CP1 DP4");
}

}  // namespace
}  // namespace hcp
