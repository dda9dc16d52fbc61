// The 20 reported user failures of rules.md §10, reproduced as fixtures
// (tests/fixtures/failures), each caught by the rule the catalog names.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hcp/mlm_args.h"
#include "hcp/rules.h"

namespace hcp {
namespace {

const std::string kDir = std::string(HCP_FIXTURES_DIR) + "/failures/";

nlohmann::json manifest() {
  std::ifstream in(kDir + "manifest.json");
  std::ostringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Load a fixture in whichever form it is, with the environment its ENV_VARS give.
Result<std::vector<std::pair<Recipe, Environment>>> load_fixture(const std::string& path) {
  std::vector<std::pair<Recipe, Environment>> out;
  if (ends_with(path, ".args") || is_mlm_test_config(path)) {
    auto config = ends_with(path, ".args") ? load_mlm_args("@" + path) : load_mlm_test_config(path);
    if (!config) return config.error();
    for (MlmSection& section : config->sections) {
      Environment env;
      env.framework = Framework::kMlm;
      env.process_env = config->env_vars;
      out.emplace_back(std::move(section.recipe), env);
    }
    return out;
  }
  auto recipe = load_recipe_file(path);
  if (!recipe) return recipe.error();
  Environment env;
  env.framework = recipe->framework;
  out.emplace_back(std::move(*recipe), env);
  return out;
}

class Rules2Failures : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(Rules2Failures, CaughtByTheCatalogRule) {
  const nlohmann::json& entry = GetParam();
  std::string path = kDir + entry["file"].get<std::string>();
  auto loaded = load_fixture(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  std::vector<Diagnostic> all;
  for (auto& [recipe, env] : *loaded) {
    env.world_size = entry["world_size"].get<int64_t>();
    if (entry.contains("te_version"))
      env.te_version = Version::parse(entry["te_version"].get<std::string>());
    if (entry.contains("mcore_version")) {
      env.mcore_version = Version::parse(entry["mcore_version"].get<std::string>());
    }
    for (Diagnostic& d : check_rules(recipe, env))
      all.push_back(std::move(d));
  }
  std::string seen;
  for (const Diagnostic& d : all) {
    seen += "  [" + d.id() + "] " + severity_name(d.severity()) + ": " + d.message + "\n";
  }
  for (const auto& id : entry["expect"]) {
    bool caught = std::any_of(all.begin(), all.end(), [&](const Diagnostic& d) {
      return d.id() == id.get<std::string>() && d.severity() != Severity::kInfo;
    });
    EXPECT_TRUE(caught) << entry["file"] << " not caught by " << id << "; saw:\n" << seen;
  }
}

INSTANTIATE_TEST_SUITE_P(Section10, Rules2Failures,
                         ::testing::ValuesIn(manifest().get<std::vector<nlohmann::json>>()),
                         [](const ::testing::TestParamInfo<nlohmann::json>& info) {
                           return "failure_" + std::to_string(info.param["n"].get<int>());
                         });

TEST(Rules2FailuresManifest, CoversAllTwentyReportsAndNamesTheirSource) {
  auto entries = manifest();
  ASSERT_EQ(entries.size(), 20u);
  for (const auto& entry : entries) {
    std::ifstream in(kDir + entry["file"].get<std::string>());
    std::string first_line;
    std::getline(in, first_line);
    EXPECT_EQ(first_line.rfind("# Reproduces ", 0), 0u) << entry["file"];
  }
}

}  // namespace
}  // namespace hcp
