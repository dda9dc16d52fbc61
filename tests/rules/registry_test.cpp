// The rule registry: catalog integrity, every rule's failing and passing example, unknown inputs,
// ordering and the environment options.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "hcp/mlm_args.h"
#include "hcp/recipe.h"
#include "hcp/rules.h"
#include "rule_test_util.h"

namespace hcp {
namespace {

using test::dump;
using test::has_id;

Recipe default_recipe() {
  auto path = resolve_recipe_path(std::string(kExampleRecipe));
  EXPECT_TRUE(path.ok()) << path.error().str();
  auto recipe = load_recipe_file(*path);
  EXPECT_TRUE(recipe.ok()) << recipe.error().str();
  return *recipe;
}

TEST(Registry, IdsAreUniqueSortedAndWellFormed) {
  const auto& rules = rule_registry();
  ASSERT_GE(rules.size(), 36u);
  std::set<std::string_view> seen;
  std::regex id_form("CP[0-9]{3}|PF[0-9]{3}|TOPO[0-9]{3}|LOG[0-9]{3}|IN[0-9]{3}");
  for (size_t i = 0; i < rules.size(); ++i) {
    const Rule& rule = rules[i];
    EXPECT_TRUE(std::regex_match(std::string(rule.id), id_form)) << rule.id;
    EXPECT_TRUE(seen.insert(rule.id).second) << "duplicate " << rule.id;
    if (i > 0) {
      EXPECT_LT(rules[i - 1].id, rule.id);
    }
    EXPECT_FALSE(rule.title.empty()) << rule.id;
    EXPECT_FALSE(rule.rationale.empty()) << rule.id;
    EXPECT_FALSE(rule.upstream.empty()) << rule.id;
    EXPECT_FALSE(rule.fix.empty()) << rule.id;
    EXPECT_FALSE(rule.family.empty()) << rule.id;
    EXPECT_TRUE(!rule.bad_example.empty() || !rule.bad_example_yaml.empty()) << rule.id;
    // Catalog entries without a recipe check: launch rules, the notes on unknown inputs and
    // validate's memory finding (CP115: plan's memory model, which the rules module lacks).
    bool launch_rule = rule.id.starts_with("PF") || rule.id.starts_with("TOPO") ||
                       rule.id.starts_with("LOG") || rule.id.starts_with("IN");
    bool computed_by_validate = rule.id == "CP115";
    EXPECT_EQ(rule.check == nullptr, launch_rule || computed_by_validate) << rule.id;
    if (launch_rule || computed_by_validate) {
      EXPECT_FALSE(rule.good_example.empty()) << rule.id;
      EXPECT_TRUE(
          rule.runs_in == "preflight" || rule.runs_in == "probe" || rule.runs_in == "check-log" ||
          ((rule.id.starts_with("IN") || computed_by_validate) && rule.runs_in == "validate"))
          << rule.id;
    }
    for (std::string_view who : rule.enforced_by) {
      EXPECT_TRUE(who == "bridge" || who == "mcore" || who == "mlm" || who == "te")
          << rule.id << " enforced_by " << who;
    }
  }
}

TEST(Registry, CoversTheFirstHalfOfTheCatalog) {
  for (const char* id :
       {"CP001", "CP002", "CP003", "CP004", "CP005", "CP006", "CP007", "CP010", "CP011", "CP012",
        "CP013", "CP014", "CP015", "CP016", "CP017", "CP018", "CP019", "CP020", "CP021", "CP022",
        "CP023", "CP030", "CP031", "CP032", "CP033", "CP034", "CP035", "CP040", "CP041", "CP042",
        "CP043", "CP044", "CP045", "CP046", "CP047", "CP048", "CP049"}) {
    EXPECT_NE(find_rule(id), nullptr) << id;
  }
}

TEST(Registry, FindRuleIgnoresCaseAndRejectsUnknownIds) {
  ASSERT_NE(find_rule("cp013"), nullptr);
  EXPECT_EQ(find_rule("cp013")->id, "CP013");
  EXPECT_EQ(find_rule("CP999"), nullptr);
  EXPECT_EQ(find_rule(""), nullptr);
  EXPECT_EQ(find_rule("CP0133"), nullptr);
}

// --- Every rule's examples, run through the loader, the overrides and every rule -------------

/// run_rule_example of each rule's passing or failing example, run once per process: the
/// example tests and the reads test below share them.
const Result<ExampleRun>& example_run(const Rule& rule, bool failing) {
  static std::map<std::pair<std::string, bool>, Result<ExampleRun>> runs;
  const std::pair<std::string, bool> key{std::string(rule.id), failing};
  auto it = runs.find(key);
  if (it == runs.end()) it = runs.emplace(key, run_rule_example(rule, failing)).first;
  return it->second;
}

class RuleExample : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleExample, FailingExampleFires) {
  const Rule* rule = find_rule(GetParam());
  ASSERT_NE(rule, nullptr);
  const auto& run = example_run(*rule, true);
  if (rule->loader_rejects_bad_example) {
    ASSERT_FALSE(run.ok()) << rule->id << ": the loader accepted " << rule->bad_example;
    return;
  }
  ASSERT_TRUE(run.ok()) << run.error().str();
  EXPECT_TRUE(has_id(run->diagnostics, rule->id))
      << rule->id << " did not fire on: " << rule->bad_example << " " << rule->example_args << "\n"
      << dump(run->diagnostics);
}

TEST_P(RuleExample, PassingExampleIsQuiet) {
  const Rule* rule = find_rule(GetParam());
  ASSERT_NE(rule, nullptr);
  const auto& run = example_run(*rule, false);
  ASSERT_TRUE(run.ok()) << run.error().str();
  EXPECT_FALSE(has_id(run->diagnostics, rule->id))
      << rule->id << " fired on its passing example: " << rule->good_example << "\n"
      << dump(run->diagnostics);
}

/// The recipe rules (the PF* / TOPO* examples are inputs described in words).
std::vector<std::string> all_ids() {
  std::vector<std::string> ids;
  for (const Rule& rule : rule_registry()) {
    if (rule.check != nullptr) ids.emplace_back(rule.id);
  }
  return ids;
}

/// The case of `rule` named `name` ("" for the entry's own, which a case may restate).
struct ExpectedCase {
  Severity severity;
  std::string fix;
};
ExpectedCase expected_case(const Rule& rule, std::string_view name) {
  for (const RuleCase& c : rule.cases) {
    if (c.name == name) return {c.severity, std::string(c.fix.value_or(rule.fix))};
  }
  return {rule.severity, std::string(rule.fix)};
}

// Issue #26: a finding of any family (CP, PF, TOPO, LOG) is made from its catalog entry; the
// emitter passes an ID, a key, a message and at most a case name, never a severity or a fix.
TEST(Findings, TakeSeverityAndFixFromTheirCatalogEntry) {
  for (const Rule& rule : rule_registry()) {
    Diagnostic own = finding(rule.id, "model.x", "message");
    ExpectedCase want = expected_case(rule, "");
    EXPECT_EQ(own.id(), rule.id);
    EXPECT_EQ(own.severity(), want.severity) << rule.id;
    EXPECT_EQ(own.fix(), want.fix) << rule.id;
    EXPECT_EQ(own.key, "model.x");
    EXPECT_EQ(own.message, "message");
    EXPECT_EQ(own.enforced_by().size(), rule.enforced_by.size()) << rule.id;
    for (const RuleCase& c : rule.cases) {
      Diagnostic d = finding(rule.id, "", "message", FindingCase(c.name));
      ExpectedCase in_case = expected_case(rule, c.name);
      EXPECT_EQ(d.severity(), in_case.severity) << rule.id << " case " << c.name;
      if (in_case.fix.find("{}") == std::string::npos) {
        EXPECT_EQ(d.fix(), in_case.fix) << rule.id << " case " << c.name;
      }
    }
  }
}

TEST(Findings, CasesAreNamedOncePerRule) {
  int cases = 0;
  for (const Rule& rule : rule_registry()) {
    std::set<std::string_view> names;
    for (const RuleCase& c : rule.cases) {
      EXPECT_TRUE(names.insert(c.name).second) << rule.id << " repeats case '" << c.name << "'";
      ++cases;
    }
  }
  EXPECT_GE(cases, 40);
}

TEST(Findings, ACaseFillsTheSlotOfItsFix) {
  Diagnostic d = finding("CP041", "model.seq_length", "m", {"sequence_parallel", "48"});
  EXPECT_EQ(d.severity(), Severity::kError);
  EXPECT_EQ(d.fix(), "make seq_length a multiple of lcm(2*CP, TP*CP) = 48");
}

TEST(Findings, PreflightRaisesBrokenNvlinksThroughTheCatalog) {
  EXPECT_EQ(finding("TOPO001", "topology", "m").severity(), Severity::kWarning);
  EXPECT_EQ(finding("TOPO001", "node", "m", "preflight").severity(), Severity::kError);
  EXPECT_EQ(finding("TOPO002", "node", "m", "preflight").severity(), Severity::kError);
  EXPECT_EQ(finding("TOPO002", "node", "m", "fewer_links_preflight").fix(),
            finding("TOPO002", "topology", "m", "fewer_links").fix());
}

TEST(Findings, AnExplainedFailureTakesTheFixOfTheRuleThatExplainsIt) {
  const Rule* cause = find_rule("CP012");
  ASSERT_NE(cause, nullptr);
  Diagnostic d = finding_explained_by(*cause, "LOG020", "", "the job failed: ...");
  EXPECT_EQ(d.id(), "LOG020");
  EXPECT_EQ(d.severity(), Severity::kError);
  EXPECT_EQ(d.fix(), cause->fix.empty() ? find_rule("LOG020")->fix : cause->fix);
}

TEST(Findings, CheckLogNotesCarryNoFix) {
  for (const char* id : {"LOG006", "LOG008", "LOG030", "LOG032", "LOG033"}) {
    Diagnostic d = finding(id, "", "note");
    EXPECT_EQ(d.severity(), Severity::kInfo) << id;
    EXPECT_TRUE(d.fix().empty()) << id;
    EXPECT_FALSE(find_rule(id)->fix.empty()) << id << ": `explain` shows the entry's fix";
  }
}

TEST(Findings, AnUnknownIdOrCaseIsAProgrammingError) {
  EXPECT_THROW(finding("CP999", "", "m"), std::logic_error);
  EXPECT_THROW(finding("PF101", "", "m", "no_such_case"), std::logic_error);
}

TEST(Registry, CheckRulesSkipsLaunchRules) {
  Recipe recipe = default_recipe();
  for (const Diagnostic& d : check_rules(recipe, Environment{})) {
    EXPECT_FALSE(d.id().starts_with("PF") || d.id().starts_with("TOPO") ||
                 d.id().starts_with("LOG"))
        << d.id();
  }
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleExample, ::testing::ValuesIn(all_ids()),
                         [](const auto& info) { return info.param; });

// --- What each rule reads: its declared variant fields against its behaviour -----------------

// Issue #26: the planner prunes the other EP / ETP / VP variants of a layout on a rejection only
// when the rejecting rule does not read the fields they differ in (Rule::reads). A rule that
// reads a field it does not declare would prune variants that pass; one that declares a field
// it does not read keeps the search from pruning.

/// One layout field a planner variant changes, its recipe key and the values it takes (nullopt:
/// the key unset).
struct VariantKey {
  LayoutField field;
  std::string_view name;
  std::string_view key;
};
const std::vector<VariantKey>& variant_keys() {
  static const std::vector<VariantKey> keys = {
      {LayoutField::kEp, "EP", "model.expert_model_parallel_size"},
      {LayoutField::kEtp, "ETP", "model.expert_tensor_parallel_size"},
      {LayoutField::kVp, "VP", "model.virtual_pipeline_model_parallel_size"},
  };
  return keys;
}
const std::vector<std::optional<int64_t>> kVariantValues = {std::nullopt, 1, 2, 4, 8};

/// What `rule` alone reports on `recipe`: each finding's severity, key and message, and the
/// inputs it skipped or assumed.
std::vector<std::string> findings_of(const Rule& rule, const Recipe& recipe,
                                     const Environment& env) {
  std::vector<Diagnostic> found;
  MissingInputs missing;
  Reporter reporter(rule, recipe, found, &missing);
  rule.check(RuleContext{recipe, env}, reporter);
  std::vector<std::string> out;
  out.reserve(found.size());
  for (const Diagnostic& d : found)
    out.push_back(std::string(severity_name(d.severity())) + " " + d.key + ": " + d.message);
  for (const auto& [input, uses] : missing.uses) {
    for (const MissingInputs::Use& use : uses)
      out.push_back("missing " + std::to_string(static_cast<int>(input)) + ": " + use.assumption);
  }
  return out;
}

/// The recipes a rule's reads are tried on: its passing and failing examples, each as given and
/// as a mixture-of-experts model on two pipeline stages (where EP, ETP and VP take effect).
struct ReadBase {
  std::string name;
  Recipe recipe;
  Environment env;
};
std::vector<ReadBase> read_bases(const Rule& rule) {
  std::vector<ReadBase> out;
  for (bool failing : {false, true}) {
    if (failing && rule.loader_rejects_bad_example) continue;
    const auto& run = example_run(rule, failing);
    EXPECT_TRUE(run.ok()) << rule.id << ": " << run.error().str();
    if (!run.ok()) continue;
    std::string name = failing ? "failing example" : "passing example";
    out.push_back({name, run->recipe, run->env});
    Recipe moe = run->recipe;
    moe.set("model.pipeline_model_parallel_size", test::I(2));
    if (!moe.has("model.num_moe_experts")) moe.set("model.num_moe_experts", test::I(8));
    out.push_back({name + " as MoE on PP2", std::move(moe), run->env});
  }
  return out;
}

void set_key(Recipe& recipe, std::string_view key, std::optional<int64_t> value) {
  recipe.set(key, value ? test::I(*value) : Value::null(Location{"test.yaml", 1, 1}));
}

TEST(RuleReads, RulesDeclareOnlyVariantFields) {
  for (const Rule& rule : rule_registry()) {
    EXPECT_TRUE((rule.reads & ~variant_fields()).none()) << rule.id << " reads " << rule.reads;
    if (rule.check == nullptr) {
      EXPECT_TRUE(rule.reads.none()) << rule.id << " checks no recipe";
    }
  }
  EXPECT_EQ(variant_fields(),
            layout_fields({LayoutField::kEp, LayoutField::kEtp, LayoutField::kVp}));
}

class RuleReadsExample : public ::testing::TestWithParam<std::string> {};

// A field the rule does not declare changes none of its findings, over every value and base; a
// field it declares changes some finding on some base.
TEST_P(RuleReadsExample, DeclaredVariantFieldsAreExactlyTheOnesThatChangeItsFindings) {
  const Rule* rule = find_rule(GetParam());
  ASSERT_NE(rule, nullptr);
  std::vector<ReadBase> bases = read_bases(*rule);
  ASSERT_FALSE(bases.empty());
  std::vector<std::vector<std::string>> findings_as_given;
  findings_as_given.reserve(bases.size());
  for (const ReadBase& base : bases)
    findings_as_given.push_back(findings_of(*rule, base.recipe, base.env));
  for (const VariantKey& variant : variant_keys()) {
    bool declared = rule->reads.test(static_cast<size_t>(variant.field));
    bool changed = false;
    for (size_t b = 0; b < bases.size(); ++b) {
      const ReadBase& base = bases[b];
      const std::vector<std::string>& before = findings_as_given[b];
      Recipe perturbed = base.recipe;  // one copy per base and field: each value replaces the key
      for (std::optional<int64_t> value : kVariantValues) {
        set_key(perturbed, variant.key, value);
        std::vector<std::string> after = findings_of(*rule, perturbed, base.env);
        changed = changed || after != before;
        if (!declared) {
          EXPECT_EQ(after, before)
              << rule->id << " reads " << variant.name
              << " but does not declare it: " << variant.key << "="
              << (value ? std::to_string(*value) : "unset") << " on its " << base.name;
        }
      }
    }
    if (declared) {
      EXPECT_TRUE(changed) << rule->id << " declares " << variant.name
                           << " but no value of it changes its findings on its examples";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleReadsExample, ::testing::ValuesIn(all_ids()),
                         [](const auto& info) { return info.param; });

// --- The default recipe ------------------------------------------------------------------------

TEST(CheckRules, DefaultRecipeIsCleanOnFourNodesOfEight) {
  Recipe recipe = default_recipe();
  Environment env;
  env.world_size = 32;
  env.gpus_per_node = 8;
  env.te_version = Version{2, 18, 0, ""};
  env.mcore_version = Version{0, 17, 0, ""};
  auto diagnostics = check_rules(recipe, env);
  Summary s = summarize(diagnostics);
  EXPECT_EQ(s.errors, 0) << dump(diagnostics);
  EXPECT_EQ(s.warnings, 0) << dump(diagnostics);
}

TEST(CheckRules, ErrorsComeFirstThenByLocation) {
  Recipe recipe = default_recipe();
  ASSERT_TRUE(apply_overrides(recipe, {"model.hierarchical_context_parallel_sizes=[4,2]",
                                       "model.cp_comm_type=p2p", "++model.sequence_parallel=true"})
                  .ok());
  auto diagnostics = check_rules(recipe, Environment{});
  ASSERT_GE(diagnostics.size(), 3u);
  for (size_t i = 1; i < diagnostics.size(); ++i) {
    EXPECT_GE(diagnostics[i - 1].severity(), diagnostics[i].severity()) << dump(diagnostics);
  }
  EXPECT_TRUE(has_id(diagnostics, "CP013"));
  EXPECT_TRUE(has_id(diagnostics, "CP016"));
}

// --- Unknown inputs: one info per input, naming the rules ----------------------------------

std::vector<Diagnostic> input_infos(const std::vector<Diagnostic>& diagnostics) {
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : diagnostics) {
    if (d.id().rfind("IN", 0) == 0 && d.location.file == "<command line>") out.push_back(d);
  }
  return out;
}

TEST(MissingInputs, OneInfoPerUnknownInputNamingTheRules) {
  Recipe recipe = default_recipe();
  auto infos = input_infos(check_rules(recipe, Environment{}));
  int world = 0, te = 0, gpn = 0;
  for (const Diagnostic& d : infos) {
    EXPECT_EQ(d.severity(), Severity::kInfo);
    if (d.message.find("world size unknown") != std::string::npos) {
      ++world;
      EXPECT_NE(d.message.find("CP001"), std::string::npos) << d.message;
      EXPECT_NE(d.message.find("CP003"), std::string::npos) << d.message;
      EXPECT_NE(d.fix().find("--world-size"), std::string::npos);
    }
    if (d.message.find("Transformer Engine version unknown") != std::string::npos) {
      ++te;
      EXPECT_NE(d.message.find("CP018"), std::string::npos) << d.message;
    }
    if (d.message.find("GPUs per node unknown") != std::string::npos) {
      ++gpn;
      EXPECT_NE(d.message.find("CP020"), std::string::npos) << d.message;
    }
  }
  EXPECT_EQ(world, 1);
  EXPECT_EQ(te, 1);
  EXPECT_EQ(gpn, 1);
}

TEST(MissingInputs, NoInfoWhenTheInputsAreGiven) {
  Recipe recipe = default_recipe();
  Environment env;
  env.world_size = 32;
  env.gpus_per_node = 8;
  env.te_version = Version{2, 18, 0, ""};
  env.mcore_version = Version{0, 18, 0, ""};
  for (const Diagnostic& d : input_infos(check_rules(recipe, env))) {
    EXPECT_EQ(d.message.find("world size"), std::string::npos) << d.message;
    EXPECT_EQ(d.message.find("Transformer Engine"), std::string::npos) << d.message;
    EXPECT_EQ(d.message.find("Megatron-Core"), std::string::npos) << d.message;
    EXPECT_EQ(d.message.find("GPUs per node"), std::string::npos) << d.message;
  }
}

TEST(MissingInputs, AssumptionsAreNamed) {
  MissingInputs missing;
  missing.uses[Input::kTeVersion] = {{"CP018", ""}, {"CP034", "TE >= 2.15"}, {"CP018", ""}};
  auto infos = missing_input_diagnostics(missing);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].id(), "IN003");  // A catalog finding: it can be ignored like any other.
  EXPECT_EQ(infos[0].message,
            "Transformer Engine version unknown: skipped CP018; assumed TE >= 2.15 for CP034");
  EXPECT_NE(infos[0].fix().find("te_version in .hcp-plan.yaml"), std::string::npos);
}

