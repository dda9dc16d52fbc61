// A typed configuration tree (YAML, Hydra overrides, MLM arguments) that keeps where every value
// came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {

/// One node of a configuration tree. Maps keep insertion order (YAML order).
class Value {
 public:
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kList, kMap };
  using Entry = std::pair<std::string, Value>;

  Value() = default;
  static Value null(Location at = {});
  static Value boolean(bool b, Location at = {});
  static Value integer(int64_t i, Location at = {});
  static Value real(double d, Location at = {});
  static Value string(std::string s, Location at = {});
  static Value list(std::vector<Value> items, Location at = {});
  static Value map(std::vector<Entry> entries = {}, Location at = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  bool is_number() const { return is_int() || is_float(); }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_map() const { return kind_ == Kind::kMap; }

  bool as_bool() const { return b_; }
  int64_t as_int() const { return i_; }
  /// Return the number as a double (ints are converted).
  double as_double() const { return is_int() ? static_cast<double>(i_) : d_; }
  const std::string& as_string() const { return s_; }
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& items() { return items_; }
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& entries() { return entries_; }

  /// Return the child of a map, or nullptr.
  const Value* get(std::string_view key) const;
  Value* get(std::string_view key);
  /// Set (replace or append) a child of a map. The value must be a map.
  Value& set(std::string key, Value v);
  /// Remove a child of a map; return false when it was absent.
  bool erase(std::string_view key);

  const Location& location() const { return at_; }
  void set_location(Location at) { at_ = std::move(at); }

  /// Return a short name of the kind: "null", "bool", "int", "float", "string", "list", "map".
  static const char* kind_name(Kind k);
  /// Return the value in Hydra/YAML flow notation: 4, a2a+p2p, [2, 2], {a: 1}, null.
  std::string str() const;

  friend bool operator==(const Value& a, const Value& b);

 private:
  Kind kind_ = Kind::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Value> items_;
  std::vector<Entry> entries_;
  Location at_;
};

}  // namespace hcp
