// Cost and memory model: the seed's decision example, overlap, placement, memory terms,
// calibration, recompute, sliding windows and bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "hcp/model.h"
#include "model_test_support.h"

namespace hcp {
namespace {

using testing::dgx_h100;
using testing::llama3_8b;
using testing::option_a;
using testing::option_b;
using testing::option_c;
using testing::test_constants;

constexpr double kGB = 1e9;

TrainingSetup setup_with_batch(int64_t global_batch, Recompute recompute = Recompute::kNone) {
  TrainingSetup s;
  s.global_batch = global_batch;
  s.recompute = recompute;
  return s;
}

Estimate must_estimate(const ModelDims& m, const Layout& l, const Hardware& hw,
                       const TrainingSetup& s) {
  auto e = estimate(m, l, hw, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? *e : Estimate{};
}

TEST(ModelSeed, OptionsAAndBWithinFifteenPercentAt128K) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  auto s = setup_with_batch(8, Recompute::kFull);
  Estimate a = must_estimate(m, option_a(), hw, s);
  Estimate b = must_estimate(m, option_b(), hw, s);
  double ratio = a.time.step_s / b.time.step_s;
  EXPECT_GT(ratio, 1 / 1.15);
  EXPECT_LT(ratio, 1.15);
  // Equal global batch and sequence: per-GPU FLOPs are identical, only comm differs.
  EXPECT_NEAR(a.time.gemm_s / b.time.gemm_s, 1.0, 1e-9);
}

TEST(ModelSeed, FlatRingHidesIbTransferAt128K) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  Estimate c = must_estimate(llama3_8b(131072), option_c(), hw, setup_with_batch(8));
  EXPECT_FALSE(c.placement.cp_inside_domain);  // the ring leaves the node
  EXPECT_EQ(c.time.ring_steps, 15);
  // 8K-token step: about 1 ms of attention vs 33.6 MB over 48 GB/s ≈ 0.7 ms (planner_anchors §2).
  EXPECT_GT(c.time.ring_step_compute_s, c.time.ring_step_transfer_s);
  EXPECT_NEAR(c.time.ring_step_transfer_s, 33554432.0 / (hw.nic_gbs * kGB) + hw.nic_latency_s,
              1e-9);
  EXPECT_DOUBLE_EQ(c.time.cp_ring_exposed_s, 0.0);
  EXPECT_GT(c.time.cp_ring_hidden_s, 0.0);
}

TEST(ModelSeed, FlatRingFallsBehindHierarchicalAt32K) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(32768);
  auto s = setup_with_batch(8);
  Estimate a = must_estimate(m, option_a(), hw, s);
  Estimate c = must_estimate(m, option_c(), hw, s);
  // s/c = 2K tokens: the step's attention no longer covers the IB transfer.
  EXPECT_LT(c.time.ring_step_compute_s, c.time.ring_step_transfer_s);
  EXPECT_GT(c.time.cp_ring_exposed_s, 0.0);
  EXPECT_DOUBLE_EQ(a.time.cp_ring_exposed_s, 0.0);
  EXPECT_GT(c.time.step_s, a.time.step_s * 1.05);
}

TEST(ModelPlacement, SeedOptionsUseTheExpectedLinks) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  Estimate a = must_estimate(m, option_a(), hw, setup_with_batch(8));
  EXPECT_TRUE(a.placement.hcp_a2a_inside_domain);    // a2a over 8 consecutive GPUs
  EXPECT_FALSE(a.placement.hcp_ring_inside_domain);  // ring [r, r+8] crosses nodes
  Estimate b = must_estimate(m, option_b(), hw, setup_with_batch(8));
  EXPECT_TRUE(b.placement.tp_inside_domain);
  EXPECT_TRUE(b.placement.cp_inside_domain);  // TP2 x CP4 = one node
  EXPECT_GT(b.time.cp_a2a_s, 0.0);
  EXPECT_GT(b.time.tp_comm_s, 0.0);
  EXPECT_DOUBLE_EQ(b.time.cp_ring_exposed_s, 0.0);
}

TEST(ModelPlacement, A2aAcrossNodesGoesPartlyOverIb) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  m.kv_heads = 32;             // MHA, so that TP4 x CP4 a2a splits heads exactly
  Layout inside = option_b();  // TP2 x CP4 inside one node
  Layout across = option_b();  // TP4 x CP4: the CP group spans two nodes
  across.tp = 4;
  across.dp = 2;
  Estimate e_in = must_estimate(m, inside, hw, setup_with_batch(8));
  Estimate e_across = must_estimate(m, across, hw, setup_with_batch(8));
  EXPECT_TRUE(e_in.placement.cp_inside_domain);
  EXPECT_DOUBLE_EQ(e_in.placement.cp_offdomain_fraction, 0.0);
  EXPECT_FALSE(e_across.placement.cp_inside_domain);
  EXPECT_DOUBLE_EQ(e_across.placement.cp_offdomain_fraction, 0.5);
  // Half the bytes over a NIC 8x slower than NVLink outweighs the halved head count per rank.
  EXPECT_GT(e_across.time.cp_a2a_s, e_in.time.cp_a2a_s);
}

TEST(ModelMemory, SeedMemoryMatchesTheAnchorCounts) {
  // planner_anchors.md §2: A static 51.2 GB, activations 36.5 GB, logits 6.3 GB; B 27.1 / 73.0 /
  // 12.6 GB (distributed optimizer, 34h bytes/token/layer, no recompute). The model counts each
  // saved tensor (two LN inputs 4h, QKV input 2h, Q 2h, K V h, the attention output 2h, which in
  // BF16 is also the O-projection's input, FC1 input 2h, FC1 output 14h and FC2 input 7h: 34h
  // for Llama-3-8B in BF16), and the fused cross entropy keeps bf16 logits and their gradient
  // (4 bytes, not 6).
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  Estimate a = must_estimate(m, option_a(), hw, setup_with_batch(8));
  Estimate b = must_estimate(m, option_b(), hw, setup_with_batch(8));
  auto statics = [](const Estimate& e) {
    return (e.memory.weights + e.memory.gradients + e.memory.optimizer) / kGB;
  };
  EXPECT_NEAR(statics(a), 51.2, 0.3);
  EXPECT_NEAR(a.memory.activations / kGB, 36.5, 0.3);
  EXPECT_NEAR(a.memory.logits / kGB, 6.3 * 4 / 6, 0.1);
  EXPECT_NEAR(statics(b), 27.1, 0.3);
  EXPECT_NEAR(b.memory.activations / kGB, 73.0, 0.3);
  EXPECT_NEAR(b.memory.logits / kGB, 12.6 * 4 / 6, 0.1);
  // Neither fits in 80 GiB without recompute; both do with full recompute.
  EXPECT_FALSE(a.fits_memory);
  EXPECT_FALSE(b.fits_memory);
  auto full = setup_with_batch(8, Recompute::kFull);
  Estimate a_full = must_estimate(m, option_a(), hw, full);
  Estimate b_full = must_estimate(m, option_b(), hw, full);
  EXPECT_TRUE(a_full.fits_memory);
  EXPECT_TRUE(b_full.fits_memory);
  EXPECT_LT(b_full.memory.total, a_full.memory.total);  // B has the headroom with recompute
}