// --- Environment options ---------------------------------------------------------------------

TEST(EnvironmentOptions, NodesTimesGpusGiveTheWorld) {
  Environment env;
  ASSERT_TRUE(set_environment_option(env, "nodes", "4").ok());
  ASSERT_TRUE(set_environment_option(env, "gpus-per-node", "8").ok());
  ASSERT_TRUE(finalize_environment(env).ok());
  EXPECT_EQ(env.world_size, 32);
}

TEST(EnvironmentOptions, ContradictingWorldSizeIsAnError) {
  Environment env;
  ASSERT_TRUE(set_environment_option(env, "world-size", "16").ok());
  ASSERT_TRUE(set_environment_option(env, "nodes", "4").ok());
  ASSERT_TRUE(set_environment_option(env, "gpus-per-node", "8").ok());
  auto s = finalize_environment(env);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("contradicts"), std::string::npos);
}

TEST(EnvironmentOptions, NodesWithoutGpusPerNodeIsAnError) {
  Environment env;
  ASSERT_TRUE(set_environment_option(env, "nodes", "4").ok());
  EXPECT_FALSE(finalize_environment(env).ok());
}

TEST(EnvironmentOptions, BadValuesAreRejected) {
  Environment env;
  EXPECT_FALSE(set_environment_option(env, "world-size", "0").ok());
  EXPECT_FALSE(set_environment_option(env, "world-size", "-8").ok());
  EXPECT_FALSE(set_environment_option(env, "world-size", "abc").ok());
  EXPECT_FALSE(set_environment_option(env, "world-size", "9223372036854775808").ok());
  EXPECT_FALSE(set_environment_option(env, "te-version", "latest").ok());
  EXPECT_FALSE(set_environment_option(env, "framework", "nemo").ok());
  EXPECT_FALSE(set_environment_option(env, "colour", "red").ok());
  ASSERT_TRUE(set_environment_option(env, "te-version", "2.18.0+e7c550c5").ok());
  EXPECT_EQ(env.te_version, (Version{2, 18, 0, ""}));
  ASSERT_TRUE(set_environment_option(env, "framework", "mlm").ok());
  EXPECT_EQ(env.framework, Framework::kMlm);
}

