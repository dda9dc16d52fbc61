// Full-dump normalisation (bridge.md §2.5): metadata keys, dtype/callable/enum mappings, the
// nested model.transformer mapping of builder-backed configs, and the dataset length alias.
#include "normalize.h"

#include <string>
#include <utility>
#include <vector>

namespace hcp::recipe_detail {
namespace {

bool is_metadata_key(const std::string& key) {
  return !key.empty() && key[0] == '_';
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Return "a, b" for the items of an _args_ list.
std::string join_args(const Value& args) {
  std::string out;
  for (const Value& item : args.items()) {
    if (!out.empty()) out += ", ";
    out += item.str();
  }
  return out;
}

/// Drop metadata keys of a map and normalise its children; `depth` 0 is the root.
void normalize_map(Value& map, int depth);

/// Return the simplified form of a value below a section: a {_target_: ...} map with no other
/// fields becomes a string (a dtype, a callable or an enum member).
void normalize_value(Value& v, int depth) {
  if (v.is_list()) {
    for (Value& item : v.items())
      normalize_value(item, depth + 1);
    return;
  }
  if (!v.is_map()) return;
  const Value* target = v.get("_target_");
  if (depth >= 2 && target != nullptr && target->is_string()) {
    const std::string& name = target->as_string();
    const Value* args = v.get("_args_");
    bool has_fields = false;
    for (const auto& [key, child] : v.entries())
      has_fields |= !is_metadata_key(key);
    if (!has_fields) {
      Location at = v.location();
      if (args != nullptr && args->is_list() && !args->items().empty()) {
        const Value& first = args->items().front();
        const char* member = (ends_with(name, "AttnBackend") && first.is_int())
                                 ? attn_backend_name(first.as_int())
                                 : "";
        v = Value::string(*member ? std::string(member) : name + "(" + join_args(*args) + ")", at);
      } else {
        v = Value::string(name, at);
      }
      return;
    }
  }
  normalize_map(v, depth);
}

void normalize_map(Value& map, int depth) {
  std::vector<Value::Entry> entries = map.take_entries();
  std::vector<Value::Entry> kept;
  kept.reserve(entries.size());
  for (auto& entry : entries) {
    if (is_metadata_key(entry.first)) continue;
    normalize_value(entry.second, depth + 1);
    kept.push_back(std::move(entry));
  }
  map.set_entries(std::move(kept));
}

/// Replace model.transformer (a map) by its fields, in place; outer fields win on a clash.
void flatten_transformer(Value& model) {
  Value* nested = model.get("transformer");
  if (nested == nullptr || !nested->is_map()) return;
  Value inner = std::move(*nested);
  auto is_outer = [&model](const std::string& key) { return model.get(key) != nullptr; };
  std::vector<Value::Entry> fields;
  for (auto& field : inner.take_entries()) {
    if (!is_outer(field.first)) fields.push_back(std::move(field));
  }
  std::vector<Value::Entry> merged;
  for (auto& entry : model.take_entries()) {
    if (entry.first != "transformer") {
      merged.push_back(std::move(entry));
      continue;
    }
    for (auto& field : fields)
      merged.push_back(std::move(field));
  }
  model.set_entries(std::move(merged));
}

/// Rename dataset.sequence_length to seq_length; an explicit seq_length wins.
void rename_sequence_length(Value& dataset) {
  if (dataset.get("sequence_length") == nullptr) return;
  if (dataset.get("seq_length") != nullptr) {
    dataset.erase("sequence_length");
  } else {
    dataset.rename("sequence_length", "seq_length");
  }
}

}  // namespace

const char* attn_backend_name(int64_t value) {
  // MCore megatron/core/transformer/enums.py::AttnBackend.
  switch (value) {
    case 1:
      return "flash";
    case 2:
      return "fused";
    case 3:
      return "unfused";
    case 4:
      return "local";
    case 5:
      return "auto";
    default:
      return "";
  }
}

void collect_targets(const Value& map, const std::string& path,
                     std::map<std::string, std::string>& targets) {
  if (!map.is_map()) return;
  const Value* target = map.get("_target_");
  if (!path.empty() && target != nullptr && target->is_string()) {
    bool has_fields = false;
    for (const auto& [key, child] : map.entries())
      has_fields |= !is_metadata_key(key);
    if (has_fields) targets[path] = target->as_string();
  }
  for (const auto& [key, child] : map.entries()) {
    if (!is_metadata_key(key) && child.is_map())
      collect_targets(child, path.empty() ? key : path + "." + key, targets);
  }
}

bool canonical_packing(Value& root) {
  Value* dataset = root.is_map() ? root.get("dataset") : nullptr;
  if (dataset == nullptr || !dataset->is_map()) return false;
  const Value* specs = dataset->get("packed_sequence_specs");
  if (specs == nullptr || !specs->is_map()) return false;
  const Value* size = specs->get("packed_sequence_size");
  if (size == nullptr || !size->is_int() || size->as_int() <= 0) return false;
  if (dataset->get("enable_offline_packing") != nullptr ||
      dataset->get("offline_packing_specs") != nullptr) {
    return false;
  }
  Value copy = *specs;
  Location at = size->location();
  dataset->append("enable_offline_packing", Value::boolean(true, at));
  dataset->append("offline_packing_specs", std::move(copy));
  return true;
}

void normalize_tree(Value& root) {
  if (!root.is_map()) return;
  normalize_map(root, 0);
  if (Value* model = root.get("model"); model != nullptr && model->is_map()) {
    flatten_transformer(*model);
  }
  if (Value* dataset = root.get("dataset"); dataset != nullptr && dataset->is_map()) {
    rename_sequence_length(*dataset);
  }
}

}  // namespace hcp::recipe_detail
