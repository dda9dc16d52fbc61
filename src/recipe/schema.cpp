// Type checks of recipe keys and values against the field tables in schema_fields.cpp.
#include "hcp/schema.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/recipe.h"
#include "schema_fields.h"

namespace hcp {
namespace {

using schema_detail::section_specs;
using schema_detail::SectionSpec;

constexpr int64_t kSizeLimit = int64_t{1} << 31;

const SectionSpec* find_section(std::string_view name) {
  for (const SectionSpec& s : section_specs()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

/// Split "a.b.c" into "a" and "b.c" (rest empty when there is no dot).
std::pair<std::string_view, std::string_view> split_first(std::string_view dotted) {
  size_t dot = dotted.find('.');
  if (dot == std::string_view::npos) return {dotted, {}};
  return {dotted.substr(0, dot), dotted.substr(dot + 1)};
}

std::string with_suggestion(std::string message, const std::string& suggestion) {
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  return message;
}

/// Return a short description of a value for messages: `string "abc"`, `float 2.0`.
std::string describe(const Value& v) {
  std::string text = v.str();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  if (v.is_string()) text = "\"" + text + "\"";
  if (v.is_float() && text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return std::string(Value::kind_name(v.kind())) + " " + text;
}

bool matches_type(const Value& v, FieldType type) {
  if (v.is_null()) return true;
  switch (type) {
    case FieldType::kInt:
      return v.is_int();
    case FieldType::kBool:
      return v.is_bool();
    case FieldType::kFloat:
      return v.is_number();
    case FieldType::kString:
      return v.is_string();
    case FieldType::kIntList:
      return v.is_list() && std::all_of(v.items().begin(), v.items().end(),
                                        [](const Value& i) { return i.is_int(); });
    case FieldType::kStringList:
      return v.is_string() ||
             (v.is_list() && std::all_of(v.items().begin(), v.items().end(),
                                         [](const Value& i) { return i.is_string(); }));
    case FieldType::kAny:
      return true;
  }
  return true;
}

Error value_error(std::string_view dotted, const Value& at, std::string message) {
  return Error{std::move(message), at.location(), std::string(dotted)};
}

/// Check that every integer of a size field lies in [1, 2^31).
Status check_size(std::string_view dotted, const Value& v) {
  auto check_one = [&](const Value& item) -> Status {
    if (!item.is_int()) return Ok{};
    if (item.as_int() < 1) {
      return value_error(dotted, item,
                         "invalid value " + item.str() + " for '" + std::string(dotted) +
                             "': a size must be a positive integer");
    }
    if (item.as_int() >= kSizeLimit) {
      return value_error(dotted, item,
                         "absurd value " + item.str() + " for '" + std::string(dotted) +
                             "': a size must be below 2^31");
    }
    return Ok{};
  };
  if (v.is_list()) {
    for (const Value& item : v.items()) {
      if (Status s = check_one(item); !s) return s;
    }
    return Ok{};
  }
  return check_one(v);
}

Status check_section_value(std::string_view section, const Value& v) {
  if (v.is_null() || v.is_map()) return Ok{};
  if (section == "mixed_precision" && v.is_string()) return Ok{};  // A preset name.
  std::string expected = section == "mixed_precision" ? "a map or a preset name" : "a map";
  return value_error(section, v,
                     "wrong type for section '" + std::string(section) + "': expected " + expected +
                         ", got " + describe(v));
}

/// Return the modelled section whose fields include `field`, for a key given without section.
std::string section_holding(std::string_view field) {
  for (const SectionSpec& s : section_specs()) {
    if (find_field(s.name, field) != nullptr) return std::string(s.name);
  }
  return {};
}

}  // namespace

const char* field_type_name(FieldType type) {
  switch (type) {
    case FieldType::kInt:
      return "int";
    case FieldType::kBool:
      return "bool";
    case FieldType::kFloat:
      return "float";
    case FieldType::kString:
      return "string";
    case FieldType::kIntList:
      return "list of ints";
    case FieldType::kStringList:
      return "string or list of strings";
    case FieldType::kAny:
      return "any";
  }
  return "any";
}

bool is_modelled_section(std::string_view section) {
  return find_section(section) != nullptr;
}

const std::vector<std::string>& modelled_sections() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const SectionSpec& s : section_specs())
      out.emplace_back(s.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& top_level_sections() {
  // Bridge src/megatron/bridge/training/config.py::ConfigContainer fields.
  static const std::vector<std::string> names = {"env_vars",
                                                 "rng",
                                                 "rerun_state_machine",
                                                 "train",
                                                 "model",
                                                 "optimizer",
                                                 "optimizer_config_override_provider",
                                                 "ddp",
                                                 "validation",
                                                 "scheduler",
                                                 "dataset",
                                                 "logger",
                                                 "tokenizer",
                                                 "checkpoint",
                                                 "dist",
                                                 "ft",
                                                 "straggler",
                                                 "nvrx_straggler",
                                                 "profiling",
                                                 "peft",
                                                 "comm_overlap",
                                                 "mixed_precision",
                                                 "tensor_inspect",
                                                 "inprocess_restart"};
  return names;
}

const FieldSpec* find_field(std::string_view section, std::string_view field) {
  const SectionSpec* s = find_section(section);
  if (s == nullptr) return nullptr;
  auto it =
      std::lower_bound(s->fields.begin(), s->fields.end(), field,
                       [](const FieldSpec& f, std::string_view name) { return f.name < name; });
  if (it == s->fields.end() || it->name != field) return nullptr;
  return &*it;
}

std::vector<std::string> field_names(std::string_view section) {
  std::vector<std::string> out;
  if (const SectionSpec* s = find_section(section)) {
    for (const FieldSpec& f : s->fields)
      out.emplace_back(f.name);
  }
  return out;
}

std::string canonical_key(std::string_view dotted) {
  constexpr std::string_view kNested = "model.transformer.";
  if (dotted.substr(0, kNested.size()) == kNested) {
    return "model." + std::string(dotted.substr(kNested.size()));
  }
  constexpr std::string_view kAlias = "dataset.sequence_length";
  if (dotted.substr(0, kAlias.size()) == kAlias &&
      (dotted.size() == kAlias.size() || dotted[kAlias.size()] == '.')) {
    return "dataset.seq_length" + std::string(dotted.substr(kAlias.size()));
  }
  return std::string(dotted);
}

std::string suggest_key(std::string_view dotted) {
  auto [section, rest] = split_first(dotted);
  const auto& sections = top_level_sections();
  bool known_section = std::find(sections.begin(), sections.end(), section) != sections.end();
  if (!known_section) {
    if (rest.empty()) {
      // A field given without its section: "context_parallel_size" -> model.context_parallel_size.
      if (std::string holder = section_holding(section); !holder.empty()) {
        return holder + "." + std::string(section);
      }
    }
    std::string close = closest_match(section, sections);
    if (close.empty()) return {};
    return rest.empty() ? close : close + "." + std::string(rest);
  }
  if (!is_modelled_section(section) || rest.empty()) return {};
  auto [field, below] = split_first(rest);
  std::string close = closest_match(field, field_names(section));
  if (close.empty()) return {};
  std::string out = std::string(section) + "." + close;
  if (!below.empty()) out += "." + std::string(below);
  return out;
}

Status check_key_known(std::string_view dotted, const Location& at) {
  auto [section, rest] = split_first(dotted);
  const auto& sections = top_level_sections();
  if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
    return Error{with_suggestion("unknown section '" + std::string(section) + "'" +
                                     (rest.empty() ? "" : " in key '" + std::string(dotted) + "'"),
                                 suggest_key(dotted)),
                 at, std::string(dotted)};
  }
  if (rest.empty() || !is_modelled_section(section)) return Ok{};
  auto [field, below] = split_first(rest);
  if (find_field(section, field) == nullptr) {
    return Error{
        with_suggestion("unknown key '" + std::string(section) + "." + std::string(field) + "'",
                        suggest_key(std::string(section) + "." + std::string(field))),
        at, std::string(dotted)};
  }
  return Ok{};
}

Status check_field_value(std::string_view dotted, const Value& value) {
  auto [section, rest] = split_first(dotted);
  if (rest.empty()) {
    return is_modelled_section(section) ? check_section_value(section, value) : Status(Ok{});
  }
  if (rest.find('.') != std::string_view::npos) return Ok{};  // Below a field: not modelled.
  const FieldSpec* spec = find_field(section, rest);
  if (spec == nullptr) return Ok{};
  if (!matches_type(value, spec->type)) {
    return value_error(dotted, value,
                       "wrong type for '" + std::string(dotted) + "': expected " +
                           field_type_name(spec->type) + ", got " + describe(value));
  }
  if (spec->size) return check_size(dotted, value);
  return Ok{};
}

Status check_parallel_product(const Recipe& recipe) {
  auto size_of = [&](const char* key) {
    auto v = recipe.get_int(key);
    return v && *v > 0 ? *v : 1;  // Non-positive sizes are the field check's and CP002's.
  };
  int64_t tp = size_of("model.tensor_model_parallel_size");
  int64_t pp = size_of("model.pipeline_model_parallel_size");
  int64_t cp = size_of("model.context_parallel_size");
  int64_t shards = 1;
  // MCore main's GTP: the model-parallel size grows by num_weight_shards / TP (rules_topology).
  if (auto s = recipe.get_int("model.tensor_parallel_num_weight_shards");
      s && *s > tp && *s % tp == 0) {
    shards = *s / tp;
  }
  // "WHAT = N is larger than 1048576 GPUs, ..." or "WHAT overflows a 64-bit integer; ...".
  auto too_large = [](const std::string& what, std::optional<int64_t> product) {
    return what +
           (product ? " = " + std::to_string(*product) + " is larger than "
                    : std::string(" overflows a 64-bit integer; at most ")) +
           std::to_string(kMaxWorldGpus) + " GPUs, the largest world hcp-plan accepts";
  };
  auto dense = checked_product({tp, pp, cp, shards});
  const char* blame =
      shards > 1 ? "model.tensor_parallel_num_weight_shards" : "model.context_parallel_size";
  if (!dense || *dense > kMaxWorldGpus) {
    return Error{
        too_large(shards > 1 ? "TP x PP x CP x weight shards / TP" : "TP x PP x CP", dense),
        recipe.where(blame), blame};
  }
  int64_t ep = size_of("model.expert_model_parallel_size");
  int64_t etp = size_of("model.expert_tensor_parallel_size");
  auto expert = checked_product({ep, etp, pp});
  if (!expert || *expert > kMaxWorldGpus) {
    return Error{too_large("EP x ETP x PP", expert),
                 recipe.where("model.expert_model_parallel_size"),
                 "model.expert_model_parallel_size"};
  }
  return Ok{};
}

Status check_recipe_schema(const Recipe& recipe) {
  if (!recipe.root.is_map()) {
    return Error{"a recipe must be a map of sections", recipe.root.location(), ""};
  }
  for (const auto& [section, body] : recipe.root.entries()) {
    Location at = body.location().known() ? body.location() : recipe.where(section);
    if (Status s = check_key_known(section, at); !s) return s;
    if (Status s = check_field_value(section, body); !s) return s;
    if (!is_modelled_section(section) || !body.is_map()) continue;
    for (const auto& [field, value] : body.entries()) {
      std::string key = section + "." + field;
      if (Status s = check_key_known(key, value.location()); !s) return s;
      if (Status s = check_field_value(key, value); !s) return s;
    }
  }
  return check_parallel_product(recipe);
}

}  // namespace hcp