TEST(ModelMemory, CpBuffersFollowTheCommType) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  Layout gather = option_c();
  gather.comm = CommType::kAllGather;
  Estimate ring = must_estimate(m, option_c(), hw, setup_with_batch(8));
  Estimate ag = must_estimate(m, gather, hw, setup_with_batch(8));
  // all_gather holds full-sequence K,V and dK,dV: 2 * c * KV_loc = 2 * 16 * 33.5 MB.
  EXPECT_NEAR(ag.memory.cp_buffers, 2.0 * 16 * 33554432, 1);
  // the ring's forward keeps every received chunk: c * KV_loc.
  EXPECT_NEAR(ring.memory.cp_buffers, 16.0 * 33554432, 1);
  EXPECT_GT(ag.time.cp_allgather_s, 0.0);
}

nlohmann::json megatron_cases() {
  std::ifstream in(HCP_FIXTURES_DIR "/model/megatron_memory_llama3_8b.json");
  return nlohmann::json::parse(in);
}

TEST(ModelMemory, MatchesMegatronWhenCpIsOneAndShardsOptimizerOverDpTimesCp) {
  nlohmann::json cases = megatron_cases();
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  const nlohmann::json& a = cases["cases"][0];
  ASSERT_EQ(a["name"], "llama3_8b_tp1_cp16_hcp");
  double megatron = a["weight_and_optimizer_bytes"].get<double>();
  double params = a["num_parameters_on_most_loaded_model_shard"].get<double>();
  // Megatron's estimator shards the optimizer over DP = 2 only: what we get with CP = 1, DP = 2.
  Layout dp_only;
  dp_only.dp = 2;
  Estimate e1 = must_estimate(m, dp_only, hw, setup_with_batch(2));
  double ours_dp_only = e1.memory.weights + e1.memory.gradients + e1.memory.optimizer;
  EXPECT_NEAR(ours_dp_only / megatron, 1.0, 1e-4);
  // With CP16 the distributed optimizer shards over DP x CP = 32: 12 bytes * params * (1/2 - 1/32)
  // less than Megatron says.
  Estimate e16 = must_estimate(m, option_a(), hw, setup_with_batch(8));
  double ours_cp = e16.memory.weights + e16.memory.gradients + e16.memory.optimizer;
  EXPECT_NEAR((megatron - ours_cp) / (12.0 * params * (0.5 - 1.0 / 32)), 1.0, 1e-3);
}

TEST(ModelMemory, MegatronActivationsIgnoreCp) {
  nlohmann::json cases = megatron_cases();
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  const nlohmann::json& a = cases["cases"][0];
  double megatron = a["activation_MB"].get<double>() * 1024 * 1024;
  Estimate e = must_estimate(llama3_8b(131072), option_a(), hw, setup_with_batch(8));
  // Megatron uses the full sequence: about CP (16) times our per-GPU activations.
  double ratio = megatron / (e.memory.activations + e.memory.logits);
  EXPECT_GT(ratio, 0.9 * 16);
  EXPECT_LT(ratio, 1.2 * 16);
}

TEST(ModelRecompute, FullRecomputeTradesTimeForMemory) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims m = llama3_8b(131072);
  Estimate none = must_estimate(m, option_b(), hw, setup_with_batch(8));
  Estimate sel = must_estimate(m, option_b(), hw, setup_with_batch(8, Recompute::kSelective));
  Estimate full = must_estimate(m, option_b(), hw, setup_with_batch(8, Recompute::kFull));
  EXPECT_DOUBLE_EQ(none.time.recompute_s, 0.0);
  EXPECT_GT(sel.time.recompute_s, 0.0);
  EXPECT_GT(full.time.recompute_s, sel.time.recompute_s);
  EXPECT_LT(full.memory.activations, none.memory.activations / 10);
  EXPECT_GT(full.time.step_s, none.time.step_s);
}

TEST(ModelCalibration, SlowNicsExposeTheFlatRing) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  auto cal = load_calibration(HCP_FIXTURES_DIR "/model/slow_nic_calibration.json");
  ASSERT_TRUE(cal.ok()) << cal.error().str();
  Hardware slow = hw;
  apply_calibration(slow, *cal, "slow_nic_calibration.json");
  EXPECT_DOUBLE_EQ(slow.nic_gbs, 5.0);
  EXPECT_DOUBLE_EQ(slow.nvlink_gbs, hw.nvlink_gbs);  // not measured: default kept
  ModelDims m = llama3_8b(131072);
  auto s = setup_with_batch(8, Recompute::kFull);
  Estimate a = must_estimate(m, option_a(), slow, s);
  Estimate c = must_estimate(m, option_c(), slow, s);
  EXPECT_GT(c.time.cp_ring_exposed_s, 0.0);
  EXPECT_GT(c.time.step_s, a.time.step_s);
  Estimate c_fast = must_estimate(m, option_c(), hw, s);
  EXPECT_GT(c.time.step_s, c_fast.time.step_s);
}

TEST(ModelCalibration, MeasuredAllToAllSetsCpsRateAndScalesTheDispatchers) {
  // The bench measures NCCL's all-to-all: CP's a2a runs at it, and the MoE dispatcher keeps its
  // fitted share of NCCL's rate.
  ModelConstants k = test_constants();
  ASSERT_TRUE(k.set(GpuGeneration::kHopper, "ep_a2a_nvlink_eff", 0.41, "test"));
  Hardware hw = hardware_from_profile(dgx_h100(), k);
  EXPECT_DOUBLE_EQ(hw.ep_nvlink_a2a_gbs / hw.nvlink_a2a_gbs, 0.41 / 0.82);
  Calibration cal;
  cal.summary.intra_node_a2a_gbps = 300.0;
  apply_calibration(hw, cal, "x.json");
  EXPECT_DOUBLE_EQ(hw.a2a_gbs(true), 300.0);
  EXPECT_DOUBLE_EQ(hw.ep_a2a_gbs(true), 150.0);
  std::string ep_source;
  for (const auto& [key, source] : hw.sources)
    if (key == "ep_nvlink_a2a_gbs") ep_source = source;
  EXPECT_NE(ep_source.find("x.json (intra_node_a2a_gbps)"), std::string::npos) << ep_source;
}

