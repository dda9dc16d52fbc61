// YAML merge keys ("<<") as PyYAML's SafeConstructor.flatten_mapping applies them: each row's
// expected tree is what PyYAML 6.0.3 (SafeLoader with OmegaConf's duplicate-key check, the loader
// Megatron-Bridge reads recipes with) gives for the same text, written as Value::str() writes it.
#include "../../src/recipe/yaml_merge.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hcp/recipe.h"

namespace hcp {
namespace {

/// Every top-level key of the loaded recipe as "key: value" lines, or "error: message".
std::string loaded(const std::string& text) {
  Result<Recipe> r = load_recipe_text(text, "t.yaml");
  if (!r) return "error: " + r.error().message;
  std::string out;
  for (const auto& [key, value] : r->root.entries())
    out += (out.empty() ? "" : "\n") + key + ": " + value.str();
  return out;
}

struct MergeCase {
  const char* text;
  /// PyYAML's result; "error: X" where PyYAML raises (X: the start of hcp-plan's message).
  const char* expected;
};

// Generated with PyYAML 6.0.3: yaml.load(text, Loader=L) where L is SafeLoader whose
// construct_mapping first refuses a str key written twice in one mapping (as OmegaConf's does).
const MergeCase kPyYamlCases[] = {
    {"a: &a {x: 1, y: 2}\nm: {<<: *a, y: 3}", "a: {x: 1, y: 2}\nm: {x: 1, y: 3}"},
    {"a: &a {x: 1, y: 2}\nm: {y: 3, <<: *a}", "a: {x: 1, y: 2}\nm: {x: 1, y: 3}"},
    {"a: &a {x: 1}\nb: &b {x: 2, z: 5}\nm: {<<: [*a, *b]}",
     "a: {x: 1}\nb: {x: 2, z: 5}\nm: {x: 1, z: 5}"},
    {"a: &a {x: 1}\nb: &b {x: 2, z: 5}\nm:\n  <<: *a\n  <<: *b",
     "a: {x: 1}\nb: {x: 2, z: 5}\nm: {x: 2, z: 5}"},
    {"a: &a {x: 1}\nb: &b {x: 2, z: 5}\nm:\n  <<: *b\n  w: 0\n  <<: *a",
     "a: {x: 1}\nb: {x: 2, z: 5}\nm: {x: 1, z: 5, w: 0}"},
    {"a: &a {x: 1}\nm: {<<: *a, x: 2, x: 3}", "error: duplicate key 'x'"},
    {"a: &a [1]\nm: {<<: *a}", "error: lists a scalar"},
    {"m: {<<: 3}", "error: takes a mapping or a list of mappings, got a scalar"},
    {"m: {<<: }", "error: takes a mapping or a list of mappings, got nothing"},
    {"m:\n  <<:", "error: takes a mapping or a list of mappings, got nothing"},
    {"a: &a {x: 1}\nm: {<<: [*a, 3]}", "error: lists a scalar"},
    {"a: &a {x: 1}\nm: {<<: [*a, [1]]}", "error: lists a list"},
    {"m: {\"<<\": {x: 1}}", "m: {<<: {x: 1}}"},
    {"m: {'<<': 1}", "m: {<<: 1}"},
    {"m: {<<: {x: 1, <<: {y: 2, x: 9}}}", "m: {y: 2, x: 1}"},
    {"a: &a {x: 1, y: {p: 1}}\nb: &b {<<: *a, y: {q: 2}}\nc: &c {<<: *b, z: 3}\nm: {<<: *c, x: 0}",
     "a: {x: 1, y: {p: 1}}\nb: {x: 1, y: {q: 2}}\nc: {x: 1, y: {q: 2}, z: 3}\nm: {x: 0, y: {q: 2}, "
     "z: 3}"},
    {"a: &a {x: 1}\nm: [{<<: *a}, {<<: *a, x: 2}]", "a: {x: 1}\nm: [{x: 1}, {x: 2}]"},
    {"a: &a {x: 1}\nb: &b {<<: [*a, *a]}\nc: &c {<<: [*b, *b, *a]}\nm: {<<: [*c, *c], y: 2}",
     "a: {x: 1}\nb: {x: 1}\nc: {x: 1}\nm: {x: 1, y: 2}"},
    {"a: &a {x: 1}\nm: {<<: [], y: 2}", "a: {x: 1}\nm: {y: 2}"},
    {"a: &a {x: 1}\nm: {<<: {}, y: 2}", "a: {x: 1}\nm: {y: 2}"},
    {"m:\n  <<: &a {x: 1, y: 2}\n  z: 3\nn: {<<: *a}", "m: {x: 1, y: 2, z: 3}\nn: {x: 1, y: 2}"},
    {"a: &a {x: 1}\nm:\n  k: &k {<<: *a, y: 2}\n  j: {<<: *k, x: 5}",
     "a: {x: 1}\nm: {k: {x: 1, y: 2}, j: {x: 5, y: 2}}"},
    {"a: &a {x: 1}\nm: {<<: *a, <<: {x: 7}}", "a: {x: 1}\nm: {x: 7}"},
    {"a: &a {x: 1}\nm: {<<: [{x: 7}, *a]}", "a: {x: 1}\nm: {x: 7}"},
    {"a: &a {x: 1, x2: [1, 2]}\nm: {<<: [*a]}", "a: {x: 1, x2: [1, 2]}\nm: {x: 1, x2: [1, 2]}"},
    {"<<: {x: 1}\ny: 2", "x: 1\ny: 2"},
    {"a: &a {x: 1}\nm: {x: 1, x: 2}", "error: duplicate key 'x'"},
    {"m: {<<: [{x: 1}, {y: 2}], <<: {x: 3, z: 4}}", "m: {y: 2, x: 3, z: 4}"},
};

TEST(YamlMerge, AppliedAsPyYamlDoes) {
  for (const MergeCase& c : kPyYamlCases) {
    const std::string expected = c.expected;
    const std::string got = loaded(c.text);
    if (expected.rfind("error: ", 0) == 0) {
      EXPECT_EQ(got.rfind("error: ", 0), 0u) << c.text << "\n got: " << got;
      EXPECT_NE(got.find(expected.substr(7)), std::string::npos) << c.text << "\n got: " << got;
    } else {
      EXPECT_EQ(got, expected) << c.text;
    }
  }
}

TEST(YamlMerge, MergedValuesKeepTheirAnchorsPlace) {
  Result<Recipe> r = load_recipe_text(
      "_cp: &cp {context_parallel_size: 8, seq_length: 8192}\n"
      "model:\n  <<: *cp\n  num_layers: 32\n  seq_length: 4096\n",
      "t.yaml");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->get_int("model.context_parallel_size"), 8);
  Location merged = r->where("model.context_parallel_size");
  EXPECT_EQ(merged.line, 1);
  EXPECT_EQ(merged.column, 34);
  // A key written in the mapping wins over the merged one, and is placed where it is written.
  EXPECT_EQ(r->get_int("model.seq_length"), 4096);
  EXPECT_EQ(r->where("model.seq_length").line, 5);
}

TEST(YamlMerge, EntriesAreTheWrittenNodesAndLeaveTheDocumentAlone) {
  YAML::Node doc = YAML::Load("a: &a {x: 1, y: 2}\nm: {<<: *a, y: 3}\nn: {<<: *a}\n");
  yaml_detail::MergeKeys merges(
      [](const YAML::Mark& m) {
        return Location{"t", m.line + 1, 0};
      },
      100);
  Result<std::vector<yaml_detail::MappingEntry>> m = merges.entries(doc["m"]);
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->size(), 2u);
  EXPECT_EQ((*m)[0].key.Scalar(), "x");
  EXPECT_EQ((*m)[0].key.Mark().column, 7);  // the anchor's x
  EXPECT_EQ((*m)[1].value.Scalar(), "3");
  EXPECT_EQ((*m)[1].value.Mark().line, 1);  // m's own y
  // The override did not write 3 into the anchor's y: n merges 1 and 2.
  Result<std::vector<yaml_detail::MappingEntry>> n = merges.entries(doc["n"]);
  ASSERT_TRUE(n) << n.error().str();
  ASSERT_EQ(n->size(), 2u);
  EXPECT_EQ((*n)[1].value.Scalar(), "2");
  EXPECT_EQ(doc["a"]["y"].Scalar(), "2");
}

