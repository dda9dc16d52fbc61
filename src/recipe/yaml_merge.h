// Internal: YAML 1.1 merge keys ("<<: *defaults") applied the way PyYAML's SafeConstructor
// (flatten_mapping) applies them, which is how OmegaConf, and so Megatron-Bridge, reads a recipe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp::yaml_detail {

/// One key of a mapping with its value: the nodes as written (a merged one where its anchor is).
/// Copied, never assigned: assigning a YAML::Node writes into the document's node.
struct MappingEntry {
  MappingEntry(const YAML::Node& k, const YAML::Node& v) : key(k), value(v) {}
  MappingEntry(const MappingEntry&) = default;
  MappingEntry& operator=(const MappingEntry&) = delete;

  YAML::Node key;
  YAML::Node value;
};

/// The entries of mappings with their merge keys applied. PyYAML puts what each "<<" merges
/// before the keys written in the mapping, in the order of the "<<" keys (a later one wins), a
/// list "<<: [*a, *b]" in reverse (the earlier map wins), and then builds the dict: a key keeps
/// the place of its first entry and takes the value of its last, so a key written in the mapping
/// overrides a merged one. A merged mapping's own merge keys apply first.
class MergeKeys {
 public:
  using Locate = std::function<Location(const YAML::Mark&)>;

  /// `locate` places errors; at most `max_entries` entries are merged in all (the loader's alias
  /// expansion cap: "<<: [*a, *a, ...]" of maps that merge each other would grow exponentially).
  MergeKeys(Locate locate, size_t max_entries)
      : locate_(std::move(locate)), max_entries_(max_entries) {}

  /// Return the entries of `map`, a mapping node, once each key. Errors: a key that is not a
  /// scalar, a key written twice in the mapping ("<<" may be written more than once), a "<<"
  /// whose value is not a mapping or a list of mappings, a merge of a mapping that holds it, a
  /// merge nesting deeper than the loader reads, more merged entries than `max_entries`.
  Result<std::vector<MappingEntry>> entries(const YAML::Node& map);

 private:
  Result<std::vector<MappingEntry>> flatten(const YAML::Node& map, int depth);
  Status merge_value(const YAML::Node& key, const YAML::Node& value, int depth,
                     std::vector<MappingEntry>& merged);
  Result<std::vector<MappingEntry>> merged_entries(const YAML::Node& map, int depth);

  Locate locate_;
  size_t max_entries_;
  size_t merged_count_ = 0;
  /// Entries of mappings already merged somewhere, by their mark's offset (then by identity).
  std::unordered_multimap<int, std::pair<YAML::Node, std::vector<MappingEntry>>> done_;
  /// Mappings being flattened now: merging one of them again would never end.
  std::vector<YAML::Node> open_;
};

}  // namespace hcp::yaml_detail