TEST(Examples, SplitSeparatesOptionsFromOverrides) {
  std::vector<std::string> overrides;
  Environment env;
  ASSERT_TRUE(
      split_example("model.x=1 -cp 4 --te-version 1.11 ~model.y --world-size 8", overrides, env)
          .ok());
  EXPECT_EQ(overrides, (std::vector<std::string>{"model.x=1", "-cp", "4", "~model.y"}));
  EXPECT_EQ(env.te_version, (Version{1, 11, 0, ""}));
  EXPECT_EQ(env.world_size, 8);
  EXPECT_FALSE(split_example("--te-version", overrides, env).ok());
}

// Issue #29: every fix hint an MLM input gets is a command line Megatron-LM's parser accepts.
// Each `key=value` of a rule's fixes (the entry's and its cases') whose key an MLM flag sets is
// spelled for MLM (hcp::mlm_spelling, as check_rules does) and parsed by the MLM loader, which
// rejects what argparse rejects ("--flag [8,2]", "--sequence-parallel false").
std::vector<std::string> fix_texts(const Rule& rule) {
  std::vector<std::string> texts{std::string(rule.fix)};
  for (const RuleCase& c : rule.cases) {
    if (c.fix) texts.emplace_back(*c.fix);
  }
  return texts;
}

/// `key=[A,P]` with its list's metavariables ("A", "a2a") as the integer 2: the hint's form is
/// what the parser must take, whatever values the user puts in.
std::string integers_for_metavariables(const std::string& assignment) {
  size_t open = assignment.find("=[");
  if (open == std::string::npos) return assignment;
  std::string items;
  std::string item;
  auto flush = [&]() {
    if (item.empty()) return;
    bool number = item.find_first_not_of("0123456789") == std::string::npos;
    items += (items.empty() ? "" : ",") + (number ? item : std::string("2"));
    item.clear();
  };
  for (char c : assignment.substr(open + 2)) {
    if (c == ',' || c == ']' || c == ' ') {
      flush();
    } else {
      item += c;
    }
  }
  return assignment.substr(0, open + 2) + items + "]";
}

