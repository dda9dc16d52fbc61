// CPU simulation of CP attention: every comm type reproduces full attention, the byte counts
// equal the cp_volume formulas, and --local-only does not reproduce it.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "hcp/sim.h"

namespace hcp {
namespace {

struct SimCase {
  CpCommType type;
  int64_t cp;
  std::vector<int64_t> hcp;
  int64_t heads;
  int64_t kv_heads;
  bool causal;
};

void PrintTo(const SimCase& c, std::ostream* os) {
  *os << cp_comm_type_name(c.type) << " cp=" << c.cp << " heads=" << c.heads
      << " kv_heads=" << c.kv_heads << (c.causal ? " causal" : "");
}

std::string case_name(const ::testing::TestParamInfo<SimCase>& info) {
  const SimCase& c = info.param;
  std::string name = cp_comm_type_name(c.type);
  for (char& ch : name) {
    if (ch == '+') ch = '_';
  }
  name += "_cp" + std::to_string(c.cp) + "_h" + std::to_string(c.heads) + "kv" +
          std::to_string(c.kv_heads) + (c.causal ? "_causal" : "_full");
  return name;
}

CpSimOptions options_of(const SimCase& c) {
  CpSimOptions o;
  // 128 tokens: CP 8 still gets 2 * 8 load-balancing chunks of 8 tokens. A head dim of 8: the
  // passes cost in proportion to it, and no step of the schedule depends on it.
  o.shape = {128, c.heads, c.kv_heads, 8, c.causal};
  o.cp = c.cp;
  o.comm_type = c.type;
  o.hcp = c.hcp;
  o.seed = 7;
  o.tile = 8;  // several tiles per received block (at least 128 / 8 = 16 tokens)
  return o;
}

class CpSim : public ::testing::TestWithParam<SimCase> {};

TEST_P(CpSim, MatchesFullAttentionAndTheVolumeFormula) {
  auto r = simulate_cp_attention(options_of(GetParam()));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_LT(r->max_abs_error, 1e-3);
  EXPECT_LT(r->blocked_max_abs_error, 1e-3);
  EXPECT_TRUE(r->bytes_match_formula);
  ASSERT_EQ(r->comm_bytes_per_rank.size(), static_cast<size_t>(GetParam().cp));
  for (int64_t bytes : r->comm_bytes_per_rank) {
    EXPECT_EQ(bytes, r->formula.forward_bytes());
    EXPECT_GT(bytes, 0);
  }
}

TEST_P(CpSim, LocalOnlyIsWrong) {
  CpSimOptions o = options_of(GetParam());
  o.local_only = true;
  auto r = simulate_cp_attention(o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_GT(r->max_abs_error, 1e-2);
  for (int64_t bytes : r->comm_bytes_per_rank)
    EXPECT_EQ(bytes, 0);
  EXPECT_FALSE(r->bytes_match_formula);
}

INSTANTIATE_TEST_SUITE_P(AllCommTypes, CpSim,
                         ::testing::Values(SimCase{CpCommType::kP2p, 4, {}, 4, 4, true},
                                           SimCase{CpCommType::kP2p, 4, {}, 4, 1, false},
                                           SimCase{CpCommType::kP2p, 2, {}, 8, 2, true},
                                           SimCase{CpCommType::kAllGather, 4, {}, 4, 2, true},
                                           SimCase{CpCommType::kAllGather, 4, {}, 4, 4, false},
                                           SimCase{CpCommType::kA2a, 4, {}, 8, 4, true},
                                           SimCase{CpCommType::kA2a, 2, {}, 4, 2, false},
                                           SimCase{CpCommType::kA2aP2p, 4, {2, 2}, 4, 2, true},
                                           SimCase{CpCommType::kA2aP2p, 8, {2, 4}, 4, 2, true},
                                           SimCase{CpCommType::kA2aP2p, 8, {4, 2}, 8, 4, false}),
                         case_name);

TEST(CpSimBytes, CountsScaleAsTheFormulaSays) {
  // p2p: doubling cp at fixed S keeps ring bytes about constant ((c-1)/c); a2a shrinks as 1/c.
  CpSimOptions o;
  o.shape = {64, 8, 8, 16,
             true};  // a short S: the byte counts scale the same, the passes cost less
  o.comm_type = CpCommType::kP2p;
  o.cp = 2;
  auto p2 = simulate_cp_attention(o);
  o.cp = 4;
  auto p4 = simulate_cp_attention(o);
  ASSERT_TRUE(p2 && p4);
  // KV_loc = 2 * (S/c) * kv_heads * d * 2 bytes; (c-1) steps.
  EXPECT_EQ(p2->comm_bytes_per_rank[0], 1 * 2 * (64 / 2) * 8 * 16 * 2);
  EXPECT_EQ(p4->comm_bytes_per_rank[0], 3 * 2 * (64 / 4) * 8 * 16 * 2);
}

TEST(CpSimChunks, UseMegatronLoadBalancing) {
  CpSimOptions o;
  o.shape = {64, 2, 2, 8, true};
  o.cp = 4;
  auto r = simulate_cp_attention(o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rank_chunks[0], (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(r->rank_chunks[3], (std::vector<int64_t>{3, 4}));
}

TEST(CpSimGroups, HierarchicalGroupsMatchMegatron) {
  CpSimOptions o;
  o.shape = {128, 4, 4, 8, true};
  o.cp = 8;
  o.comm_type = CpCommType::kA2aP2p;
  o.hcp = {4, 2};
  auto r = simulate_cp_attention(o);
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->hcp_groups.size(), 2u);
  // oracle_groups.py --config '{"world_size":8,"cp":8,"hcp":[4,2]}'
  EXPECT_EQ(r->hcp_groups[0], (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(r->hcp_groups[1], (std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(CpSimErrors, RejectsInvalidLayouts) {
  CpSimOptions o;
  o.shape = {256, 4, 2, 16, true};
  o.cp = 4;
  o.comm_type = CpCommType::kA2a;  // 2 KV heads cannot scatter over 4 ranks
  EXPECT_FALSE(simulate_cp_attention(o));
  o.comm_type = CpCommType::kA2aP2p;  // no hcp
  auto r = simulate_cp_attention(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--hcp"), std::string::npos);
  o.hcp = {2, 4};  // 8 != 4
  EXPECT_FALSE(simulate_cp_attention(o));
  o.comm_type = CpCommType::kP2p;
  o.hcp = {2, 2};  // hcp with p2p
  EXPECT_FALSE(simulate_cp_attention(o));
  o.hcp.clear();
  o.shape.seq_length = 250;  // not divisible by 2*cp
  EXPECT_FALSE(simulate_cp_attention(o));
  o.shape.seq_length = 0;
  EXPECT_FALSE(simulate_cp_attention(o));
  o.shape = {256, 4, 3, 16, true};  // 3 does not divide 4
  EXPECT_FALSE(simulate_cp_attention(o));
}

TEST(CpSimErrors, RejectsARunLongerThanTheWorkLimit) {
  CpSimOptions o;
  o.cp = 8;
  o.shape = {65536, 64, 64, 256, false};  // inside the size limits, about 117 h
  ASSERT_GT(simulation_multiply_adds(o.shape), kMaxSimulationMultiplyAdds);
  auto r = simulate_cp_attention(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("simulation too long for the CPU"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(check_simulation(o));
  o.shape = {1024, 8, 8, 64, false};  // the size the CLI's speed estimate was measured on
  EXPECT_TRUE(check_simulation(o));
}

TEST(CpSimTile, ATileLongerThanTheSequenceIsOneTileOfEveryKey) {
  // Clamped to the sequence: --tile 2^40 once sized its buffers by the tile (terabytes).
  CpSimOptions o;
  o.shape = {64, 2, 2, 8, true};
  o.cp = 4;
  o.comm_type = CpCommType::kAllGather;
  o.tile = 64;
  auto whole = simulate_cp_attention(o);
  o.tile = int64_t{1} << 40;
  auto huge = simulate_cp_attention(o);
  ASSERT_TRUE(whole && huge);
  EXPECT_EQ(huge->max_abs_error, whole->max_abs_error);
  EXPECT_EQ(huge->comm_bytes_per_rank, whole->comm_bytes_per_rank);
}

TEST(BlockedAttention, TileSizeDoesNotChangeTheResult) {
  AttentionShape shape{96, 2, 1, 16, true};
  auto in = random_attention_inputs(shape, 3);
  Tensor ref = reference_attention(in, true);
  for (int64_t tile : {1, 7, 32, 96, 200}) {
    EXPECT_LT(max_abs_difference(blocked_attention(in, true, tile), ref), 1e-5) << tile;
  }
  // A different mask gives a clearly different answer (the check can fail).
  EXPECT_GT(max_abs_difference(blocked_attention(in, false, 16), ref), 1e-2);
}

TEST(RandomInputs, AreReproducible) {
  AttentionShape shape{8, 2, 2, 4, false};
  auto a = random_attention_inputs(shape, 42);
  auto b = random_attention_inputs(shape, 42);
  auto c = random_attention_inputs(shape, 43);
  EXPECT_EQ(a.q.data, b.q.data);
  EXPECT_NE(a.q.data, c.q.data);
}

TEST(CpSimWork, MultiplyAddsGrowWithTheSquareOfTheLengthAndHalveWhenCausal) {
  AttentionShape full{1024, 8, 8, 64, false};
  AttentionShape twice{2048, 8, 8, 64, false};
  AttentionShape causal{1024, 8, 8, 64, true};
  EXPECT_DOUBLE_EQ(simulation_multiply_adds(full), 3.0 * 2 * 1024 * 1024 * 8 * 64);
  EXPECT_DOUBLE_EQ(simulation_multiply_adds(twice), 4 * simulation_multiply_adds(full));
  EXPECT_DOUBLE_EQ(simulation_multiply_adds(causal), 3.0 * 2 * 1024 * 512.5 * 8 * 64);
}

TEST(CpSimWork, ProgressIsToldBeforeEachPassAndAtTheEnd) {
  CpSimOptions o;
  o.shape = {64, 2, 2, 8, true};
  o.cp = 2;
  std::vector<std::pair<int, int>> calls;
  o.progress = [&calls](int done, int total) { calls.emplace_back(done, total); };
  ASSERT_TRUE(simulate_cp_attention(o));
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{0, 3}, {1, 3}, {2, 3}, {3, 3}}));
}

}  // namespace
}  // namespace hcp
