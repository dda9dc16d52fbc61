// Value's map: every way a map changes keeps the key index its lookups use, so a lookup finds
// exactly the keys a linear scan of entries() finds.
#include "hcp/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace hcp {
namespace {

/// The child a plain scan of entries() finds, the answer get() must give.
const Value* scanned(const Value& map, std::string_view key) {
  for (const auto& [k, v] : map.entries()) {
    if (k == key) return &v;
  }
  return nullptr;
}

void expect_lookups_agree(const Value& map, const std::vector<std::string>& keys) {
  for (const std::string& key : keys)
    EXPECT_EQ(map.get(key), scanned(map, key)) << key;
}

// Keys that share length, first, middle and last bytes, so only the full comparison tells them
// apart.
const std::vector<std::string> kKeys = {"a",       "",        "num_layers", "num_lxyers", "seq_len",
                                        "seq_lan", "abcXdef", "abcYdef",    "model",      "x.y"};

TEST(ValueMap, LookupsAgreeWithAScanAfterEveryChange) {
  Value map = Value::map({{"num_layers", Value::integer(1)}, {"seq_len", Value::integer(2)}});
  expect_lookups_agree(map, kKeys);
  map.append("num_lxyers", Value::integer(3));
  map.set("abcXdef", Value::integer(4));
  map.set("", Value::integer(5));
  expect_lookups_agree(map, kKeys);
  EXPECT_EQ(map.get("num_lxyers")->as_int(), 3);
  EXPECT_EQ(map.get("")->as_int(), 5);
  EXPECT_EQ(map.get("abcYdef"), nullptr);

  EXPECT_TRUE(map.rename("seq_len", "seq_lan"));
  EXPECT_FALSE(map.rename("seq_len", "other"));
  expect_lookups_agree(map, kKeys);
  EXPECT_EQ(map.get("seq_len"), nullptr);
  EXPECT_EQ(map.get("seq_lan")->as_int(), 2);

  EXPECT_TRUE(map.erase("num_layers"));
  EXPECT_FALSE(map.erase("num_layers"));
  expect_lookups_agree(map, kKeys);
  EXPECT_EQ(map.get("num_lxyers")->as_int(), 3);
}

TEST(ValueMap, TakenAndReplacedEntriesAreIndexedAgain) {
  Value map = Value::map({{"a", Value::integer(1)}, {"model", Value::integer(2)}});
  std::vector<Value::Entry> entries = map.take_entries();
  EXPECT_TRUE(map.entries().empty());
  EXPECT_EQ(map.get("a"), nullptr);
  entries.emplace_back("x.y", Value::integer(3));
  map.set_entries(std::move(entries));
  expect_lookups_agree(map, kKeys);
  EXPECT_EQ(map.get("x.y")->as_int(), 3);
}

TEST(ValueMap, ACopyLooksUpItsOwnChildren) {
  Value map = Value::map({{"a", Value::integer(1)}});
  Value copy = map;
  copy.set("a", Value::integer(2));
  EXPECT_EQ(map.get("a")->as_int(), 1);
  EXPECT_EQ(copy.get("a")->as_int(), 2);
  EXPECT_EQ(copy.get("a"), &copy.entries()[0].second);
}

TEST(ValueMap, ValueAtChangesTheChildInPlace) {
  Value map = Value::map({{"a", Value::integer(1)}, {"b", Value::integer(2)}});
  map.value_at(1) = Value::string("two");
  EXPECT_EQ(map.get("b")->as_string(), "two");
  EXPECT_EQ(map.entries()[1].first, "b");
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

// A float reads as a float in every message: "expected list of ints, got list [8, 2]" hid the
// 2.0 that made the list wrong.
TEST(ValueText, FloatsKeepTheirPointInsideListsAndMaps) {
  EXPECT_EQ(Value::real(2.0).str(), "2.0");
  EXPECT_EQ(Value::real(-3.0).str(), "-3.0");
  EXPECT_EQ(Value::real(0.5).str(), "0.5");
  EXPECT_EQ(Value::real(1e-05).str(), "1e-05");
  EXPECT_EQ(Value::real(1e300).str(), "1e+300");
  EXPECT_EQ(Value::real(std::numeric_limits<double>::infinity()).str(), "inf");
  EXPECT_EQ(Value::real(std::nan("")).str(), "nan");
  EXPECT_EQ(Value::list({Value::integer(8), Value::real(2.0)}).str(), "[8, 2.0]");
  EXPECT_EQ(Value::integer(2).str(), "2");
}

}  // namespace
}  // namespace hcp