TEST(ModelCalibration, AttentionRateReplacesTheDefault) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  Calibration cal;
  cal.summary.attention_tflops = 300.0;
  apply_calibration(hw, cal, "x.json");
  EXPECT_NEAR(hw.attn_efficiency * hw.peak_tflops, 300.0, 1e-9);
  bool recorded = false;
  for (const auto& [key, source] : hw.sources)
    recorded |= key == "attn_efficiency" && source.find("x.json") != std::string::npos;
  EXPECT_TRUE(recorded);
}

struct CalibrationDevice {
  const char* device;
  bool with_figure;
  bool mismatch;  ///< calibration_device_mismatch says another GPU model
  bool noted;     ///< apply_calibration adds that sentence to hw.substituted
};

TEST(ModelCalibration, AnotherGpuModelIsNotedOnlyWhenAFigureIsApplied) {
  const CalibrationDevice cases[] = {
      {"NVIDIA H200", true, true, true},                 // another model: used, and said so
      {"NVIDIA H100 80GB HBM3", true, false, false},     // the plan's model under NVML's name
      {"", true, false, false},                          // hand-written, no device
      {"Quantum Accelerator 9000", true, false, false},  // not in the table: nothing to compare
      {"NVIDIA H200", false, true, false},               // bench on one GPU: nothing applied
  };
  for (const auto& c : cases) {
    Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
    Calibration cal;
    cal.device = c.device;
    if (c.with_figure) cal.summary.intra_node_p2p_gbps = 300.0;
    EXPECT_EQ(calibration_device_mismatch(hw, cal, "cal.json").has_value(), c.mismatch) << c.device;
    apply_calibration(hw, cal, "cal.json");
    bool noted = false;
    for (const std::string& note : hw.substituted)
      noted |= note.find("measured on " + std::string(c.device) + ", not on the plan's") !=
               std::string::npos;
    EXPECT_EQ(noted, c.noted) << c.device;
  }
}

TEST(ModelHardware, ShortChunksRunAttentionSlower) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  EXPECT_LT(hw.attn_flops(2048), hw.attn_flops(16384));
  EXPECT_LT(hw.attn_flops(16384), hw.peak_tflops * 1e12 * hw.attn_efficiency);
  EXPECT_NEAR(hw.nic_gbs, 50 * 0.96, 1e-9);  // one 400G NIC per GPU
  EXPECT_EQ(hw.sources.empty(), false);
}

TEST(ModelWindow, SlidingWindowLayersDoLessAttention) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  ModelDims full = llama3_8b(131072);
  ModelDims windowed = full;
  windowed.window = 4096;
  windowed.windowed.assign(32, false);
  for (size_t i = 0; i < 32; i += 2)
    windowed.windowed[i] = true;
  Layout l = option_b();
  l.windowed_comm = CommType::kAllGather;
  Estimate e_full = must_estimate(full, option_b(), hw, setup_with_batch(8));
  Estimate e_win = must_estimate(windowed, l, hw, setup_with_batch(8));
  EXPECT_LT(e_win.time.attention_s, 0.6 * e_full.time.attention_s);
  EXPECT_GT(e_win.time.cp_allgather_s, 0.0);  // the windowed layers' comm type is priced
  EXPECT_EQ(windowed.windowed_layers(), 16);
}

TEST(ModelErrors, RejectsBatchesThatDoNotDivide) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  auto e = estimate(llama3_8b(131072), option_b(), hw, setup_with_batch(6));  // DP4
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("not divisible"), std::string::npos);
}

TEST(ModelErrors, RejectsInvalidHeadSplitAndGrid) {
  Hardware hw = hardware_from_profile(dgx_h100(), test_constants());
  Layout bad = option_c();
  bad.comm = CommType::kA2a;  // 8 KV heads over CP16
  EXPECT_FALSE(estimate(llama3_8b(131072), bad, hw, setup_with_batch(8)).ok());
  Layout zero = option_c();
  zero.cp = 0;
  EXPECT_FALSE(estimate(llama3_8b(131072), zero, hw, setup_with_batch(8)).ok());
  ClusterProfile empty;
  EXPECT_FALSE(estimate(llama3_8b(131072), option_c(),
                        hardware_from_profile(empty, test_constants()), setup_with_batch(8))
                   .ok());
}

TEST(ModelDimsOf, ReadsARecipeAndNamesMissingKeys) {
  Recipe r;
  r.set("model.num_layers", Value::integer(32));
  r.set("model.hidden_size", Value::integer(4096));
  r.set("model.num_attention_heads", Value::integer(32));
  r.set("model.num_query_groups", Value::integer(8));
  r.set("model.ffn_hidden_size", Value::integer(14336));
  r.set("model.vocab_size", Value::integer(128256));
  r.set("model.gated_linear_unit", Value::boolean(true));
  r.set("model.share_embeddings_and_output_weights", Value::boolean(false));
  auto missing = model_dims_of(r);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().key, "dataset.seq_length");
  r.set("dataset.seq_length", Value::integer(131072));
  r.set("model.window_size", Value::list({Value::integer(4095), Value::integer(0)}));
  r.set("model.window_attn_skip_freq", Value::integer(4));
  auto m = model_dims_of(r);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->head_dim, 128);
  EXPECT_EQ(m->window, 4096);
  EXPECT_EQ(m->windowed_layers(), 24);  // every 4th layer is full attention
  EXPECT_FALSE(m->windowed[3]);
  EXPECT_NEAR(m->layer_params() * 32 + m->embedding_params(), 8.03e9, 0.01e9);
  EXPECT_EQ(m->moe_capacity_factor, 0.0);
  EXPECT_FALSE(m->moe_pad_to_capacity);
  r.set("model.moe_expert_capacity_factor", Value::real(1.0));
  r.set("model.moe_pad_expert_input_to_capacity", Value::boolean(true));
  r.set("model.moe_router_force_load_balancing", Value::boolean(true));
  auto dropping = model_dims_of(r);
  ASSERT_TRUE(dropping.ok()) << dropping.error().message;
  EXPECT_EQ(dropping->moe_capacity_factor, 1.0);
  EXPECT_TRUE(dropping->moe_pad_to_capacity);
  EXPECT_TRUE(dropping->moe_force_balance);
  // YAML's .nan / .inf: refused with the key, not carried into a NaN step time.
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    r.set("model.moe_expert_capacity_factor", Value::real(bad));
    auto refused = model_dims_of(r);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().key, "model.moe_expert_capacity_factor");
  }
}

