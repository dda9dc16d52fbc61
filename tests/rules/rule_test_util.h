// Shared by the rule tests (one test file per rule family, beside src/rules/rules_<family>.cpp):
// the base recipes built in memory, value builders, and the finding lookups. Add new rule tests
// to the family's file and build them from these helpers instead of copying them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/rules.h"

namespace hcp::test {

// --- Values ----------------------------------------------------------------------------------

inline Value I(int64_t v) {
  return Value::integer(v, Location{"test.yaml", 1, 1});
}
inline Value B(bool v) {
  return Value::boolean(v, Location{"test.yaml", 1, 1});
}
inline Value S(std::string v) {
  return Value::string(std::move(v), Location{"test.yaml", 1, 1});
}
inline Value F(double v) {
  return Value::real(v, Location{"test.yaml", 1, 1});
}
/// A list of integers.
inline Value L(const std::vector<int64_t>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (int64_t x : v)
    items.push_back(I(x));
  return Value::list(std::move(items));
}
/// A list of strings.
inline Value SL(const std::vector<std::string>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (const std::string& x : v)
    items.push_back(S(x));
  return Value::list(std::move(items));
}

// --- Base recipes and environments -----------------------------------------------------------

/// A Llama-3-8B-like recipe: 32 layers, 32 heads, 8 KV heads, S=131072, TP1 CP16 a2a+p2p [8,2],
/// at known locations of mem.yaml (line 2 onwards). Clean under llama_env().
inline Recipe llama_cp16() {
  Recipe r;
  r.path = "mem.yaml";
  r.set("model.num_layers", Value::integer(32, {"mem.yaml", 2, 3}));
  r.set("model.num_attention_heads", Value::integer(32, {"mem.yaml", 3, 3}));
  r.set("model.num_query_groups", Value::integer(8, {"mem.yaml", 4, 3}));
  r.set("model.seq_length", Value::integer(131072, {"mem.yaml", 5, 3}));
  r.set("model.tensor_model_parallel_size", Value::integer(1, {"mem.yaml", 6, 3}));
  r.set("model.context_parallel_size", Value::integer(16, {"mem.yaml", 7, 3}));
  r.set("model.cp_comm_type", Value::string("a2a+p2p", {"mem.yaml", 8, 3}));
  r.set("model.hierarchical_context_parallel_sizes",
        Value::list({Value::integer(8), Value::integer(2)}, {"mem.yaml", 9, 3}));
  r.set("dataset.seq_length", Value::integer(131072, {"mem.yaml", 11, 3}));
  r.set("train.global_batch_size", Value::integer(32, {"mem.yaml", 13, 3}));
  r.set("train.micro_batch_size", Value::integer(1, {"mem.yaml", 14, 3}));
  return r;
}

/// 32 GPUs on 8-GPU nodes, TE 2.18, MCore 0.17.
inline Environment llama_env() {
  Environment env;
  env.world_size = 32;
  env.gpus_per_node = 8;
  env.te_version = Version{2, 18, 0, ""};
  env.mcore_version = Version{0, 17, 0, ""};
  return env;
}

/// A clean 4-layer GQA model: TP2 CP4 p2p with sequence parallel, S=8192, 32 heads, 8 groups.
inline Recipe gqa_cp4() {
  Recipe r;
  r.name = "test";
  r.path = "test.yaml";
  r.set("model.tensor_model_parallel_size", I(2));
  r.set("model.pipeline_model_parallel_size", I(1));
  r.set("model.context_parallel_size", I(4));
  r.set("model.num_layers", I(4));
  r.set("model.hidden_size", I(4096));
  r.set("model.num_attention_heads", I(32));
  r.set("model.num_query_groups", I(8));
  r.set("model.seq_length", I(8192));
  r.set("model.sequence_parallel", B(true));
  r.set("model.cp_comm_type", S("p2p"));
  r.set("model.calculate_per_token_loss", B(true));
  r.set("dataset.seq_length", I(8192));
  r.set("train.micro_batch_size", I(1));
  r.set("train.global_batch_size", I(16));
  return r;
}

/// 16 GPUs on 8-GPU nodes, TE 2.18, MCore 0.19.
inline Environment gqa_env() {
  Environment env;
  env.world_size = 16;
  env.gpus_per_node = 8;
  env.te_version = Version{2, 18, 0, {}};
  env.mcore_version = Version{0, 19, 0, {}};
  return env;
}

inline void set_te(Environment& env, int major, int minor) {
  env.te_version = Version{major, minor, 0, {}};
}
inline void set_mcore(Environment& env, int major, int minor) {
  env.mcore_version = Version{major, minor, 0, {}};
}

// --- Lookups ---------------------------------------------------------------------------------

inline bool has_id(const std::vector<Diagnostic>& ds, std::string_view id) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.id() == id; });
}

