// Speed of the recipe front end: load the default recipe, apply overrides, check the schema.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "hcp/mlm_args.h"
#include "hcp/recipe.h"
#include "hcp/schema.h"

namespace {

const char* const kDefaultRecipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";

const std::vector<std::string>& overrides() {
  static const std::vector<std::string> args = {"-tp",
                                                "2",
                                                "-cp",
                                                "8",
                                                "model.cp_comm_type=a2a+p2p",
                                                "model.hierarchical_context_parallel_sizes=[4,2]",
                                                "++train.global_batch_size=64",
                                                "-sl",
                                                "65536"};
  return args;
}

std::string read_default() {
  std::ifstream in(kDefaultRecipe);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// File read + YAML parse + normalisation + schema check.
void BM_LoadDefaultRecipe(benchmark::State& state) {
  for (auto _ : state) {
    hcp::Result<hcp::Recipe> r = hcp::load_recipe_file(kDefaultRecipe);
    if (!r) state.SkipWithError(r.error().str().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LoadDefaultRecipe)->Unit(benchmark::kMicrosecond);

/// What `hcp-plan validate RECIPE OVERRIDES...` does before the rules run.
void BM_LoadAndApplyOverrides(benchmark::State& state) {
  for (auto _ : state) {
    hcp::Result<hcp::Recipe> r = hcp::load_recipe_file(kDefaultRecipe);
    if (!r) state.SkipWithError(r.error().str().c_str());
    hcp::Status s = hcp::apply_overrides(*r, overrides());
    if (!s) state.SkipWithError(s.error().str().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LoadAndApplyOverrides)->Unit(benchmark::kMicrosecond);

/// Parsing from memory only (no file system).
void BM_LoadFromText(benchmark::State& state) {
  std::string text = read_default();
  for (auto _ : state) {
    hcp::Result<hcp::Recipe> r = hcp::load_recipe_text(text, "llama3_8b_128k.yaml");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LoadFromText)->Unit(benchmark::kMicrosecond);

/// A recipe with one long one-line flow list ("[x,x,...]", `items` entries of 200 bytes): the
/// check for a stray root ',' once scanned back to the line start from every comma, so that a
/// 4 MB line took more than 20 s (issue 28's hostile-input sweep, 2026-11-28). Linear now.
void BM_LoadLongFlowList(benchmark::State& state) {
  std::string list(200, 'x');
  std::string line = "  extra_list: [" + list;
  for (int64_t i = 1; i < state.range(0); ++i)
    line += "," + list;
  std::string text = read_default();
  text.replace(text.find("model:\n"), 7, "model:\n" + line + "]\n");
  for (auto _ : state) {
    hcp::Result<hcp::Recipe> r = hcp::load_recipe_text(text, "long_flow_list.yaml");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadLongFlowList)->Arg(2000)->Arg(20000)->Unit(benchmark::kMillisecond);

/// A MoE recipe whose comments hold "(MoE, 128 experts, top-8), 64K": a ',' after ')' used to
/// cost a second scan of the whole file for commas at a document's root.
void BM_LoadMoeRecipe(benchmark::State& state) {
  for (auto _ : state) {
    auto r = hcp::load_recipe_file(HCP_RECIPES_DIR "/qwen3_235b_a22b_64k.yaml");
    if (!r) state.SkipWithError(r.error().str().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LoadMoeRecipe)->Unit(benchmark::kMicrosecond);

/// The override grammar alone.
void BM_ParseOverride(benchmark::State& state) {
  for (auto _ : state) {
    auto o = hcp::parse_override("model.hierarchical_context_parallel_sizes=[8, 2]");
    benchmark::DoNotOptimize(o);
  }
}
BENCHMARK(BM_ParseOverride);

/// A full-dump-sized schema check (the Llama-3.2-1B dump fixture).
void BM_LoadFullDump(benchmark::State& state) {
  for (auto _ : state) {
    auto r = hcp::load_recipe_file(HCP_FIXTURES_DIR "/recipe/full_dump_llama32_1b.yaml");
    if (!r) state.SkipWithError(r.error().str().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LoadFullDump)->Unit(benchmark::kMicrosecond);

/// A Megatron-LM test config of n MODEL_ARGS_<i> sections with their MODEL_ENV_VARS entries
/// (issue #28: 20,000 sections took 44-54 s; each section is now looked up once).
void BM_LoadMlmTestConfigSections(benchmark::State& state) {
  std::string env = "MODEL_ENV_VARS:\n";
  std::string args;
  for (int64_t i = 0; i < state.range(0); ++i) {
    env += "  MODEL_ARGS_" + std::to_string(i) + ":\n    GPUS_PER_NODE: 8\n";
    args += "MODEL_ARGS_" + std::to_string(i) + ":\n  --num-layers: 4\n";
  }
  const std::string text = env + args;
  for (auto _ : state) {
    auto config = hcp::load_mlm_test_config_text(text, "sections.yaml");
    if (!config) state.SkipWithError(config.error().str().c_str());
    benchmark::DoNotOptimize(config);
  }
}
BENCHMARK(BM_LoadMlmTestConfigSections)
    ->Arg(1 << 10)
    ->Arg(1 << 12)
    ->Arg(1 << 14)
    ->Unit(benchmark::kMillisecond);

}  // namespace