TEST(ModelNames, ParseRecomputeAndLabel) {
  EXPECT_EQ(parse_recompute("full"), Recompute::kFull);
  EXPECT_FALSE(parse_recompute("partial").has_value());
  EXPECT_EQ(option_a().label(), "TP1 CP16 a2a+p2p [8,2] DP2");
  EXPECT_EQ(option_a().hcp_sizes(), (std::vector<int64_t>{8, 2}));
  EXPECT_TRUE(option_b().hcp_sizes().empty());
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

TEST(ModelMemory, ExpertsAreShardedOverEpTimesEtp) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(32768);
  m.num_experts = 8;
  m.moe_ffn = 14336;
  m.moe_topk = 2;
  Layout dense_ep = testing::option_b();  // TP2 CP4 DP4
  Layout ep8 = dense_ep;
  ep8.ep = 8;
  ep8.etp = 1;
  TrainingSetup s;
  s.global_batch = 8;
  auto one = estimate(m, dense_ep, hw, s);
  auto eight = estimate(m, ep8, hw, s);
  ASSERT_TRUE(one.ok() && eight.ok());
  double experts = 32.0 * 8 * 3 * 4096 * 14336;  // layers x experts x SwiGLU matrices
  // ep1 etp=tp=2: experts / 2 per GPU; ep8 etp1: experts / 8 per GPU; weights are 2 bytes each.
  EXPECT_NEAR(one->memory.weights - eight->memory.weights, 2 * experts * (0.5 - 0.125),
              1e-6 * experts);
  EXPECT_EQ(ep8.expert_tp(), 1);
  EXPECT_EQ(dense_ep.expert_tp(), 2);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

/// Llama-3-8B with 8 experts of its MLP's width (top-2) on option B with EP 8, ETP 1.
struct MoeCase {
  ModelDims model = testing::llama3_8b(8192);
  Layout layout = testing::option_b();
  MoeCase() {
    model.num_experts = 8;
    model.moe_ffn = 14336;
    model.moe_topk = 2;
    layout.ep = 8;
    layout.etp = 1;
  }
};

TEST(ModelOverlap, MoeA2aOverlapHidesExpertDispatch) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  MoeCase c;
  const ModelDims& m = c.model;
  const Layout& l = c.layout;
  TrainingSetup s;
  s.global_batch = 8;
  auto plain = estimate(m, l, hw, s);
  s.moe_a2a_overlap = true;
  auto hidden = estimate(m, l, hw, s);
  ASSERT_TRUE(plain.ok() && hidden.ok());
  ASSERT_GT(plain->time.ep_a2a_s, 0);
  // At most ep_overlap of the dispatch / combine is hidden, never more than all of it.
  EXPECT_LT(hidden->time.ep_a2a_s, plain->time.ep_a2a_s);
  EXPECT_GE(hidden->time.ep_a2a_s, (1 - hw.k.ep_overlap) * plain->time.ep_a2a_s * (1 - 1e-9));
  EXPECT_LT(hidden->time.step_s, plain->time.step_s);
}

// Token drop: dropless experts pay the busiest expert's load (moe_dropless_imbalance); a capacity
// factor caps it; padding to the capacity makes every expert compute exactly the capacity.
TEST(ModelMoe, CapacityFactorCapsAndPaddingFixesTheExpertLoad) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  hw.k.moe_dropless_imbalance = 1.6;
  MoeCase c;
  TrainingSetup s;
  s.global_batch = 8;
  auto experts_at = [&](double factor, bool pad) {
    ModelDims d = c.model;
    d.moe_capacity_factor = factor;
    d.moe_pad_to_capacity = pad;
    auto e = estimate(d, c.layout, hw, s);
    EXPECT_TRUE(e.ok());
    return e.ok() ? e->time.step_s : 0.0;
  };
  double dropless = experts_at(0, false);
  double capped = experts_at(1.25, false);
  double padded_one = experts_at(1.0, true);
  double padded_high = experts_at(2.0, true);
  double above_imbalance = experts_at(2.0, false);
  EXPECT_LT(capped, dropless);
  EXPECT_LT(padded_one, capped);
  // Without padding a factor above the imbalance changes nothing; padded to it, every expert
  // computes twice the mean, more than the dropless busiest expert's 1.6.
  EXPECT_DOUBLE_EQ(above_imbalance, dropless);
  EXPECT_GT(padded_high, dropless);
  // Forced load balancing (random router logits) leaves the mean load: as padded at factor 1.
  MoeCase forced;
  forced.model.moe_force_balance = true;
  auto balanced = estimate(forced.model, forced.layout, hw, s);
  ASSERT_TRUE(balanced.ok());
  EXPECT_DOUBLE_EQ(balanced->time.step_s, padded_one);
}

TEST(ModelOverhead, FullIterationGraphsLeaveLessLaunchCostThanPartialOnes) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  hw.k.cuda_graph_overhead = 0.5;
  hw.k.cuda_graph_full_overhead = 0.1;
  ModelDims m = testing::llama3_8b(8192);
  TrainingSetup s;
  s.global_batch = 8;
  Layout l = testing::option_b();
  auto none = estimate(m, l, hw, s);
  s.cuda_graphs = true;
  auto partial = estimate(m, l, hw, s);
  s.cuda_graph_full_iteration = true;
  auto full = estimate(m, l, hw, s);
  ASSERT_TRUE(none.ok() && partial.ok() && full.ok());
  EXPECT_NEAR(partial->time.overhead_s, 0.5 * none->time.overhead_s, 1e-12);
  EXPECT_NEAR(full->time.overhead_s, 0.1 * none->time.overhead_s, 1e-12);
  // A scope that captures only some modules leaves the layer's host cost as without graphs.
  s.cuda_graph_full_iteration = false;
  s.cuda_graph_partial_scope = true;
  auto some = estimate(m, l, hw, s);
  ASSERT_TRUE(some.ok());
  EXPECT_DOUBLE_EQ(some->time.overhead_s, none->time.overhead_s);
}

