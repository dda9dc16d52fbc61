// `plan` keeps each recipe's own layout: for every Megatron-Bridge dryrun dump
// (tests/fixtures/real/bridge, configurations that ran on NVIDIA's clusters) the search at the
// dump's world size lists the dump's own layout, marked as the recipe's, and no rule rejects it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hcp/cluster.h"
#include "hcp/planner.h"

namespace hcp {
namespace {

struct Dump {
  std::string file;
  int64_t world_size = 0;
  std::string gpu;
};

std::vector<Dump> dumps() {
  std::ifstream in(HCP_FIXTURES_DIR "/real/bridge/world_sizes.tsv");
  std::vector<Dump> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Dump d;
    fields >> d.file >> d.world_size >> d.gpu;
    out.push_back(d);
  }
  return out;
}

/// The shipped cluster profile of each GPU in world_sizes.tsv, with its GPUs per node. No
/// profile describes Vera Rubin (vr200): GB300 NVL72, the newest shipped, stands in for it.
struct Profile {
  const char* name;
  int64_t gpus_per_node;
};
const std::map<std::string, Profile> kProfiles = {
    {"h100", {"dgx-h100", 8}},     {"b200", {"dgx-b200", 8}},     {"b300", {"dgx-b300", 8}},
    {"gb200", {"gb200-nvl72", 4}}, {"gb300", {"gb300-nvl72", 4}}, {"vr200", {"gb300-nvl72", 4}},
};

/// The one dump upstream's own validation rejects: model.seq_length 16384 against
/// dataset.seq_length 4096 (Bridge ConfigContainer.validate; CP042), so plan rejects its layout.
constexpr const char* kMismatchedSeqLength = "llama3_8b_sft_gb200_fp8_mx_v1.yaml";
/// The one dump that records pipeline_model_parallel_layout null with 61 layers on PP 8: as
/// written MCore asserts the even split (CP008); Bridge's recipe set a layout from (PP, VP) that
/// the dump does not record (tests/cli/real_corpus_cli_test.cpp kLayoutNotRecorded).
constexpr const char* kLayoutNotRecorded = "deepseek_v3_pretrain_h100_fp8_sc_v2.yaml";

/// Each shipped profile read once: handed to prepare_plan as the CLI hands it a profile it read.
const Result<ClusterProfile>& shipped_profile(const std::string& name) {
  static std::map<std::string, Result<ClusterProfile>> profiles;
  auto it = profiles.find(name);
  if (it == profiles.end()) it = profiles.emplace(name, find_cluster_profile(name)).first;
  return it->second;
}

Result<PreparedPlan> prepare(const Dump& d) {
  auto profile = kProfiles.find(d.gpu);
  EXPECT_NE(profile, kProfiles.end()) << "no cluster profile for GPU " << d.gpu;
  PlanInputs in;
  in.recipe = HCP_FIXTURES_DIR "/real/bridge/" + d.file;
  in.cluster = profile->second.name;
  const auto& read = shipped_profile(in.cluster);
  EXPECT_TRUE(read) << read.error().str();
  if (read) in.cluster_profile = *read;
  EXPECT_EQ(d.world_size % profile->second.gpus_per_node, 0);
  in.nodes = d.world_size / profile->second.gpus_per_node;
  return prepare_plan(in);
}

/// Each dump prepared once per process, on first use (reading a dump is most of what these
/// tests cost): the two tests below share them when one process runs both, and a test sharded
/// alone reads only the dumps it needs.
const Result<PreparedPlan>& prepared(const Dump& d) {
  static std::map<std::string, Result<PreparedPlan>> cache;
  auto it = cache.find(d.file);
  if (it == cache.end()) it = cache.emplace(d.file, prepare(d)).first;
  return it->second;
}

TEST(DryrunDumpsPlan, EveryDumpIsListed) {
  EXPECT_EQ(dumps().size(), 32u);
}

// What plan does with the recipe's own layout (it is always in the space and always evaluated,
// never pruned): evaluate_layout at the dump's world size must accept it. One evaluation per
// dump keeps this fast; the full search runs below on two dumps.
TEST(DryrunDumpsPlan, OwnLayoutIsAcceptedAtTheDumpsWorldSize) {
  for (const Dump& d : dumps()) {
    SCOPED_TRACE(d.file);
    const auto& prepared_plan = prepared(d);
    ASSERT_TRUE(prepared_plan) << prepared_plan.error().str();
    const PlanRequest& request = prepared_plan->request;
    auto own = layout_on(request.recipe, d.world_size);
    ASSERT_TRUE(own) << own.error().str();
    EXPECT_EQ(own->world(), d.world_size);
    auto model = model_dims_of(request.recipe);
    ASSERT_TRUE(model) << model.error().str();
    EvaluatedOption evaluated = evaluate_layout(request, *model, *own);
    if (d.file == kMismatchedSeqLength) {
      ASSERT_TRUE(evaluated.rejected);
      EXPECT_EQ(evaluated.rejected->rule_id, "CP042") << evaluated.rejected->message;
      continue;
    }
    if (d.file == kLayoutNotRecorded) {
      ASSERT_TRUE(evaluated.rejected);
      EXPECT_EQ(evaluated.rejected->rule_id, "CP008") << evaluated.rejected->message;
      continue;
    }
    EXPECT_FALSE(evaluated.rejected)
        << "rejected by " << evaluated.rejected->rule_id << ": " << evaluated.rejected->message;
  }
}

// The full search on two dumps (a dense SFT recipe and an MoE pretraining one, the fastest to
// search): the recipe's own layout is listed once, marked as the recipe's.
TEST(DryrunDumpsPlan, SearchListsAndMarksTheOwnLayout) {
  for (const Dump& d : dumps()) {
    if (d.file != "llama3_70b_sft_gb200_fp8_mx_v1.yaml" &&
        d.file != "gpt_oss_120b_pretrain_gb200_fp8_mx_v2.yaml") {
      continue;
    }
    SCOPED_TRACE(d.file);
    const auto& prepared_plan = prepared(d);
    ASSERT_TRUE(prepared_plan) << prepared_plan.error().str();
    auto result = plan(prepared_plan->request);
    ASSERT_TRUE(result) << result.error().str();
    ASSERT_TRUE(result->recipe_layout);
    EXPECT_FALSE(result->recipe_rejected);
    ASSERT_TRUE(result->recipe_rank);
    const PlanOption& own = result->options[*result->recipe_rank];
    EXPECT_TRUE(own.recipe_layout);
    EXPECT_EQ(own.layout.tp, result->recipe_layout->tp);
    EXPECT_EQ(own.layout.cp, result->recipe_layout->cp);
    EXPECT_EQ(own.layout.pp, result->recipe_layout->pp);
    EXPECT_EQ(own.layout.ep, result->recipe_layout->ep);
    EXPECT_EQ(std::count_if(result->options.begin(), result->options.end(),
                            [](const PlanOption& o) { return o.recipe_layout; }),
              1);
  }
}

}  // namespace
}  // namespace hcp