/// The findings of one rule.
inline std::vector<Diagnostic> findings(const std::vector<Diagnostic>& ds, std::string_view id) {
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : ds) {
    if (d.id() == id) out.push_back(d);
  }
  return out;
}
inline std::vector<Diagnostic> findings(const Recipe& r, const Environment& env,
                                        std::string_view id) {
  return findings(check_rules(r, env), id);
}
inline bool fires(const Recipe& r, const Environment& env, std::string_view id) {
  return !findings(r, env, id).empty();
}

/// The severity of the first finding of `id`, or nullopt when it did not fire.
inline std::optional<Severity> severity_of(const std::vector<Diagnostic>& ds, std::string_view id) {
  for (const Diagnostic& d : ds) {
    if (d.id() == id) return d.severity();
  }
  return std::nullopt;
}

/// Return true when some finding of `id` contains `text`.
inline bool says(const std::vector<Diagnostic>& ds, std::string_view id, std::string_view text) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) {
    return d.id() == id && d.message.find(text) != std::string::npos;
  });
}

/// Every diagnostic, one a line, for failure messages.
inline std::string dump(const std::vector<Diagnostic>& ds) {
  std::string text;
  for (const Diagnostic& d : ds) {
    text += "  " + d.location.str() + ": " + severity_name(d.severity()) + ": [" + d.id() + "] " +
            d.message + "\n";
  }
  return text;
}

// --- Mutated gqa_cp4() runs and the per-family firing / non-firing cases ----------------------

using Mutator = std::function<void(Recipe&, Environment&)>;

/// Run every rule on gqa_cp4() under gqa_env() after `mutate`.
inline std::vector<Diagnostic> run(const Mutator& mutate) {
  Recipe recipe = gqa_cp4();
  Environment env = gqa_env();
  if (mutate) mutate(recipe, env);
  return check_rules(recipe, env);
}

/// A rule's firing (`bad`) and non-firing (`good`) mutation of gqa_cp4(). A family's test file
/// instantiates RuleCaseTest with its cases (rule_cases_test.cpp runs them).
struct RuleCase {
  std::string id;
  Mutator bad;
  Mutator good;
};

/// Print a case as its rule ID in test failure messages.
inline void PrintTo(const RuleCase& c, std::ostream* os) {
  *os << c.id;
}

class RuleCaseTest : public ::testing::TestWithParam<RuleCase> {};

inline std::string case_name(const ::testing::TestParamInfo<RuleCase>& info) {
  return info.param.id;
}

/// Expect a case for every rule of `family` in `cases`.
inline void expect_family_covered(std::string_view family, const std::vector<RuleCase>& cases) {
  int counted = 0;
  for (const Rule& rule : rule_registry()) {
    if (rule.family != family) continue;
    ++counted;
    EXPECT_TRUE(
        std::any_of(cases.begin(), cases.end(), [&](const RuleCase& c) { return c.id == rule.id; }))
        << rule.id << " has no in-memory case";
  }
  EXPECT_GT(counted, 0) << "no rule of family " << family;
}

}  // namespace hcp::test