TEST(ModelSetup, CudaGraphScopeIsPartialUnlessItCoversTheLayer) {
  using Scope = std::vector<std::string>;
  EXPECT_FALSE(cuda_graph_scope_is_partial(Scope{}));  // empty: the whole layer
  EXPECT_FALSE(cuda_graph_scope_is_partial(Scope{"full"}));
  EXPECT_FALSE(cuda_graph_scope_is_partial(Scope{"full_iteration"}));
  EXPECT_FALSE(cuda_graph_scope_is_partial(Scope{"attn", "mlp"}));
  EXPECT_FALSE(cuda_graph_scope_is_partial(Scope{"attn", "moe"}));
  EXPECT_TRUE(cuda_graph_scope_is_partial(Scope{"attn", "moe_router", "moe_preprocess"}));
  EXPECT_TRUE(cuda_graph_scope_is_partial(Scope{"moe_router", "moe_preprocess"}));
  EXPECT_TRUE(cuda_graph_scope_is_partial(Scope{"mamba"}));
  EXPECT_TRUE(cuda_graph_scope_is_partial(Scope{"attn"}));
}

TEST(ModelSetup, RecipeReadsFullIterationGraphsAndMoeOverlap) {
  Recipe r;
  r.framework = Framework::kBridge;
  r.set("model.cuda_graph_impl", Value::string("local", {}));
  r.set("model.cuda_graph_scope", Value::list({Value::string("full_iteration", {})}, {}));
  r.set("comm_overlap.overlap_moe_expert_parallel_comm", Value::boolean(true, {}));
  TrainingSetup s = training_setup_of(r);
  EXPECT_TRUE(s.cuda_graphs);
  EXPECT_TRUE(s.cuda_graph_full_iteration);
  EXPECT_TRUE(s.moe_a2a_overlap);
  r.set("model.cuda_graph_impl", Value::string("transformer_engine", {}));
  r.set("comm_overlap.overlap_moe_expert_parallel_comm", Value::boolean(false, {}));
  s = training_setup_of(r);
  EXPECT_TRUE(s.cuda_graphs);
  EXPECT_FALSE(s.cuda_graph_full_iteration);  // full_iteration scope needs impl "local"
  EXPECT_FALSE(s.moe_a2a_overlap);
  EXPECT_FALSE(s.cuda_graph_partial_scope);
  r.set("model.cuda_graph_scope",
        Value::list({Value::string("attn", {}), Value::string("moe_router", {})}, {}));
  EXPECT_TRUE(training_setup_of(r).cuda_graph_partial_scope);
  r.set("model.cuda_graph_impl", Value::string("none", {}));
  EXPECT_FALSE(training_setup_of(r).cuda_graph_partial_scope);  // no graphs at all
  // The newer name of the same list (Megatron-LM cuda_graph_modules).
  Recipe modules;
  modules.framework = Framework::kBridge;
  modules.set("model.cuda_graph_impl", Value::string("transformer_engine", {}));
  modules.set("model.cuda_graph_modules", Value::list({Value::string("moe_router", {})}, {}));
  EXPECT_TRUE(training_setup_of(modules).cuda_graph_partial_scope);
  modules.set("model.cuda_graph_modules", Value::string("full", {}));
  EXPECT_FALSE(training_setup_of(modules).cuda_graph_partial_scope);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

/// Llama-3-8B shape with 64 routed experts of `width` columns, top-8.
ModelDims moe_model(int64_t width) {
  ModelDims m = testing::llama3_8b(8192);
  m.num_experts = 64;
  m.moe_ffn = width;
  m.moe_topk = 8;
  return m;
}

TEST(ModelElementwise, LowPrecisionRunsPayTheirCasts) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(8192);
  TrainingSetup s;
  s.global_batch = 8;
  auto bf16 = estimate(m, testing::option_b(), hw, s);
  s.precision = Precision::kFp8Current;
  auto fp8 = estimate(m, testing::option_b(), hw, s);
  ASSERT_TRUE(bf16.ok() && fp8.ok());
  ASSERT_GT(hw.k.cast_passes, 0);
  EXPECT_NEAR(fp8->time.elementwise_s / bf16->time.elementwise_s,
              (hw.k.elementwise_passes + hw.k.cast_passes) / hw.k.elementwise_passes, 1e-9);
}

TEST(ModelMoe, NarrowExpertsRunTheirGemmsSlower) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  Layout l = testing::option_b();
  l.ep = 4;
  l.etp = 1;
  TrainingSetup s;
  s.global_batch = 8;
  auto gemm = [&](int64_t width, double half_width) {
    Hardware h = hw;
    h.k.gemm_half_width = half_width;
    auto e = estimate(moe_model(width), l, h, s);
    EXPECT_TRUE(e.ok());
    return e.ok() ? e->time.gemm_s : 0.0;
  };
  // Off (0), the width changes nothing but the FLOPs; on, a 512-wide expert pays more than a
  // 4096-wide one.
  EXPECT_GT(gemm(512, 256), gemm(512, 0));
  double narrow = gemm(512, 256) / gemm(512, 0);
  double wide = gemm(4096, 256) / gemm(4096, 0);
  EXPECT_GT(narrow, wide);
  EXPECT_GT(wide, 1.0);
}

TEST(ModelMoe, AllToAllWaitsForTheBusiestRankNotTheBusiestExpert) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  hw.nvlink_latency_s = 0;        // bandwidth only: the load scales it
  ModelDims m = moe_model(2048);  // 64 experts
  TrainingSetup s;
  s.global_batch = 64;
  Layout l;  // EP 8 inside one domain: 8 experts per rank
  l.tp = 1;
  l.cp = 1;
  l.dp = 8;
  l.ep = 8;
  l.etp = 1;
  auto a2a = [&](double imbalance) {
    hw.k.moe_dropless_imbalance = imbalance;
    auto e = estimate(m, l, hw, s);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
    return e.ok() ? e->time.ep_a2a_s : 0.0;
  };
  // The busiest expert at twice the mean: a rank summing 8 experts is 1 + 1/sqrt(8) of the mean.
  EXPECT_NEAR(a2a(2.0) / a2a(1.0), 1 + 1 / std::sqrt(8.0), 1e-9);
}