TEST(Registry, EveryMlmFixHintParsesAsMegatronLmArguments) {
  std::regex assignment(R"(([a-z_]+\.)+[a-z0-9_]+=(\[[^\]]*\]|[^\s,;)]+))");
  int parsed = 0;
  for (const Rule& rule : rule_registry()) {
    for (std::string text : fix_texts(rule)) {
      if (size_t slot = text.find("{}"); slot != std::string::npos) text.replace(slot, 2, "2");
      for (std::sregex_iterator it(text.begin(), text.end(), assignment), end; it != end; ++it) {
        std::string bridge = it->str();
        while (bridge.ends_with("."))
          bridge.pop_back();
        std::string key = bridge.substr(0, bridge.find('='));
        if (mlm_flag_for_key(key).empty()) continue;
        std::string spelled = mlm_spelling(integers_for_metavariables(bridge));
        // "without --flag" says to leave a switch out: the switch alone must parse.
        if (spelled.starts_with("without ")) spelled = spelled.substr(8);
        auto config = load_mlm_args(spelled);
        EXPECT_TRUE(config.ok()) << rule.id << ": '" << bridge << "' spelled '" << spelled
                                 << "': " << (config.ok() ? "" : config.error().str());
        ++parsed;
      }
    }
  }
  EXPECT_GE(parsed, 8);  // The hints with a key an MLM flag sets (CP006's, CP012's, ...).
}

TEST(Registry, MlmSpellingWritesListsSpacedAndSwitchesBare) {
  EXPECT_EQ(mlm_spelling("set model.hierarchical_context_parallel_sizes=[8,2]."),
            "set --hierarchical-context-parallel-sizes 8 2.");
  EXPECT_EQ(mlm_spelling("set model.sequence_parallel=true"), "set --sequence-parallel");
  EXPECT_EQ(mlm_spelling("set model.sequence_parallel=false, or use TP > 1"),
            "set without --sequence-parallel, or use TP > 1");
  EXPECT_EQ(mlm_spelling("set model.apply_rope_fusion=false"), "set --no-rope-fusion");
  EXPECT_EQ(mlm_spelling("set model.context_parallel_size=2 (or 4)"),
            "set --context-parallel-size 2 (or 4)");
}

}  // namespace
}  // namespace hcp