TEST(YamlMerge, QuotedMergeKeyIsAPlainKey) {
  EXPECT_EQ(loaded("m: {\"<<\": {x: 1}}"), "m: {<<: {x: 1}}");
}

struct HostileCase {
  std::string text;
  const char* message;  ///< part of the one-line error
};

std::string repeated(const std::string& part, int times, const std::string& separator) {
  std::string out;
  for (int i = 0; i < times; ++i)
    out += (i ? separator : "") + part;
  return out;
}

/// A map of `keys` keys, anchored as &b.
std::string big_anchor(int keys) {
  std::string out = "b: &b {";
  for (int i = 0; i < keys; ++i)
    out += (i ? ", k" : "k") + std::to_string(i) + ": " + std::to_string(i);
  return out + "}\n";
}

// PyYAML makes {} of a map that merges itself (it drops the "<<" before it recurses); a recipe
// that does it is refused here, as every other alias cycle is.
TEST(YamlMerge, HostileMergesAreOneLineErrors) {
  const HostileCase cases[] = {
      {"a: &a {<<: *a}\n", "merges a mapping that holds it"},
      {"a: &a {k: {<<: *a}}\n", "nesting deeper than 64"},
      {"a: &a {k: [{j: {<<: *a}}]}\n", "nesting deeper than 64"},
      {"m: " + repeated("{<<: ", 70, "") + "{x: 1}" + repeated("}", 70, "") + "\n",
       "merge keys ('<<') nest deeper than 64"},
      {big_anchor(12000) + "m: {<<: [" + repeated("*b", 10, ", ") + "]}\n",
       "merge more than 100000 entries"},
      {big_anchor(12000) + "m: [" + repeated("{<<: *b}", 10, ", ") + "]\n",
       "more than 100000 nodes"},
  };
  for (const HostileCase& c : cases) {
    std::string got = loaded(c.text);
    EXPECT_NE(got.find(c.message), std::string::npos) << c.text.substr(0, 80) << "\n got: " << got;
  }
}

TEST(YamlMerge, NestedMergesOfMergesStayLinear) {
  // Ten aliases a level, 30 levels: 10^30 entries if each merge were copied out in full.
  std::string text = "a0: &a0 {k0: 0, k1: 1}\n";
  for (int i = 1; i < 30; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {<<: [" +
            repeated("*a" + std::to_string(i - 1), 10, ", ") + "], n" + std::to_string(i) +
            ": 1}\n";
  }
  Result<Recipe> r = load_recipe_text(text, "t.yaml");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->root.get("a29")->entries().size(), 31u);
}

}  // namespace
}  // namespace hcp