TEST(ModelMoe, DeepEpCrossesEachRemoteDomainOnce) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(),
                                      testing::test_constants());  // 8-GPU NVLink domains
  ModelDims m = moe_model(2048);
  TrainingSetup s;
  s.global_batch = 64;
  Layout across;  // EP 32 over four domains
  across.tp = 1;
  across.cp = 1;
  across.dp = 32;
  across.ep = 32;
  across.etp = 1;
  Layout inside = across;  // EP 8: one domain
  inside.ep = 8;
  auto a2a = [&](const Layout& l, bool deepep) {
    s.moe_deepep = deepep;
    auto e = estimate(m, l, hw, s);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
    return e.ok() ? e->time.ep_a2a_s : 0.0;
  };
  // Top-8 over four domains: about 3 x (1 - 0.75^8) = 2.7 remote domains per token instead of
  // 8 x 0.75 = 6 remote experts, so the network part falls by about 2.2x.
  double plain = a2a(across, false);
  double deepep = a2a(across, true);
  ASSERT_GT(plain, 0);
  EXPECT_LT(deepep, plain / 1.8);
  EXPECT_GT(deepep, plain / 2.6);
  // Inside one NVLink domain DeepEP sends a token once to each rank holding one of its experts
  // (8 of 64 experts per rank, top-8: 7 x (1 - C(56,8) / C(64,8)) = 4.69 ranks) where the NCCL
  // dispatcher sends one copy per remote expert (8 x 7/8 = 7).
  double miss = 1;
  for (int i = 0; i < 8; ++i)
    miss *= (56.0 - i) / (64.0 - i);
  EXPECT_NEAR(a2a(inside, true) / a2a(inside, false), 7 * (1 - miss) / 7, 0.02);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

// Memory terms one by one, each against a hand count of the saved tensors or the optimizer
// bytes (Llama-3-8B: h 4096, q 4096, kv 1024, ffn 14336, SwiGLU; 32 layers).

TEST(ModelMemoryTerms, Fp8SavesAQuantisedCopyOfTheAttentionOutputAndOneByteGemmInputs) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(8192);
  TrainingSetup s;
  s.global_batch = 8;
  auto bf16 = estimate(m, testing::option_b(), hw, s);
  s.precision = Precision::kFp8Delayed;
  auto fp8 = estimate(m, testing::option_b(), hw, s);
  ASSERT_TRUE(bf16.ok() && fp8.ok());
  // BF16 34h per token and layer; FP8: norms 4h, QKV input 1h, Q 2h, K V 1h, attention output
  // 2h + its FP8 copy 1h, FC1 input 1h, FC1 output 14h, FC2 input 3.5h = 29.5h.
  EXPECT_NEAR(fp8->memory.activations / bf16->memory.activations, 29.5 / 34, 1e-12);
}

TEST(ModelMemoryTerms, FineGrainedOffloadDropsTheInputsOfTheNamedModules) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(4096);
  m.num_experts = 8;
  m.moe_ffn = 2048;
  m.moe_topk = 2;
  Layout l = testing::option_b();  // TP2 CP4 DP4: 1024 tokens per GPU
  l.ep = 8;
  l.etp = 1;
  TrainingSetup s;
  s.global_batch = 4;
  auto kept = estimate(m, l, hw, s);
  s.offload_modules = {"expert_fc1", "moe_act"};
  auto offloaded = estimate(m, l, hw, s);
  s.offload_modules = {"attn_norm"};
  auto norm_offloaded = estimate(m, l, hw, s);
  s.offload_modules = {"fused_group_mlp"};
  auto grouped = estimate(m, l, hw, s);
  ASSERT_TRUE(kept.ok() && offloaded.ok() && norm_offloaded.ok() && grouped.ok());
  // Per routed copy the FC1 input 2h (expert_fc1) and the FC1 output 2 x 2 x moe_ffn (moe_act,
  // SwiGLU) leave the GPU: top-2 x (8192 + 8192) bytes per token and layer, over TP 2, for
  // 1024 tokens and 32 layers (one stage, one micro-batch in flight).
  double moe_bytes = 2.0 * (2 * 4096 + 2 * 2 * 2048) / 2 * 1024 * 32;
  EXPECT_NEAR(kept->memory.activations - offloaded->memory.activations, moe_bytes, 1);
  // fused_group_mlp: the routed experts' saved tensors, the two above and the activation output
  // (FC2 input, 2 x moe_ffn) as well.
  double grouped_bytes = 2.0 * (2 * 4096 + 2 * 2 * 2048 + 2 * 2048) / 2 * 1024 * 32;
  EXPECT_NEAR(kept->memory.activations - grouped->memory.activations, grouped_bytes, 1);
  // attn_norm: the attention norm's input, 2h bytes per token and layer.
  double norm_bytes = 2.0 * 4096 / 2 * 1024 * 32;
  EXPECT_NEAR(kept->memory.activations - norm_offloaded->memory.activations, norm_bytes, 1);
}

TEST(ModelMemoryTerms, OptimizerStateBytesPerParameterScaleTheShardedState) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(8192);
  TrainingSetup s;
  s.global_batch = 8;
  auto fp32 = estimate(m, testing::option_b(), hw, s);
  s.optimizer_bytes_per_param = 4;  // bf16 moments, no master copy (NeMo 1 dtype bf16)
  auto bf16 = estimate(m, testing::option_b(), hw, s);
  ASSERT_TRUE(fp32.ok() && bf16.ok());
  EXPECT_NEAR(bf16->memory.optimizer, fp32->memory.optimizer / 3, 1e-6);
  // 12 bytes per parameter over DP x CP = 16 ranks, of the parameters on one TP2 rank.
  double params = (m.layer_params() * 32 + m.embedding_params()) / 2;
  EXPECT_NEAR(fp32->memory.optimizer, 12 * params / 16, 1e-3 * params);
  EXPECT_DOUBLE_EQ(bf16->memory.weights, fp32->memory.weights);
}

TEST(ModelMemoryTerms, Bf16GradientBuffersHoldTwoBytesPerParameter) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(8192);
  TrainingSetup s;
  s.global_batch = 8;
  auto fp32 = estimate(m, testing::option_b(), hw, s);
  s.grad_reduce_in_fp32 = false;
  auto bf16 = estimate(m, testing::option_b(), hw, s);
  ASSERT_TRUE(fp32.ok() && bf16.ok());
  EXPECT_NEAR(bf16->memory.gradients, fp32->memory.gradients / 2, 1e-6);
  EXPECT_NEAR(bf16->memory.gradients, bf16->memory.weights, 1e-6);  // both bf16, unsharded
}

