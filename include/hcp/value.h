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
  /// The children of a map, in order. Keys change only through the map's own functions below,
  /// which keep the key index the lookups use.
  const std::vector<Entry>& entries() const { return entries_; }

  /// Return the child of a map, or nullptr.
  const Value* get(std::string_view key) const;
  Value* get(std::string_view key);
  /// Set (replace or append) a child of a map. The value must be a map.
  Value& set(std::string key, Value v);
  /// Append a child to a map without looking for the key (the caller knows it is new).
  Value& append(std::string key, Value v);
  /// Remove a child of a map; return false when it was absent.
  bool erase(std::string_view key);
  /// Rename a child of a map in place; return false when `from` was absent.
  bool rename(std::string_view from, std::string to);
  /// Move the children out of a map (it is left empty), to filter or reorder them.
  std::vector<Entry> take_entries();
  /// Replace the children of a map.
  void set_entries(std::vector<Entry> entries);
  /// The value of the i-th child of a map, to change it in place (its key stays).
  Value& value_at(size_t i) { return entries_[i].second; }

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
  /// A signature of each entry's key (its length and three of its bytes), in the same order: a
  /// lookup scans these (contiguous) and compares only the keys whose signature matches (maps of
  /// a few hundred keys, looked up in the planner's inner loop).
  std::vector<size_t> key_hashes_;
  /// Maps of more than kSlotsFrom entries (a Bridge dump's model section holds about 300) also
  /// keep an open-addressing table of their entries (index + 1; 0 is an empty slot), keyed by a
  /// hash of every byte: a lookup probes a slot or two instead of scanning every signature.
  std::vector<uint32_t> slots_;
  Location at_;

  void index_keys();
  /// Rebuild slots_ from entries_ (or drop it when the map is small).
  void index_slots();
  /// Put entry I into slots_, which has room for it.
  void put_slot(size_t i);
  /// The position of a key among entries_, or entries_.size() when absent.
  size_t index_of(std::string_view key) const;
};

}  // namespace hcp
