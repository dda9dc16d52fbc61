// Speed of validate's library path: load the default recipe, apply overrides, run every rule,
// and format the report.
#include <benchmark/benchmark.h>

#include "hcp/planner.h"
#include "hcp/recipe.h"
#include "hcp/report.h"
#include "hcp/rules.h"

namespace {

const std::string kDefaultRecipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";

hcp::Environment cluster_env() {
  hcp::Environment env;
  env.world_size = 32;
  env.gpus_per_node = 8;
  env.te_version = hcp::Version{2, 18, 0, ""};
  env.mcore_version = hcp::Version{0, 17, 0, ""};
  return env;
}

/// Everything `hcp-plan validate` does after argument parsing.
void BM_LoadAndValidate(benchmark::State& state) {
  hcp::Environment env = cluster_env();
  const std::vector<std::string> overrides = {"-cp", "8",
                                              "model.hierarchical_context_parallel_sizes=[4,2]"};
  for (auto _ : state) {
    auto recipe = hcp::load_recipe_file(kDefaultRecipe);
    if (!recipe) {
      state.SkipWithError(recipe.error().str().c_str());
      return;
    }
    if (auto s = hcp::apply_overrides(*recipe, overrides); !s) {
      state.SkipWithError(s.error().str().c_str());
      return;
    }
    hcp::DiagnosticsReport report{kDefaultRecipe, "bridge", hcp::check_rules(*recipe, env)};
    std::string text = hcp::format_diagnostics_json(report);
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_LoadAndValidate)->Unit(benchmark::kMicrosecond);

/// The rules alone on an already loaded recipe (what the planner pays per candidate).
void BM_CheckRules(benchmark::State& state) {
  auto recipe = hcp::load_recipe_file(kDefaultRecipe);
  if (!recipe) {
    state.SkipWithError(recipe.error().str().c_str());
    return;
  }
  hcp::Environment env = cluster_env();
  for (auto _ : state) {
    auto diagnostics = hcp::check_rules(*recipe, env);
    benchmark::DoNotOptimize(diagnostics);
  }
}
BENCHMARK(BM_CheckRules)->Unit(benchmark::kMicrosecond);

/// validate's CP115 after the rules: plan's request on the default cluster (dgx-h100, read from
/// its profile each time; no bands) and the memory finding of the recipe's own layout on 32 GPUs
/// (the README's: it does not fit, so the recompute that makes it fit is priced too).
void BM_MemoryFinding(benchmark::State& state) {
  auto recipe = hcp::load_recipe_file(kDefaultRecipe);
  if (!recipe) {
    state.SkipWithError(recipe.error().str().c_str());
    return;
  }
  for (auto _ : state) {
    hcp::PlanInputs in;
    in.loaded = *recipe;
    in.gpus_per_node = 8;
    in.bands = false;
    auto prepared = hcp::prepare_plan(in);
    if (!prepared) {
      state.SkipWithError(prepared.error().str().c_str());
      return;
    }
    prepared->request.env.world_size = 32;
    auto finding = hcp::memory_fit_finding(prepared->request, prepared->cluster_label);
    if (!finding) {
      state.SkipWithError("the README's layout fits: no CP115 to price");
      return;
    }
    benchmark::DoNotOptimize(finding);
  }
}
BENCHMARK(BM_MemoryFinding)->Unit(benchmark::kMicrosecond);

}  // namespace
