// Every shipped recipe loads, names its source and cluster, and is internally consistent (the
// validator should report it clean, so obvious mistakes are caught here already).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>

#include "hcp/recipe.h"

namespace hcp {
namespace {

std::vector<std::string> shipped_files() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(HCP_RECIPES_DIR)) {
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ShippedRecipes, AtLeastTwelveIncludingTheDefault) {
  std::vector<std::string> files = shipped_files();
  EXPECT_GE(files.size(), 12u);
  EXPECT_TRUE(std::filesystem::exists(HCP_RECIPES_DIR "/llama3_8b_128k.yaml"));
}

class ShippedRecipe : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedRecipe, LoadsAndIsConsistent) {
  const std::string& path = GetParam();
  Result<Recipe> loaded = load_recipe_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  const Recipe& r = *loaded;
  std::string text = read(path);
  EXPECT_EQ(text.rfind("# ", 0), 0u) << "starts with a comment";
  EXPECT_NE(text.find("# Source:"), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      text, m, std::regex(R"(# Cluster: (\d+) nodes? x (\d+) .*\(world size (\d+)\))")))
      << "names its cluster";
  int64_t world = std::stoll(m[3]);
  EXPECT_EQ(std::stoll(m[1]) * std::stoll(m[2]), world);

  Layout p = layout_of(r);
  int64_t seq = r.int_or("model.seq_length", 0);
  EXPECT_EQ(r.get_int("dataset.seq_length"), seq);
  EXPECT_EQ(world % (p.tp * p.pp * p.cp), 0);
  int64_t dp = world / (p.tp * p.pp * p.cp);
  EXPECT_EQ(r.int_or("train.global_batch_size", 0) % (r.int_or("train.micro_batch_size", 1) * dp),
            0);
  if (p.cp > 1) {
    EXPECT_EQ(seq % (2 * p.cp), 0);
  }
  if (p.sequence_parallel) {
    EXPECT_GT(p.tp, 1);
    EXPECT_EQ(seq % (p.tp * p.cp), 0);
  }
  int64_t heads = r.int_or("model.num_attention_heads", 0);
  int64_t groups = r.int_or("model.num_query_groups", heads);
  EXPECT_EQ(heads % p.tp, 0);
  EXPECT_TRUE(groups % p.tp == 0 || p.tp % groups == 0);
  int64_t kv_local = groups >= p.tp ? groups / p.tp : 1;
  const std::vector<std::string> comm_types = cp_comm_type_texts(r);
  ASSERT_EQ(comm_types.size(), 1u);
  const std::string& comm = comm_types[0];
  if (comm == "a2a") {
    EXPECT_LE(p.cp, kv_local);
  }
  if (comm == "a2a+p2p") {
    ASSERT_EQ(p.hcp.size(), 2u);
    EXPECT_EQ(p.hcp[0] * p.hcp[1], p.cp);
    EXPECT_LE(p.hcp[0], kv_local);
    EXPECT_EQ(kv_local % p.hcp[0], 0);
    EXPECT_FALSE(r.bool_or("dist.use_decentralized_pg", false));
  } else {
    EXPECT_TRUE(p.hcp.empty());
  }
  if (int64_t experts = r.int_or("model.num_moe_experts", 0); experts > 0) {
    EXPECT_EQ(experts % p.ep, 0);
    EXPECT_EQ(world % (p.expert_tp() * p.ep * p.pp), 0);
    if (p.tp > 1) {
      EXPECT_TRUE(p.sequence_parallel);
    }
  }
  if (p.vpp) {
    EXPECT_EQ(r.int_or("model.num_layers", 0) % (p.pp * *p.vpp), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(All, ShippedRecipe, ::testing::ValuesIn(shipped_files()),
                         [](const auto& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

TEST(ResolveRecipePath, ShippedNameWithAndWithoutExtension) {
  Result<std::string> a = resolve_recipe_path("llama3_8b_128k");
  ASSERT_TRUE(a.ok()) << a.error().str();
  EXPECT_EQ(std::filesystem::path(*a).filename(), "llama3_8b_128k.yaml");
  Result<std::string> b = resolve_recipe_path("llama3_8b_128k.yaml");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(ResolveRecipePath, PathIsReturnedAsIs) {
  std::string path = HCP_RECIPES_DIR "/qwen3_8b_32k.yaml";
  EXPECT_EQ(*resolve_recipe_path(path), path);
}

TEST(ResolveRecipePath, UnknownNameGetsDidYouMean) {
  Result<std::string> r = resolve_recipe_path("llama3_8b_128");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "no recipe file or shipped recipe named 'llama3_8b_128' (did you mean "
            "'llama3_8b_128k'?)");
  Result<std::string> far = resolve_recipe_path("completely_unrelated_name");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message.find("did you mean"), std::string::npos);
}

TEST(ResolveRecipePath, MissingPath) {
  Result<std::string> r = resolve_recipe_path("./nope/x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().str(), "./nope/x.yaml: no such file");
}

TEST(ResolveRecipePath, ShippedNamesListed) {
  std::vector<std::string> names = shipped_recipe_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "deepseek_v3_128k"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "clusters"), names.end());
}

}  // namespace
}  // namespace hcp
