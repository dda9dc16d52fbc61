#include "hcp/value.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <utility>

namespace hcp {

Value Value::null(Location at) {
  Value v;
  v.at_ = std::move(at);
  return v;
}

Value Value::boolean(bool b, Location at) {
  Value v = null(std::move(at));
  v.kind_ = Kind::kBool;
  v.b_ = b;
  return v;
}

Value Value::integer(int64_t i, Location at) {
  Value v = null(std::move(at));
  v.kind_ = Kind::kInt;
  v.i_ = i;
  return v;
}

Value Value::real(double d, Location at) {
  Value v = null(std::move(at));
  v.kind_ = Kind::kFloat;
  v.d_ = d;
  return v;
}

Value Value::string(std::string s, Location at) {
  Value v = null(std::move(at));
  v.kind_ = Kind::kString;
  v.s_ = std::move(s);
  return v;
}

Value Value::list(std::vector<Value> items, Location at) {
  Value v = null(std::move(at));
  v.kind_ = Kind::kList;
  v.items_ = std::move(items);
  return v;
}

Value Value::map(std::vector<Entry> entries, Location at) {
  Value v = null(std::move(at));
  v.kind_ = Kind::kMap;
  v.set_entries(std::move(entries));
  return v;
}

namespace {

/// A key's length with its first, middle and last bytes: computed in constant time (a real
/// hash of every byte cost more than the comparisons it saved), and equal for equal keys.
size_t hash_key(std::string_view key) {
  if (key.empty()) return 0;
  auto byte = [&key](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(key[i])); };
  return (key.size() << 24) | (byte(0) << 16) | (byte(key.size() / 2) << 8) | byte(key.size() - 1);
}

/// A hash of every byte of the key, eight bytes a step (a byte-at-a-time hash cost more than the
/// scan it replaced): the slot table's hash.
size_t slot_hash(std::string_view key) {
  uint64_t h = static_cast<uint64_t>(key.size()) * 0x9E3779B97F4A7C15ULL;
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, key.data() + i, 8);
    h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  if (i < key.size()) std::memcpy(&tail, key.data() + i, key.size() - i);
  h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
  return static_cast<size_t>(h ^ (h >> 29));
}

/// Maps up to this many entries are scanned; larger ones keep a slot table.
constexpr size_t kSlotsFrom = 16;

}  // namespace

void Value::index_keys() {
  key_hashes_.clear();
  key_hashes_.reserve(entries_.size());
  for (const Entry& e : entries_)
    key_hashes_.push_back(hash_key(e.first));
  index_slots();
}

void Value::index_slots() {
  slots_.clear();
  if (entries_.size() <= kSlotsFrom) return;
  size_t size = 64;
  while (size < 2 * entries_.size())
    size *= 2;
  slots_.assign(size, 0);
  for (size_t i = 0; i < entries_.size(); ++i)
    put_slot(i);
}

void Value::put_slot(size_t i) {
  const size_t mask = slots_.size() - 1;
  size_t at = slot_hash(entries_[i].first) & mask;
  while (slots_[at] != 0)
    at = (at + 1) & mask;
  slots_[at] = static_cast<uint32_t>(i + 1);
}

size_t Value::index_of(std::string_view key) const {
  const size_t h = hash_key(key);
  if (!slots_.empty()) {
    const size_t mask = slots_.size() - 1;
    for (size_t at = slot_hash(key) & mask; slots_[at] != 0; at = (at + 1) & mask) {
      const size_t i = slots_[at] - 1;
      if (key_hashes_[i] == h && entries_[i].first == key) return i;
    }
    return entries_.size();
  }
  for (size_t i = 0; i < key_hashes_.size(); ++i) {
    if (key_hashes_[i] == h && entries_[i].first == key) return i;
  }
  return entries_.size();
}

const Value* Value::get(std::string_view key) const {
  size_t i = index_of(key);
  return i < entries_.size() ? &entries_[i].second : nullptr;
}

Value* Value::get(std::string_view key) {
  return const_cast<Value*>(static_cast<const Value&>(*this).get(key));
}

Value& Value::set(std::string key, Value v) {
  if (Value* existing = get(key)) {
    *existing = std::move(v);
    return *existing;
  }
  return append(std::move(key), std::move(v));
}

Value& Value::append(std::string key, Value v) {
  key_hashes_.push_back(hash_key(key));
  entries_.emplace_back(std::move(key), std::move(v));
  if (entries_.size() > kSlotsFrom) {
    if (2 * entries_.size() > slots_.size()) {
      index_slots();
    } else {
      put_slot(entries_.size() - 1);
    }
  }
  return entries_.back().second;
}

bool Value::erase(std::string_view key) {
  size_t i = index_of(key);
  if (i == entries_.size()) return false;
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  key_hashes_.erase(key_hashes_.begin() + static_cast<std::ptrdiff_t>(i));
  index_slots();  // the entries after I moved down one place
  return true;
}

bool Value::rename(std::string_view from, std::string to) {
  size_t i = index_of(from);
  if (i == entries_.size()) return false;
  key_hashes_[i] = hash_key(to);
  entries_[i].first = std::move(to);
  if (!slots_.empty()) index_slots();
  return true;
}

std::vector<Value::Entry> Value::take_entries() {
  key_hashes_.clear();
  slots_.clear();
  return std::exchange(entries_, {});
}

void Value::set_entries(std::vector<Entry> entries) {
  entries_ = std::move(entries);
  index_keys();
}

const char* Value::kind_name(Kind k) {
  switch (k) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "string";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
  }
  return "null";
}

std::string Value::str() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return b_ ? "true" : "false";
    case Kind::kInt:
      return std::to_string(i_);
    case Kind::kFloat: {
      std::ostringstream os;
      os << d_;
      // 2.0 reads "2.0", as YAML and Python write it: "2" would pass for an int in a message.
      std::string text = os.str();
      if (text.find_first_of(".eEni") == std::string::npos) text += ".0";
      return text;
    }
    case Kind::kString:
      return s_;
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < items_.size(); ++i)
        out += (i ? ", " : "") + items_[i].str();
      return out + "]";
    }
    case Kind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < entries_.size(); ++i) {
        out += (i ? ", " : "") + entries_[i].first + ": " + entries_[i].second.str();
      }
      return out + "}";
    }
  }
  return "null";
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return a.b_ == b.b_;
    case Value::Kind::kInt:
      return a.i_ == b.i_;
    case Value::Kind::kFloat:
      return a.d_ == b.d_ || (std::isnan(a.d_) && std::isnan(b.d_));
    case Value::Kind::kString:
      return a.s_ == b.s_;
    case Value::Kind::kList:
      return a.items_ == b.items_;
    case Value::Kind::kMap:
      return a.entries_ == b.entries_;
  }
  return false;
}

}  // namespace hcp
