// Runs every family's RuleCase list (instantiated in tests/rules/rules_<family>_test.cpp): the
// failing mutation fires the rule, the passing one keeps it quiet; and the base recipes are clean.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

TEST_P(RuleCaseTest, BadFires) {
  auto ds = run(GetParam().bad);
  EXPECT_TRUE(has_id(ds, GetParam().id)) << "diagnostics:\n" << dump(ds);
}

TEST_P(RuleCaseTest, GoodIsQuiet) {
  auto ds = run(GetParam().good);
  EXPECT_FALSE(has_id(ds, GetParam().id)) << "diagnostics:\n" << dump(ds);
}

TEST(RuleCases, GqaRecipeHasNoErrors) {
  auto ds = run(nullptr);
  for (const Diagnostic& d : ds)
    EXPECT_NE(d.severity(), Severity::kError) << dump(ds);
}

TEST(RuleCases, LlamaRecipeIsClean) {
  auto diagnostics = check_rules(llama_cp16(), llama_env());
  Summary s = summarize(diagnostics);
  EXPECT_EQ(s.errors + s.warnings, 0) << dump(diagnostics);
}

TEST(RuleCases, DiagnosticsCarryEnforcedByAndLocation) {
  auto ds = run([](Recipe& r, Environment&) { r.set("model.batch_invariant_mode", B(true)); });
  auto it =
      std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id() == "CP103"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->enforced_by(), std::vector<std::string>{"mcore"});
  EXPECT_EQ(it->location.file, "test.yaml");
}

}  // namespace
}  // namespace hcp::test
