#include "hcp/value.h"

#include <algorithm>
#include <cmath>
#include <sstream>

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
  v.entries_ = std::move(entries);
  return v;
}

const Value* Value::get(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Value* Value::get(std::string_view key) {
  for (auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Value& Value::set(std::string key, Value v) {
  if (Value* existing = get(key)) {
    *existing = std::move(v);
    return *existing;
  }
  entries_.emplace_back(std::move(key), std::move(v));
  return entries_.back().second;
}

bool Value::erase(std::string_view key) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
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
      return os.str();
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
