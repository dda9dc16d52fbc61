// prepare_plan(): the constants `plan` and `compare` price with are the shipped fit file's.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "hcp/model_constants.h"
#include "hcp/planner.h"

namespace hcp {
namespace {

/// The values of one generation in recipes/corpus/fitted_constants.json, read as plain JSON.
std::map<std::string, double> fit_file_values(const std::string& generation) {
  std::ifstream in(HCP_RECIPES_DIR "/corpus/fitted_constants.json");
  const nlohmann::json file = nlohmann::json::parse(in);
  std::map<std::string, double> out;
  for (const auto& c : file["constants"]) {
    if (c["generation"] == generation) out[c["name"].get<std::string>()] = c["value"];
  }
  return out;
}

TEST(PreparePlan, PricesWithTheValuesOfTheShippedFitFile) {
  for (const char* cluster : {"dgx-h100", "dgx-b200", "gb300-nvl72"}) {
    PlanInputs in;
    in.recipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";
    in.nodes = 4;
    in.cluster = cluster;
    auto prepared = prepare_plan(in);
    ASSERT_TRUE(prepared) << cluster << ": " << prepared.error().str();
    const Hardware& hw = prepared->request.hardware;
    auto values = fit_file_values(generation_name(hw.generation));
    ASSERT_EQ(values.size(), constant_catalog().size()) << cluster;
    for (const ConstantInfo& c : constant_catalog())
      EXPECT_EQ(hw.k.*(c.member), values[std::string(c.name)]) << cluster << " " << c.name;
    EXPECT_EQ(hw.gemm_efficiency, values["gemm_eff_bf16"]) << cluster;
  }
}

TEST(PreparePlan, PricesCpAllToAllAtNcclsRateAndEpDispatchAtItsFit) {
  // One constant once priced both; the fit, which sees only EP dispatch, put Hopper's at 0.25 of
  // NVLink, and every H100 plan charged CP's a2a three times NCCL's all-to-all time.
  PlanInputs in;
  in.recipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";
  in.nodes = 4;
  in.cluster = "dgx-h100";
  auto prepared = prepare_plan(in);
  ASSERT_TRUE(prepared) << prepared.error().str();
  const Hardware& hw = prepared->request.hardware;
  auto values = fit_file_values("hopper");
  EXPECT_EQ(values["a2a_nvlink_eff"], 0.82);  // NCCL busbw ~370 of 450 GB/s (nccl-tests #212)
  EXPECT_DOUBLE_EQ(hw.nvlink_a2a_gbs, 450 * 0.82);
  EXPECT_DOUBLE_EQ(hw.ep_nvlink_a2a_gbs, 450 * values["ep_a2a_nvlink_eff"]);
  EXPECT_DOUBLE_EQ(hw.a2a_gbs(true), hw.nvlink_a2a_gbs);
  EXPECT_DOUBLE_EQ(hw.ep_a2a_gbs(true), hw.ep_nvlink_a2a_gbs);
  EXPECT_DOUBLE_EQ(hw.ep_a2a_gbs(false), hw.a2a_gbs(false));  // across nodes the NIC bounds both
}

// A model no layout can run (CP116) stops plan and compare once, with the rule's ID at its key,
// instead of rejecting every candidate (or pricing TP1 CP1 as if it ran).
TEST(PreparePlan, AModelWhoseHeadsTheQueryGroupsDoNotDivideIsOneCp116Error) {
  PlanInputs in;
  in.recipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";
  in.nodes = 4;
  in.overrides = {"model.num_query_groups=3", "model.cp_comm_type=p2p",
                  "model.hierarchical_context_parallel_sizes=null"};
  auto prepared = prepare_plan(in);
  ASSERT_FALSE(prepared);
  EXPECT_EQ(prepared.error().message.rfind("[CP116] num_attention_heads (32) must be a multiple "
                                           "of num_query_groups (3)",
                                           0),
            0u)
      << prepared.error().str();
  EXPECT_EQ(prepared.error().key, "model.num_query_groups");
  EXPECT_EQ(prepared.error().location.file, "<override 1>");
  in.overrides[0] = "model.num_query_groups=4";
  EXPECT_TRUE(prepare_plan(in));
}

TEST(LayoutFromOption, AnOptionDoesNotInheritACommTypeTeRejects) {
  auto recipe = load_recipe_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml");
  ASSERT_TRUE(recipe);
  ASSERT_TRUE(apply_overrides(*recipe, {"model.cp_comm_type=allgather"}));
  auto inherited = layout_from_option(*recipe, "tp=2", 32);
  ASSERT_FALSE(inherited);
  EXPECT_NE(inherited.error().message.find("unknown cp_comm_type 'allgather'"), std::string::npos)
      << inherited.error().message;
  auto given = layout_from_option(*recipe, "tp=2,cp_comm_type=all_gather", 32);
  ASSERT_TRUE(given) << given.error().str();
  EXPECT_EQ(given->comm, CpCommType::kAllGather);
}

}  // namespace
}  // namespace hcp
