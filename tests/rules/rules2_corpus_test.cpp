// Every Megatron-LM functional-test config that uses CP (tests/fixtures/corpus, copied from
// Megatron-LM tests/functional_tests/test_cases/...) validates without errors under the MLM
// framework at the world size its CI uses; mutations of them are rejected with the right IDs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hcp/mlm_args.h"
#include "hcp/rules.h"

namespace hcp {
namespace {

const std::string kCorpus = std::string(HCP_FIXTURES_DIR) + "/corpus/";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::pair<std::string, int64_t>> corpus_entries() {
  auto sizes = nlohmann::json::parse(read(kCorpus + "world_sizes.json"));
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& [file, world] : sizes.items())
    out.emplace_back(file, world.get<int64_t>());
  return out;
}

/// Validate every section of an MLM test config the way `validate --framework mlm` does; count
/// the sections in `sections` when given.
std::vector<Diagnostic> validate_config(const std::string& path, int64_t world,
                                        int* sections = nullptr) {
  auto config = load_mlm_test_config(path);
  EXPECT_TRUE(config.ok()) << path << ": " << (config.ok() ? "" : config.error().str());
  std::vector<Diagnostic> all;
  if (!config.ok()) return all;
  if (sections != nullptr) *sections += static_cast<int>(config->sections.size());
  for (const MlmSection& section : config->sections) {
    Environment env;
    env.framework = Framework::kMlm;
    env.world_size = section.gpus_per_node.value_or(world);
    env.process_env = config->env_vars;
    for (Diagnostic& d : check_rules(section.recipe, env)) {
      d.message = section.name + ": " + d.message;
      all.push_back(std::move(d));
    }
  }
  return all;
}

std::string errors_of(const std::vector<Diagnostic>& ds) {
  std::string text;
  for (const Diagnostic& d : ds) {
    if (d.severity() == Severity::kError) {
      text += "  " + d.location.str() + " [" + d.id() + "] " + d.message + "\n";
    }
  }
  return text;
}

bool has_error(const std::vector<Diagnostic>& ds, const std::string& id) {
  for (const Diagnostic& d : ds) {
    if (d.id() == id && d.severity() == Severity::kError) return true;
  }
  return false;
}

TEST(Rules2Corpus, HasEveryConfig) {
  auto entries = corpus_entries();
  EXPECT_EQ(entries.size(), 55u);
  for (const auto& [file, world] : entries) {
    EXPECT_TRUE(is_mlm_test_config(kCorpus + file)) << file;
  }
}

TEST(Rules2Corpus, EveryConfigValidatesWithoutErrorUnderMlm) {
  int sections = 0;
  for (const auto& [file, world] : corpus_entries()) {
    auto ds = validate_config(kCorpus + file, world, &sections);
    EXPECT_EQ(errors_of(ds), "") << file << " at world size " << world;
  }
  EXPECT_GE(sections, 59);
}

TEST(Rules2Corpus, ReleaseTagConfigs) {
  // tests/fixtures/corpus/release: the same tests at Megatron-LM release tags, validated with
  // megatron-core at the tag's version; upstream's CI ran each on 8 GPUs.
  const std::vector<std::pair<std::string, Version>> configs = {
      {"gpt3_mcore_te_tp1_pp2_cp4_a2a_p2p_nondeterministic@core_v0.18.2.yaml", {0, 18, 2, ""}},
      {"gpt3_mcore_te_tp2_pp2_cp2_calculate_per_token_loss@core_v0.18.2.yaml", {0, 18, 2, ""}},
      {"gpt3_mcore_tp2_cp2_pp2_ep2_te_4experts2parallel@core_v0.18.2.yaml", {0, 18, 2, ""}},
      {"hybrid_mr_mcore_te_tp2_pp1_cp4_dgx_a100_1N8G@core_v0.18.2.yaml", {0, 18, 2, ""}},
      {"gpt3_mcore_te_tp2_pp1_cp2_nondeterministic@core_v0.17.1.yaml", {0, 17, 1, ""}},
      {"gpt3_weekly_mcore_tp4_cp2_current_scaling_native_fp8_tp_sp_cp_tp_overlap@core_v0.17.1.yaml",
       {0, 17, 1, ""}},
  };
  for (const auto& [file, mcore] : configs) {
    auto config = load_mlm_test_config(kCorpus + "release/" + file);
    ASSERT_TRUE(config.ok()) << file << ": " << config.error().str();
    for (const MlmSection& section : config->sections) {
      Environment env;
      env.framework = Framework::kMlm;
      env.world_size = section.gpus_per_node.value_or(8);
      env.process_env = config->env_vars;
      env.mcore_version = mcore;
      EXPECT_GT(layout_of(section.recipe).cp, 1) << file;
      EXPECT_EQ(errors_of(check_rules(section.recipe, env)), "") << file << " " << section.name;
    }
  }
}

/// Write `file` from the corpus with each `from` replaced by its `to` (each must occur) to a
/// temp file; return its path.
std::string mutate(const std::string& file,
                   const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = read(kCorpus + file);
  for (const auto& [from, to] : edits) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  // One file per test process: ctest -j runs these tests side by side on the same corpus files.
  std::string path = ::testing::TempDir() + "/mutated_" + std::to_string(getpid()) + "_" + file;
  std::ofstream(path) << text;
  return path;
}

std::string mutate(const std::string& file, const std::string& from, const std::string& to) {
  return mutate(file, {{from, to}});
}

constexpr const char* kHcpConfig = "gpt3_mcore_te_tp1_pp2_cp4_a2a_p2p_nondeterministic.yaml";

TEST(Rules2CorpusMutations, HcpSizesDroppedIsCP012) {
  auto ds =
      validate_config(mutate(kHcpConfig, "  --hierarchical-context-parallel-sizes: 2 2\n", ""), 8);
  EXPECT_TRUE(has_error(ds, "CP012")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, HcpProductWrongIsCP013) {
  auto ds = validate_config(mutate(kHcpConfig, "--hierarchical-context-parallel-sizes: 2 2",
                                   "--hierarchical-context-parallel-sizes: 2 4"),
                            8);
  EXPECT_TRUE(has_error(ds, "CP013")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, SequenceNotDivisibleIsCP040) {
  auto ds = validate_config(mutate(kHcpConfig, "--seq-length: 1024", "--seq-length: 1020"), 8);
  EXPECT_TRUE(has_error(ds, "CP040")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, A2aLevelLargerThanHeadsAllowIsCP033) {
  // One KV head per TP rank cannot be split over an a2a level of 2.
  auto ds = validate_config(mutate(kHcpConfig, "--num-attention-heads: 8",
                                   "--num-attention-heads: 8\n  --group-query-attention: true\n"
                                   "  --num-query-groups: 1"),
                            8);
  EXPECT_TRUE(has_error(ds, "CP033")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, PlainA2aBeyondHeadsIsCP032) {
  auto ds = validate_config(mutate("gpt3_mcore_te_tp2_pp2_cp2.yaml", "--context-parallel-size: 2",
                                   "--context-parallel-size: 2\n  --cp-comm-type: a2a\n"
                                   "  --num-query-groups: 2\n  --group-query-attention: true"),
                            8);
  EXPECT_TRUE(has_error(ds, "CP032")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, WorldSizeNotDivisibleIsCP001) {
  auto ds = validate_config(kCorpus + kHcpConfig, 12);
  EXPECT_TRUE(has_error(ds, "CP001")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, EnvWithoutOneConnectionIsCP111) {
  auto ds = validate_config(
      mutate(kHcpConfig, "CUDA_DEVICE_MAX_CONNECTIONS: 1", "CUDA_DEVICE_MAX_CONNECTIONS: 8"), 8);
  EXPECT_TRUE(has_error(ds, "CP111")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, DynamicCpPoolTooSmallIsCP083) {
  auto ds = validate_config(
      mutate("gpt3_mcore_te_tp2_pp1_cp4_dcp.yaml", "--max-seqlen-per-dp-cp-rank: 512",
             "--max-seqlen-per-dp-cp-rank: 256"),
      8);
  EXPECT_TRUE(has_error(ds, "CP083")) << errors_of(ds);
}

TEST(Rules2CorpusMutations, ThdWithHierarchicalCpIsCP051) {
  auto ds = validate_config(
      mutate("multimodal_llava_mcore_te_tp4_sp_cp2.yaml",
             {{"--tensor-model-parallel-size: 4", "--tensor-model-parallel-size: 2"},
              {"--context-parallel-size: 2",
               "--context-parallel-size: 4\n  --cp-comm-type: a2a+p2p\n"
               "  --hierarchical-context-parallel-sizes: 2 2"}}),
      8);
  EXPECT_TRUE(has_error(ds, "CP051")) << errors_of(ds);
}

}  // namespace
}  // namespace hcp
