// The planner's speed: the full search (every candidate through the rules and the cost model)
// for 16,384 GPUs at 1M tokens (target < 100 ms), and one estimate.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "hcp/accuracy.h"
#include "hcp/planner.h"

namespace {

hcp::PlanRequest million_token_request() {
  auto recipe = hcp::load_recipe_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml");
  if (!recipe) std::abort();
  auto st = hcp::apply_overrides(*recipe, {"dataset.seq_length=1048576", "model.seq_length=1048576",
                                           "train.global_batch_size=1024"});
  if (!st) std::abort();
  auto profile = hcp::load_cluster_profile(HCP_RECIPES_DIR "/clusters/dgx-h100.yaml");
  if (!profile) std::abort();
  hcp::PlanRequest req;
  req.recipe = *recipe;
  req.env.world_size = 16384;
  req.env.nodes = 2048;
  req.env.gpus_per_node = 8;
  req.env.nvlink_domain = 8;
  req.hardware = hcp::hardware_from_profile(*profile, hcp::accuracy::shipped_constants());
  req.setup = hcp::training_setup_of(*recipe);
  req.setup.recompute = hcp::Recompute::kFull;
  return req;
}

void BM_PlanSearch16384Gpus1MTokens(benchmark::State& state) {
  hcp::PlanRequest req = million_token_request();
  int64_t candidates = 0;
  int64_t accepted = 0;
  for (auto _ : state) {
    auto result = hcp::plan(req);
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      return;
    }
    candidates = result->candidates;
    accepted = static_cast<int64_t>(result->options.size());
    benchmark::DoNotOptimize(result->options.data());
  }
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["accepted"] = static_cast<double>(accepted);
}
BENCHMARK(BM_PlanSearch16384Gpus1MTokens)->Unit(benchmark::kMillisecond);

/// The same search for a MoE recipe (Qwen3-30B-A3B, 128 experts) at 1M tokens on 16,384 GPUs:
/// EP (1..128) and VPP (PP up to 8, the recipe's own PP always in) are part of the space.
void BM_PlanSearch16384Gpus1MTokensMoeVppEp(benchmark::State& state) {
  auto recipe = hcp::load_recipe_file(HCP_RECIPES_DIR "/qwen3_30b_a3b_64k.yaml");
  if (!recipe) std::abort();
  auto st = hcp::apply_overrides(*recipe, {"dataset.seq_length=1048576", "model.seq_length=1048576",
                                           "train.global_batch_size=1024"});
  if (!st) std::abort();
  auto profile = hcp::load_cluster_profile(HCP_RECIPES_DIR "/clusters/dgx-h100.yaml");
  if (!profile) std::abort();
  hcp::PlanRequest req;
  req.recipe = *recipe;
  req.env.world_size = 16384;
  req.env.nodes = 2048;
  req.env.gpus_per_node = 8;
  req.env.nvlink_domain = 8;
  req.hardware = hcp::hardware_from_profile(*profile, hcp::accuracy::shipped_constants());
  req.setup = hcp::training_setup_of(*recipe);
  req.setup.recompute = hcp::Recompute::kFull;
  req.max_pp = static_cast<int64_t>(state.range(0));
  int64_t candidates = 0;
  int64_t accepted = 0;
  int64_t pruned = 0;
  for (auto _ : state) {
    auto result = hcp::plan(req);
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      return;
    }
    candidates = result->candidates;
    accepted = static_cast<int64_t>(result->options.size());
    pruned = result->pruned_count;
    benchmark::DoNotOptimize(result->options.data());
  }
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["accepted"] = static_cast<double>(accepted);
  state.counters["pruned"] = static_cast<double>(pruned);
}
BENCHMARK(BM_PlanSearch16384Gpus1MTokensMoeVppEp)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);

/// TP1 CP64 a2a+p2p [8,8] DP256: the layout the per-candidate benchmarks price.
hcp::Layout a2a_p2p_layout() {
  hcp::Layout l;
  l.tp = 1;
  l.cp = 64;
  l.dp = 256;
  l.comm = hcp::CommType::kA2aP2p;
  l.hcp = {8, 8};
  return l;
}

void BM_EstimateOneLayout(benchmark::State& state) {
  hcp::PlanRequest req = million_token_request();
  auto model = hcp::model_dims_of(req.recipe);
  if (!model) std::abort();
  hcp::Layout l = a2a_p2p_layout();
  for (auto _ : state) {
    auto e = hcp::estimate(*model, l, req.hardware, req.setup);
    benchmark::DoNotOptimize(e.ok());
  }
}
BENCHMARK(BM_EstimateOneLayout)->Unit(benchmark::kMicrosecond);

void BM_RulesOneCandidate(benchmark::State& state) {
  hcp::PlanRequest req = million_token_request();
  hcp::Layout l = a2a_p2p_layout();
  for (auto _ : state) {
    hcp::Recipe candidate = hcp::recipe_with_layout(req.recipe, l);
    auto diagnostics = hcp::check_rules(candidate, req.env);
    benchmark::DoNotOptimize(diagnostics.data());
  }
}
BENCHMARK(BM_RulesOneCandidate)->Unit(benchmark::kMicrosecond);

void BM_RecipeWithLayout(benchmark::State& state) {
  hcp::PlanRequest req = million_token_request();
  hcp::Layout l = a2a_p2p_layout();
  for (auto _ : state) {
    hcp::Recipe candidate = hcp::recipe_with_layout(req.recipe, l);
    benchmark::DoNotOptimize(candidate.root.entries().data());
  }
}
BENCHMARK(BM_RecipeWithLayout)->Unit(benchmark::kMicrosecond);

}  // namespace
