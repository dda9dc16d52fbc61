// Tests for the per-comm-type CP volume formulas (planner_anchors.md §1.2).
#include "hcp/cp_volume.h"

#include <gtest/gtest.h>

namespace hcp {
namespace {

// Llama-3-8B-like attention: 32 query heads, 8 KV heads, head dim 128, bf16.
CpVolumeInput llama8b(CpCommType type, int64_t cp) {
  CpVolumeInput in;
  in.seq_length = 131072;
  in.heads = 32;
  in.kv_heads = 8;
  in.head_dim = 128;
  in.cp = cp;
  in.comm_type = type;
  return in;
}

TEST(CpVolume, P2pMatchesClosedFormOfTheTable) {
  auto v = cp_volume(llama8b(CpCommType::kP2p, 16));
  ASSERT_TRUE(v) << v.error().str();
  // Table: fwd+bwd = 6(c-1) b (s/c) (n_kv/t) d B.
  double expected = 6.0 * 15 * (131072.0 / 16) * 8 * 128 * 2;
  EXPECT_EQ(static_cast<double>(v->total_bytes()), expected);
  EXPECT_EQ(v->forward_bytes() * 3, v->total_bytes());
  EXPECT_EQ(v->ring_steps, 15);
  EXPECT_EQ(v->ring_step_bytes, v->kv_local_bytes);
  EXPECT_EQ(v->a2a_forward_bytes, 0);
  EXPECT_TRUE(v->ring_overlaps_compute);
}

TEST(CpVolume, AllGatherMovesTheSameBytesAsP2pButIsNotOverlapped) {
  auto p2p = cp_volume(llama8b(CpCommType::kP2p, 8));
  auto ag = cp_volume(llama8b(CpCommType::kAllGather, 8));
  ASSERT_TRUE(p2p && ag);
  EXPECT_EQ(p2p->total_bytes(), ag->total_bytes());
  EXPECT_FALSE(ag->ring_overlaps_compute);
}

TEST(CpVolume, A2aMatchesClosedFormAndShrinksWithCp) {
  auto v = cp_volume(llama8b(CpCommType::kA2a, 8));
  ASSERT_TRUE(v) << v.error().str();
  // Table: fwd+bwd = 4 ((c-1)/c) b (s/c) ((n_q+n_kv)/t) d B.
  double expected = 4.0 * (7.0 / 8) * (131072.0 / 8) * (32 + 8) * 128 * 2;
  EXPECT_EQ(static_cast<double>(v->total_bytes()), expected);
  EXPECT_EQ(v->ring_forward_bytes, 0);
  EXPECT_EQ(v->a2a_group_size, 8);
  auto v4 = cp_volume(llama8b(CpCommType::kA2a, 4));
  ASSERT_TRUE(v4);
  EXPECT_GT(v4->total_bytes(), v->total_bytes());
}

TEST(CpVolume, HierarchicalIsA2aOverAPlusRingOverP) {
  CpVolumeInput in = llama8b(CpCommType::kA2aP2p, 16);
  in.hcp_a2a = 8;
  in.hcp_p2p = 2;
  auto v = cp_volume(in);
  ASSERT_TRUE(v) << v.error().str();
  double q_loc = (131072.0 / 16) * 32 * 128 * 2;
  double k_loc = (131072.0 / 16) * 8 * 128 * 2;
  double expected = 4.0 * (7.0 / 8) * (q_loc + k_loc) + 3.0 * 1 * 2 * k_loc;
  EXPECT_EQ(static_cast<double>(v->total_bytes()), expected);
  EXPECT_EQ(v->ring_steps, 1);
  EXPECT_EQ(v->ring_group_size, 2);
}

TEST(CpVolume, TensorParallelSplitsHeads) {
  CpVolumeInput in = llama8b(CpCommType::kP2p, 4);
  auto t1 = cp_volume(in);
  in.tp = 2;
  auto t2 = cp_volume(in);
  ASSERT_TRUE(t1 && t2);
  EXPECT_EQ(t1->total_bytes(), 2 * t2->total_bytes());
}

TEST(CpVolume, CpOfOneSendsNothing) {
  auto v = cp_volume(llama8b(CpCommType::kP2p, 1));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->total_bytes(), 0);
}

TEST(CpVolume, RejectsBadShapes) {
  CpVolumeInput in = llama8b(CpCommType::kA2a, 16);  // 8 KV heads cannot scatter over 16.
  auto v = cp_volume(in);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("divisible by 16"), std::string::npos);

  in = llama8b(CpCommType::kP2p, 16);
  in.seq_length = 1000;  // not divisible by 2*cp = 32
  EXPECT_FALSE(cp_volume(in));

  in = llama8b(CpCommType::kA2aP2p, 16);
  in.hcp_a2a = 4;
  in.hcp_p2p = 2;  // 4*2 != 16
  v = cp_volume(in);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("a*p == cp"), std::string::npos);

  in = llama8b(CpCommType::kP2p, 4);
  in.kv_heads = 5;  // does not divide 32
  EXPECT_FALSE(cp_volume(in));
  in.kv_heads = 0;
  EXPECT_FALSE(cp_volume(in));
}

TEST(CpCommTypeNames, RoundTripAndRejectUnknown) {
  for (auto t : {CpCommType::kP2p, CpCommType::kAllGather, CpCommType::kA2a, CpCommType::kA2aP2p}) {
    auto parsed = parse_cp_comm_type(cp_comm_type_name(t));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, t);
  }
  auto bad = parse_cp_comm_type("ring");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("a2a+p2p"), std::string::npos);
}

}  // namespace
}  // namespace hcp