TEST(ModelSetup, RecipeReadsOffloadModulesOnlyWithFineGrainedOffloading) {
  Recipe r;
  r.framework = Framework::kBridge;
  r.set("model.offload_modules",
        Value::list({Value::string("expert_fc1", {}), Value::string("moe_act", {})}, {}));
  EXPECT_TRUE(training_setup_of(r).offload_modules.empty());
  r.set("model.fine_grained_activation_offloading", Value::boolean(true, {}));
  EXPECT_EQ(training_setup_of(r).offload_modules,
            (std::vector<std::string>{"expert_fc1", "moe_act"}));
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

TEST(ModelSetup, RecipeReadsThePrecisionAwareOptimizerState) {
  struct Case {
    const char* name;
    std::vector<std::pair<const char*, const char*>> strings;
    std::vector<std::pair<const char*, bool>> flags;
    double bytes;
  };
  const std::vector<Case> cases = {
      {"not precision-aware", {{"optimizer.exp_avg_dtype", "torch.bfloat16"}}, {}, 0},
      // fp32 main params as 16-bit remainders of the bf16 weights + fp32 moments: 2 + 4 + 4.
      {"defaults", {}, {{"optimizer.use_precision_aware_optimizer", true}}, 10},
      {"bf16 moments",
       {{"optimizer.exp_avg_dtype", "torch.bfloat16"}, {"optimizer.exp_avg_sq_dtype", "bf16"}},
       {{"optimizer.use_precision_aware_optimizer", true}},
       6},
      {"no remainders",
       {{"optimizer.exp_avg_dtype", "torch.uint8"}},
       {{"optimizer.use_precision_aware_optimizer", true},
        {"optimizer.store_param_remainders", false}},
       4 + 1 + 4},
      {"fp16 main params",
       {{"optimizer.main_params_dtype", "torch.float16"}},
       {{"optimizer.use_precision_aware_optimizer", true}},
       2 + 4 + 4},
      // Bridge's dumped config spells a dtype {_target_: torch.bfloat16, _call_: false}.
      {"dumped dtypes",
       {{"optimizer.exp_avg_dtype._target_", "torch.bfloat16"},
        {"optimizer.exp_avg_sq_dtype._target_", "torch.bfloat16"}},
       {{"optimizer.use_precision_aware_optimizer", true}},
       2 + 2 + 2},
  };
  for (const Case& c : cases) {
    Recipe r;
    r.framework = Framework::kBridge;
    for (const auto& [key, value] : c.strings)
      r.set(key, Value::string(value, {}));
    for (const auto& [key, value] : c.flags)
      r.set(key, Value::boolean(value, {}));
    EXPECT_DOUBLE_EQ(training_setup_of(r).optimizer_bytes_per_param, c.bytes) << c.name;
  }
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

/// DP-only layout of `dp` ranks with `tp`-way TP on DGX H100 nodes (8-GPU NVLink domains).
Layout dp_layout(int64_t tp, int64_t dp) {
  Layout l;
  l.tp = tp;
  l.cp = 1;
  l.dp = dp;
  return l;
}

/// DGX H100 without message latencies: DP collectives cost their bytes alone.
Hardware bandwidth_only() {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  hw.nvlink_latency_s = 0;
  hw.nic_latency_s = 0;
  return hw;
}

double dp_seconds(const Layout& l, const Hardware& hw = bandwidth_only()) {
  ModelDims m = testing::llama3_8b(8192);
  TrainingSetup s;
  s.global_batch = l.dp;
  s.overlap_grad_reduce = false;  // the whole reduce-scatter and all-gather, nothing hidden
  auto e = estimate(m, l, hw, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e->time.dp_comm_s : 0.0;
}

TEST(ModelDp, RingsAcrossNodesUseEveryMembersNic) {
  Hardware hw = bandwidth_only();
  // TP1 DP16 on two nodes: 8 members per node, one ring per NIC, 8 x the NIC rate is more than
  // NVLink's: the same per-byte rate as DP8 inside one node, ((n - 1) / n of the same bytes).
  double one_node = dp_seconds(dp_layout(1, 8));
  double two_nodes = dp_seconds(dp_layout(1, 16));
  ASSERT_GT(one_node, 0);
  EXPECT_NEAR(two_nodes / one_node, (15.0 / 16) / (7.0 / 8), 1e-9);
  // TP8 DP2: one member per node, its ring crosses on one NIC: the NIC rate.
  double inside = dp_seconds(dp_layout(8, 1));
  EXPECT_EQ(inside, 0);
  double across = dp_seconds(dp_layout(8, 2));
  ASSERT_GT(across, 0);
  // TP4 DP4 on two nodes: 2 members per node, 2 NICs. Twice TP8's parameters per GPU, (n - 1) /
  // n = 3/4 against 1/2, at twice the rate.
  double two_per_node = dp_seconds(dp_layout(4, 4));
  double two_nics = std::min(hw.link_gbs(true), 2 * hw.link_gbs(false));
  EXPECT_NEAR(two_per_node / across, (2 * 0.75 / two_nics) / (0.5 / hw.link_gbs(false)), 1e-9);
}

TEST(ModelDp, RingStepsPayNvlinkLatencyAndNetworkLatencyAtNodeBoundaries) {
  // Bytes free: what is left is the latency of the reduce-scatter and all-gather passes.
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  hw.nvlink_gbs = 1e12;
  hw.nic_gbs = 1e12;
  double nvl = hw.nvlink_latency_s;
  double net = hw.nic_latency_s;
  ASSERT_GT(net, nvl);
  // DP8 in one node: 7 NVLink steps per pass.
  EXPECT_NEAR(dp_seconds(dp_layout(1, 8), hw), 2 * 7 * nvl, 1e-9);
  // DP16 on two nodes: 15 steps, 1 of them across the node boundary (NCCL's ring model).
  EXPECT_NEAR(dp_seconds(dp_layout(1, 16), hw), 2 * (14 * nvl + net), 1e-9);
  // TP8 DP4 on four nodes: every step crosses.
  EXPECT_NEAR(dp_seconds(dp_layout(8, 4), hw), 2 * 3 * net, 1e-9);
}

TEST(ModelDp, ExpertGradientsCrossOnTheExpertGroupsNics) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  auto dp_comm = [&](const ModelDims& m, const Layout& l, double nic_gbs) {
    Hardware h = hw;
    h.nic_gbs = nic_gbs;
    TrainingSetup s;
    s.global_batch = l.dp;
    s.overlap_grad_reduce = false;
    auto e = estimate(m, l, h, s);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
    return e.ok() ? e->time.dp_comm_s : 0.0;
  };
  double nic = hw.link_gbs(false);
  ASSERT_GE(8 * nic, hw.link_gbs(true));  // eight NICs per node outrun NVLink
  // Dense TP1 DP16 on two nodes: eight members per node, NVLink-bound at either NIC rate.
  ModelDims dense = testing::llama3_8b(8192);
  EXPECT_DOUBLE_EQ(dp_comm(dense, dp_layout(1, 16), nic),
                   dp_comm(dense, dp_layout(1, 16), 2 * nic));
  // EP 8 fills a node: the expert DP group has one member per node and crosses on one NIC.
  Layout moe_layout = dp_layout(1, 16);
  moe_layout.ep = 8;
  moe_layout.etp = 1;
  ModelDims moe = moe_model(2048);
  EXPECT_GT(dp_comm(moe, moe_layout, nic), 1.2 * dp_comm(moe, moe_layout, 2 * nic));
}

/// DP collectives of Llama-3-8B at TP1 PP4 DP16 (two nodes) with `vp` virtual stages, 8
/// micro-batches per replica and bf16 gradients (the reduce-scatter and the all-gather move the
/// same bytes).
double interleaved_dp_seconds(int64_t vp, bool overlap, const Hardware& hw) {
  ModelDims m = testing::llama3_8b(8192);
  Layout l = dp_layout(1, 16);
  l.pp = 4;
  if (vp > 1) l.vpp = vp;
  TrainingSetup s;
  s.global_batch = int64_t{16} * 8;
  s.grad_reduce_in_fp32 = false;
  s.overlap_grad_reduce = overlap;
  auto e = estimate(m, l, hw, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e->time.dp_comm_s : 0.0;
}

TEST(ModelDp, InterleavedChunksLeaveOnlyTheLastChunksReduceScatter) {
  // Megatron syncs each model chunk after its last backward while the other chunks' backward
  // goes on (schedules.py, forward_backward_pipelining_with_interleaving): with windows to
  // spare, what waits is the last chunk's reduce-scatter, 1 / vp of the reduce-scatter, which
  // is half of both passes here.
  Hardware hw = bandwidth_only();
  double both_passes = interleaved_dp_seconds(4, false, hw);
  ASSERT_GT(both_passes, 0);
  double interleaved = interleaved_dp_seconds(4, true, hw);
  EXPECT_NEAR(interleaved, both_passes / 2 / 4, 1e-12);
}

/// bandwidth_only() with NVLink and the NICs `factor` times slower.
Hardware slower_links(double factor) {
  Hardware hw = bandwidth_only();
  hw.nvlink_gbs /= factor;
  hw.nic_gbs /= factor;
  return hw;
}

TEST(ModelDp, InterleavedChunksHideMoreThanOneMicroBatch) {
  // Links 20x slower: the reduce-scatter outlasts one micro-batch's backward, all that hides it
  // without interleaving; with 4 chunks each has the pipeline's round of backward passes after
  // it (4 micro-batches of the later chunks), and half as much waits.
  Hardware hw = slower_links(20);
  double one_chunk = interleaved_dp_seconds(1, true, hw);
  double interleaved = interleaved_dp_seconds(4, true, hw);
  EXPECT_GT(one_chunk, interleaved_dp_seconds(1, true, bandwidth_only()) * 20 * 1.5);
  EXPECT_LT(interleaved, 0.6 * one_chunk);
}

TEST(ModelDp, InterleavedChunksThatOutlastTheirWindowsDelayTheNext) {
  // On a link 1000x slower every chunk's collective outlasts the compute beside it: nearly both
  // passes wait, and never more than both.
  Hardware hw = slower_links(1000);
  double both_passes = interleaved_dp_seconds(4, false, hw);
  double interleaved = interleaved_dp_seconds(4, true, hw);
  EXPECT_GT(interleaved, 0.95 * both_passes);
  EXPECT_LE(interleaved, both_passes);
}

TEST(ModelStraggler, SlowestOfNMatchesTheNormalOrderStatistics) {
  // Expected largest of n standard normal draws (tables of normal order statistics): 1/sqrt(pi)
  // for two, 1.5388 for 10, 2.5076 for 100, 3.2414 for 1000.
  EXPECT_EQ(expected_slowest(1), 0);
  EXPECT_NEAR(expected_slowest(2), 0.5642, 0.05 * 0.5642);
  EXPECT_NEAR(expected_slowest(10), 1.5388, 0.01 * 1.5388);
  EXPECT_NEAR(expected_slowest(100), 2.5076, 0.01 * 2.5076);
  EXPECT_NEAR(expected_slowest(1000), 3.2414, 0.01 * 3.2414);
  EXPECT_GT(expected_slowest(16384), expected_slowest(1000));
  // The largest world still gives a finite, growing figure (the tail is never 1 - p rounded to 0).
  double largest = expected_slowest(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(std::isfinite(largest));
  EXPECT_GT(largest, expected_slowest(int64_t{1} << 40));
  EXPECT_GT(expected_slowest(int64_t{1} << 40), expected_slowest(16384));
}

TEST(ModelStraggler, EveryStepWaitsForTheSlowestGpu) {
  Hardware hw = hardware_from_profile(testing::dgx_h100(), testing::test_constants());
  ModelDims m = testing::llama3_8b(8192);
  auto time_of = [&](int64_t dp) {
    TrainingSetup s;
    s.global_batch = dp * 4;
    auto e = estimate(m, dp_layout(1, dp), hw, s);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
    return e.ok() ? e->time : TimeBreakdown{};
  };
  EXPECT_EQ(time_of(1).straggler_s, 0);
  for (int64_t dp : {8, 64, 1024}) {
    TimeBreakdown t = time_of(dp);
    ASSERT_GT(t.straggler_s, 0) << dp;
    EXPECT_NEAR(t.straggler_s / (t.step_s - t.straggler_s),
                hw.k.gpu_speed_spread * expected_slowest(dp), 1e-12)
        << dp;
  }
  EXPECT_GT(time_of(1024).straggler_s, time_of(64).straggler_s);
  // Without a spread no GPU is slower than another.
  hw.k.gpu_speed_spread = 0;
  EXPECT_EQ(time_of(64).straggler_s, 0);
}

}  // namespace
}  // namespace hcp
