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

}  // namespace
}  // namespace hcp
