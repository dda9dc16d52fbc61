// Type checks of recipe keys and values against the field tables in schema_fields.cpp.
#include "hcp/schema.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/recipe.h"
#include "hcp/text_util.h"
#include "schema_fields.h"

namespace hcp {
namespace {

using schema_detail::FieldSet;

constexpr int64_t kSizeLimit = kMaxDimension + 1;  // 2^31

/// Split "a.b.c" into "a" and "b.c" (rest empty when there is no dot).
std::pair<std::string_view, std::string_view> split_first(std::string_view dotted) {
  size_t dot = dotted.find('.');
  if (dot == std::string_view::npos) return {dotted, {}};
  return {dotted.substr(0, dot), dotted.substr(dot + 1)};
}

/// Return a short description of a value for messages: `string "abc"`, `float 2.0`. A string
/// with a character outside ASCII names the first one: "−4" is U+2212 MINUS SIGN, not '-', and
/// "４" a full-width digit, which read as numbers but are strings to YAML.
std::string describe(const Value& v) {
  std::string text = v.str();
  const std::string which = v.is_string() ? first_non_ascii(text) : "";
  if (text.size() > 40) text = std::string(utf8_prefix(text, 37)) + "...";
  if (v.is_string()) text = "\"" + text + "\"";
  return std::string(Value::kind_name(v.kind())) + " " + text +
         (which.empty() ? "" : " (" + which + ")");
}

/// An integral float (500000.0) where a field declares int: Python's dataclasses keep it and
/// Bridge writes rotary_base so (rope_theta_from_hf gives a float). Sizes stay strict: they
/// reach range() and process-group arithmetic, which reject a float.
bool integral_float(const Value& v) {
  return v.is_float() && std::isfinite(v.as_double()) &&
         std::trunc(v.as_double()) == v.as_double() && std::fabs(v.as_double()) < 9.0e15;
}

/// Return true when `v` is what Bridge's own construction accepts for the field. Dataclasses do
/// not enforce annotations; the leniencies are the ones Bridge itself relies on: an int for a
/// bool (only its truth is used: Bridge's recipes set train.manual_gc_eval to 100 and 5,
/// recipes/gpt_oss/gpt_oss.py and the dryrun dumps of a9497c6) and an integral float for a
/// non-size int. Strings, lists and maps for scalars remain wrong.
bool matches_type(const Value& v, FieldType type, bool size = false) {
  if (v.is_null()) return true;
  switch (type) {
    case FieldType::kInt:
      return v.is_int() || (!size && integral_float(v));
    case FieldType::kBool:
      return v.is_bool() || v.is_int();
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

/// A null where Megatron needs a number (schema_detail::refuses_null): the error, else Ok.
Status check_not_null(std::string_view dotted, const FieldSpec& spec, const Value& value) {
  if (!value.is_null() || spec.default_value == "None" ||
      !schema_detail::refuses_null(canonical_key(dotted))) {
    return Ok{};
  }
  // TransformerConfig's 0 is a placeholder each model provider replaces, not a usable default.
  const bool usable_default = spec.default_value != "required" && spec.default_value != "0";
  std::string keep = usable_default
                         ? "remove it to keep the default " + std::string(spec.default_value)
                         : "set it to a positive integer";
  return value_error(
      dotted, value,
      "null for '" + std::string(dotted) +
          "': Megatron-Bridge would set it to None, and its dataclass declares it int, "
          "not Optional, so the job fails at start-up; " +
          keep);
}

/// A resolver interpolation (${oc.env:X}, ${oc.decode:...}) left as text where the field wants
/// no text: say that the value is unknown here, not that it is of the wrong type. OmegaConf 2.1's
/// oc.env returns the variable (and its default) as a string, parsed only through oc.decode
/// (omry/omegaconf#535, #574).
Status unresolved_resolver(std::string_view dotted, const FieldSpec& spec, const Value& value) {
  if (!value.is_string() || spec.type == FieldType::kString || spec.type == FieldType::kAny ||
      spec.type == FieldType::kStringList || !value.as_string().starts_with("${")) {
    return Ok{};
  }
  const std::string& text = value.as_string();
  const bool env_text = text.starts_with("${oc.env:");
  return value_error(dotted, value,
                     "'" + std::string(dotted) + "' is " + text +
                         ", an OmegaConf resolver hcp-plan does not evaluate (it resolves ${key} "
                         "references only), so it cannot check the value" +
                         (env_text ? "; oc.env gives text, which Bridge would set as a string "
                                     "(wrap it in ${oc.decode:...})"
                                   : "") +
                         "; write the number, or pass the override " + std::string(dotted) +
                         "=VALUE");
}

Status check_spec_value(std::string_view dotted, const FieldSpec* spec, const Value& value) {
  if (spec == nullptr) return Ok{};
  if (Status s = check_not_null(dotted, *spec, value); !s) return s;
  if (Status s = unresolved_resolver(dotted, *spec, value); !s) return s;
  if (!matches_type(value, spec->type, spec->size)) {
    return value_error(dotted, value,
                       "wrong type for '" + std::string(dotted) + "': expected " +
                           field_type_name(spec->type) + ", got " + describe(value));
  }
  if (spec->size) return check_size(dotted, value);
  return Ok{};
}

/// Turn the values the leniency accepts into the declared type, as the rules read them: an int in
/// a bool field becomes its truth, an integral float in an int field the int.
void coerce(Value& v, const FieldSpec* spec) {
  if (spec == nullptr) return;
  if (spec->type == FieldType::kBool && v.is_int()) {
    v = Value::boolean(v.as_int() != 0, v.location());
  } else if (spec->type == FieldType::kInt && integral_float(v) && !spec->size) {
    v = Value::integer(static_cast<int64_t>(v.as_double()), v.location());
  }
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
  for (const std::string& s : modelled_sections()) {
    if (find_field(s, field) != nullptr) return s;
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
  return schema_detail::section_fields(section) != nullptr;
}

const std::vector<std::string>& modelled_sections() {
  return schema_detail::dataclass_sections();
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
  const FieldSet* s = schema_detail::section_fields(section);
  return s == nullptr ? nullptr : s->find(field);
}

std::vector<std::string> field_names(std::string_view section) {
  const FieldSet* s = schema_detail::section_fields(section);
  return s == nullptr ? std::vector<std::string>{} : s->names();
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

// Bridge omegaconf_utils.py:470-474 (_apply_overrides) logs a key its dataclass lacks and skips it.
// A near miss of a real key (a did-you-mean hit) is a typo the job would run without: an error.
// A key with no near miss (a field of a newer Bridge, a custom one) stays a warning.
Diagnostic skipped_key_note(const std::string& key, const std::string& suggestion,
                            const Location& at) {
  std::string message =
      "unknown key '" + key + "'" + did_you_mean(key, suggestion) +
      ": Megatron-Bridge skips a key its config lacks when it applies a YAML "
      "file or a +key override (omegaconf_utils.py _apply_overrides: \"not found in config "
      "object ... Skipping\", Bridge " +
      std::string(schema_detail::schema_bridge_commit().substr(0, 8)) +
      "), so this line sets nothing" +
      (suggestion.empty() ? "" : " and the job runs without the setting it was meant to change");
  std::string fix = suggestion.empty() ? "remove it, or name a field the section has"
                                       : "spell it " + suggestion + ", or remove it";
  return Diagnostic::note(suggestion.empty() ? Severity::kWarning : Severity::kError, message, key,
                          at, fix);
}

Status check_key_known(std::string_view dotted, const Location& at) {
  auto [section, rest] = split_first(dotted);
  const auto& sections = top_level_sections();
  if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
    return Error{"unknown section '" + std::string(section) + "'" +
                     (rest.empty() ? "" : " in key '" + std::string(dotted) + "'") +
                     did_you_mean(dotted, suggest_key(dotted)),
                 at, std::string(dotted)};
  }
  if (rest.empty() || !is_modelled_section(section)) return Ok{};
  auto [field, below] = split_first(rest);
  if (find_field(section, field) == nullptr) {
    return Error{
        "unknown key '" + std::string(section) + "." + std::string(field) + "'" +
            did_you_mean(dotted, suggest_key(std::string(section) + "." + std::string(field))),
        at, std::string(dotted)};
  }
  return Ok{};
}

CountRange count_range_of(std::string_view dotted) {
  // The parallel degrees and GPU counts: each is at most the largest world (a product of them is
  // checked against it too).
  static constexpr std::string_view kParallel[] = {
      "model.tensor_model_parallel_size",
      "model.pipeline_model_parallel_size",
      "model.context_parallel_size",
      "model.expert_model_parallel_size",
      "model.expert_tensor_parallel_size",
      "model.hierarchical_context_parallel_sizes",
      "model.min_dynamic_context_parallel_size",
      "ddp.num_distributed_optimizer_instances",
  };
  const std::string key = canonical_key(dotted);
  if (std::find(std::begin(kParallel), std::end(kParallel), key) != std::end(kParallel)) {
    return kParallelCount;
  }
  if (key == "model.window_size") return kWindowBound;
  auto [section, field] = split_first(key);
  const FieldSpec* spec = find_field(section, field);
  return spec != nullptr && spec->size ? kDimensionCount : kCountOrZero;
}

PhysicalRange number_range_of(std::string_view dotted) {
  constexpr std::string_view kDropout = "_dropout";
  if (dotted.size() > kDropout.size() &&
      dotted.substr(dotted.size() - kDropout.size()) == kDropout) {
    return kProbability;
  }
  return PhysicalRange{"", -DBL_MAX, DBL_MAX, true};  // Finite and normal, any magnitude.
}

Status check_field_value(std::string_view dotted, const Value& value) {
  auto [section, rest] = split_first(dotted);
  if (rest.empty()) {
    return is_modelled_section(section) ? check_section_value(section, value) : Status(Ok{});
  }
  if (rest.find('.') != std::string_view::npos) return Ok{};  // Below a field: not modelled.
  return check_spec_value(dotted, find_field(section, rest), value);
}

namespace {

// OmegaConf keeps a YAML key with dots in it whole: it splits only the paths of overrides and
// select() (omry/omegaconf#1188, #1189: `{"a.b.c": 1}` is one key). Bridge's config has no field
// of that name, so _apply_overrides skips it like any unknown key.
Diagnostic dotted_key_note(const std::string& path, const std::string& key, const Location& at) {
  const std::string dotted = path.empty() ? key : path + "." + key;
  // A section, or a field of one (check_key_known accepts any key below a field, so those are
  // left out): what the key would have set had it been nested.
  const std::string canonical = canonical_key(dotted);
  const bool real = split_first(canonical).second.find('.') == std::string_view::npos &&
                    check_key_known(canonical, at).ok();
  const std::string where = path.empty() ? "at the top level" : "under '" + path + "'";
  std::string message =
      "'" + key + "' " + where +
      " is one YAML key with dots in it: OmegaConf keeps such a key whole (it splits override "
      "paths, not YAML keys), Megatron-Bridge's config has no field of that name and skips it "
      "(omegaconf_utils.py _apply_overrides: \"not found in config object ... Skipping\"), so "
      "this line sets nothing" +
      (real ? " and the job runs without '" + dotted + "'" : "");
  const size_t last = dotted.rfind('.');
  std::string fix = "nest it: " + dotted.substr(last + 1) + ": under " + dotted.substr(0, last) +
                    ", or pass the override " + dotted + "=VALUE";
  return Diagnostic::note(real ? Severity::kError : Severity::kWarning, message, dotted, at, fix);
}

std::string short_class(std::string_view qualified) {
  size_t dot = qualified.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified : qualified.substr(dot + 1));
}

/// Collects every problem of a check (each error's own `more` flattened into the list); the
/// result is the first problem with the rest as its `more`, or Ok when there is none.
class ErrorList {
 public:
  /// Record `s` when it failed. Return true when it succeeded.
  bool note(const Status& s) {
    if (s) return true;
    found_.push_back(s.error());
    found_.back().more.clear();
    for (const Error& more : s.error().more)
      found_.push_back(more);
    return false;
  }
  /// Return true when no problem was recorded.
  bool empty() const { return found_.empty(); }
  /// Return Ok, or the first problem with the others as its `more`.
  Status result() {
    if (found_.empty()) return Ok{};
    Error first = std::move(found_.front());
    first.more.assign(std::make_move_iterator(found_.begin() + 1),
                      std::make_move_iterator(found_.end()));
    return first;
  }

 private:
  std::vector<Error> found_;
};

/// Check the fields of the map at `path` against `fields`; `target` is the class the dump names
/// ("" when none). An unknown key is an error when the class is known (or none is named) and a
/// warning naming the class when the schema does not know it; in a Bridge YAML without any
/// `_target_` (`skipped`: an override file Bridge applies key by key) it is the warning of a
/// key Bridge skips. Maps below a field that name a known class of their own
/// (dataset.packed_sequence_specs, model.teacher) are checked likewise.
Status check_map(Recipe& recipe, const std::string& path, Value& map, const FieldSet& fields,
                 const std::string& target, bool target_known, bool skipped) {
  std::string section = path.substr(0, path.find('.'));
  bool top = path.find('.') == std::string::npos;
  ErrorList errors;  // every problem, not only the first
  auto note = [&errors](const Status& s) { return errors.note(s); };
  for (size_t i = 0; i < map.entries().size(); ++i) {
    const std::string& field = map.entries()[i].first;
    Value& value = map.value_at(i);
    std::string key = path + "." + field;
    if (field.find('.') != std::string::npos) {
      recipe.load_notes.push_back(dotted_key_note(path, field, value.location()));
      continue;
    }
    const FieldSpec* spec = fields.find(field);
    if (spec == nullptr) {
      if (!target_known && !target.empty()) {
        recipe.load_notes.push_back(Diagnostic::note(
            Severity::kWarning,
            "unknown key '" + key + "' for " + short_class(target) + " (" + target +
                "), a class the schema (Megatron-Bridge " +
                std::string(schema_detail::schema_bridge_commit().substr(0, 8)) +
                ") does not know: not checked",
            key, value.location(), "regenerate the schema with scripts/gen_bridge_schema.py"));
        continue;
      }
      std::string suggestion;
      if (top) {
        suggestion = suggest_key(key);
      } else if (std::string close = closest_match(field, fields.names()); !close.empty()) {
        suggestion = path + "." + close;
      }
      if (skipped && target.empty()) {
        recipe.load_notes.push_back(skipped_key_note(key, suggestion, value.location()));
        continue;
      }
      std::string what = target.empty() ? "" : " (" + short_class(target) + ")";
      note(Error{"unknown key '" + key + "'" + what + did_you_mean(key, suggestion),
                 value.location(), key});
      continue;
    }
    FieldSpec located = *spec;
    if (!top) located.size = false;
    if (!note(check_spec_value(key, &located, value))) continue;
    coerce(value, &located);
    if (!value.is_map()) continue;
    auto nested = recipe.targets.find(key);
    if (nested == recipe.targets.end()) continue;
    if (const FieldSet* inner = schema_detail::class_fields(nested->second)) {
      note(check_map(recipe, key, value, *inner, nested->second, true, skipped));
    }
  }
  (void)section;
  return errors.result();
}

/// Return the fields of a section: its `_target_` class (with model.transformer's class for a
/// builder-backed model config, whose fields the loader flattens), else the section's union.
const FieldSet* fields_for(const Recipe& recipe, const std::string& section, std::string& target,
                           bool& known, FieldSet& merged) {
  auto it = recipe.targets.find(section);
  target = it == recipe.targets.end() ? "" : it->second;
  const FieldSet* own = target.empty() ? nullptr : schema_detail::class_fields(target);
  known = own != nullptr;
  if (own == nullptr) return schema_detail::section_fields(section);
  auto inner = recipe.targets.find(section + ".transformer");
  if (section != "model" || inner == recipe.targets.end()) return own;
  const FieldSet* nested = schema_detail::class_fields(inner->second);
  if (nested == nullptr) return schema_detail::section_fields(section);
  merged.fields = own->fields;
  for (const FieldSpec& f : nested->fields) {
    if (merged.find(f.name) == nullptr) merged.fields.push_back(f);
  }
  std::sort(merged.fields.begin(), merged.fields.end(),
            [](const FieldSpec& a, const FieldSpec& b) { return a.name < b.name; });
  return &merged;
}

}  // namespace

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

Status check_recipe_schema(Recipe& recipe) {
  if (!recipe.root.is_map()) {
    return Error{"a recipe must be a map of sections", recipe.root.location(), ""};
  }
  // Every problem of the file, not only the first: the first is the error, the rest its `more`.
  ErrorList errors;  // every problem, not only the first
  auto note = [&errors](const Status& s) { return errors.note(s); };
  // A Bridge YAML that names no class anywhere is an override file: Bridge skips what it lacks.
  bool skipped = recipe.framework == Framework::kBridge && recipe.targets.empty() &&
                 recipe.root.get("_target_") == nullptr;
  for (size_t i = 0; i < recipe.root.entries().size(); ++i) {
    const std::string& section = recipe.root.entries()[i].first;
    Value& body = recipe.root.value_at(i);
    Location at = body.location().known() ? body.location() : recipe.where(section);
    if (section.find('.') != std::string::npos) {
      recipe.load_notes.push_back(dotted_key_note("", section, at));
      continue;
    }
    if (Status known = check_key_known(section, at); !known && skipped) {
      recipe.load_notes.push_back(skipped_key_note(section, suggest_key(section), at));
      continue;
    }
    if (!note(check_key_known(section, at))) continue;
    note(check_field_value(section, body));
    if (!is_modelled_section(section) || !body.is_map()) continue;
    std::string target;
    bool known = false;
    FieldSet merged;
    const FieldSet* fields = fields_for(recipe, section, target, known, merged);
    if (fields == nullptr) continue;
    note(check_map(recipe, section, body, *fields, target, known, skipped));
  }
  if (!errors.empty()) return errors.result();
  return check_parallel_product(recipe);
}

}  // namespace hcp
