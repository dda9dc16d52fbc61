// YAML 1.1 merge keys as PyYAML's SafeConstructor.flatten_mapping applies them
// (yaml/constructor.py of PyYAML 6.0; OmegaConf's loader subclasses SafeLoader and checks
// duplicates only among the keys written in a mapping, never "<<").
#include "yaml_merge.h"

#include <unordered_set>

namespace hcp::yaml_detail {
namespace {

/// Merges nested deeper than this are refused (the loader reads 64 levels of nesting).
constexpr int kMaxMergeDepth = 64;

/// A plain "<<" key: PyYAML resolves it to tag:yaml.org,2002:merge; a quoted "<<" is a string.
bool is_merge_key(const YAML::Node& key) {
  return key.Tag() == "?" && key.Scalar() == "<<";
}

const char* kind_of(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsScalar()) return "a scalar";
  return "nothing";
}

/// The entries of `merged` then `own` once each key: a key keeps the place of its first entry and
/// takes the key node and value of its last (as a Python dict built from them). Entries are only
/// ever copied, never assigned: assigning a YAML::Node writes into the node it refers to.
std::vector<MappingEntry> one_per_key(const std::vector<MappingEntry>& merged,
                                      const std::vector<MappingEntry>& own) {
  std::vector<const MappingEntry*> last;
  std::unordered_map<std::string, size_t> index;
  for (const std::vector<MappingEntry>* part : {&merged, &own}) {
    for (const MappingEntry& entry : *part) {
      auto [at, fresh] = index.emplace(entry.key.Scalar(), last.size());
      if (fresh) {
        last.push_back(&entry);
      } else {
        last[at->second] = &entry;
      }
    }
  }
  std::vector<MappingEntry> out;
  out.reserve(last.size());
  for (const MappingEntry* entry : last)
    out.push_back(*entry);
  return out;
}

/// Removes the last of `open` when it goes out of scope.
class OpenScope {
 public:
  OpenScope(std::vector<YAML::Node>& open, const YAML::Node& map) : open_(open) {
    open_.push_back(map);
  }
  ~OpenScope() { open_.pop_back(); }
  OpenScope(const OpenScope&) = delete;
  OpenScope& operator=(const OpenScope&) = delete;

 private:
  std::vector<YAML::Node>& open_;
};

}  // namespace

Result<std::vector<MappingEntry>> MergeKeys::entries(const YAML::Node& map) {
  return flatten(map, 0);
}

Result<std::vector<MappingEntry>> MergeKeys::flatten(const YAML::Node& map, int depth) {
  if (depth > kMaxMergeDepth) {
    return Error{
        "YAML merge keys ('<<') nest deeper than " + std::to_string(kMaxMergeDepth) + " levels",
        locate_(map.Mark()), ""};
  }
  OpenScope scope(open_, map);
  std::vector<MappingEntry> merged;
  std::vector<MappingEntry> own;
  std::unordered_set<std::string> written;
  for (const auto& pair : map) {
    const YAML::Node& key = pair.first;
    if (!key.IsScalar()) {
      return Error{"a mapping key must be a plain string", locate_(key.Mark()), ""};
    }
    if (is_merge_key(key)) {
      if (Status s = merge_value(key, pair.second, depth, merged); !s) return s.error();
      continue;
    }
    if (!written.insert(key.Scalar()).second) {
      return Error{"duplicate key '" + key.Scalar() + "'", locate_(key.Mark()), key.Scalar()};
    }
    own.push_back(MappingEntry{key, pair.second});
  }
  return one_per_key(merged, own);
}

Status MergeKeys::merge_value(const YAML::Node& key, const YAML::Node& value, int depth,
                              std::vector<MappingEntry>& merged) {
  if (!value.IsMap() && !value.IsSequence()) {
    // An empty value carries the next token's mark: place it at its key.
    const YAML::Mark at = value.IsScalar() ? value.Mark() : key.Mark();
    return Error{std::string("a merge key '<<' takes a mapping or a list of mappings, got ") +
                     kind_of(value),
                 locate_(at), ""};
  }
  std::vector<YAML::Node> maps;
  if (value.IsMap()) maps.push_back(value);
  for (const YAML::Node& item : value.IsSequence() ? value : YAML::Node()) {
    if (!item.IsMap()) {
      return Error{std::string("a merge key '<<' lists ") + kind_of(item) +
                       "; it merges only mappings (*anchor of a map)",
                   locate_(item.Mark()), ""};
    }
    maps.push_back(item);
  }
  // PyYAML merges a list's maps last to first: the first map's keys win.
  for (auto map = maps.rbegin(); map != maps.rend(); ++map) {
    Result<std::vector<MappingEntry>> one = merged_entries(*map, depth + 1);
    if (!one) return one.error();
    merged_count_ += one->size();
    if (merged_count_ > max_entries_) {
      return Error{"YAML merge keys ('<<') merge more than " + std::to_string(max_entries_) +
                       " entries (aliases that expand to it)",
                   locate_(map->Mark()), ""};
    }
    for (const MappingEntry& entry : *one)
      merged.push_back(entry);
  }
  return Ok{};
}

Result<std::vector<MappingEntry>> MergeKeys::merged_entries(const YAML::Node& map, int depth) {
  for (const YAML::Node& open : open_) {
    if (open.is(map)) {
      return Error{"a merge key '<<' merges a mapping that holds it (the alias is recursive)",
                   locate_(map.Mark()), ""};
    }
  }
  const int pos = map.Mark().pos;
  auto [first, last] = done_.equal_range(pos);
  for (auto it = first; it != last; ++it) {
    if (it->second.first.is(map)) return it->second.second;
  }
  Result<std::vector<MappingEntry>> flat = flatten(map, depth);
  if (!flat) return flat.error();
  done_.emplace(pos, std::make_pair(map, *flat));
  return flat;
}

}  // namespace hcp::yaml_detail
