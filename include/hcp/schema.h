// The field schema of the ConfigContainer sections hcp-plan models (model, train, dataset, dist,
// mixed_precision, ddp, validation): every known field with its type and upstream default, and the
// type checks the YAML loader, the override parser and the MLM/HF loaders share.
//
// Field names and types are generated from the dataclasses of every Megatron-Bridge model provider
// and ConfigContainer section and the Megatron-LM classes they inherit, by
// scripts/gen_bridge_schema.py (src/recipe/bridge_schema.inc records the commits).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hcp/checked.h"
#include "hcp/diagnostic.h"
#include "hcp/recipe.h"
#include "hcp/value.h"

namespace hcp {

/// The type a field accepts. Null (Python None once Bridge applies it) is accepted by every field
/// except the few sizes Megatron declares without Optional and computes with at start-up
/// (schema_fields.cpp kNullRefusedFields).
enum class FieldType {
  kInt,         ///< An integer (2.0 is rejected).
  kBool,        ///< true/false.
  kFloat,       ///< A number; integers are accepted.
  kString,      ///< A string (also dtypes and enums after the loader's mapping).
  kIntList,     ///< A list of integers.
  kStringList,  ///< A string or a list of strings (e.g. cp_comm_type per layer).
  kAny,         ///< Anything (callables, dicts, unions).
};

/// Return "int", "bool", "float", "string", "list of ints", "string or list of strings", "any".
const char* field_type_name(FieldType type);

/// One known field of a section.
struct FieldSpec {
  std::string_view name;           ///< Field name, e.g. "context_parallel_size".
  FieldType type;                  ///< Accepted type.
  bool size;                       ///< A size or dimension: every integer must be in [1, 2^31).
  std::string_view default_value;  ///< Upstream default as Python source ("1", "None", "required").
};

/// Return true for the sections whose keys are checked: every ConfigContainer section that is a
/// dataclass (all but env_vars).
bool is_modelled_section(std::string_view section);
/// Return the modelled section names.
const std::vector<std::string>& modelled_sections();
/// Return every top-level section of Bridge's ConfigContainer (modelled or not).
const std::vector<std::string>& top_level_sections();

/// Return the spec of section.field, or nullptr when the section is not modelled or the field is
/// unknown.
const FieldSpec* find_field(std::string_view section, std::string_view field);
/// Return the known field names of a modelled section (empty for other sections).
std::vector<std::string> field_names(std::string_view section);

/// Return the canonical spelling of a dotted key: "model.transformer.X" -> "model.X",
/// "dataset.sequence_length" -> "dataset.seq_length"; other keys are returned unchanged.
std::string canonical_key(std::string_view dotted);

/// Return a did-you-mean suggestion for an unknown dotted key ("model.context_parallel_size"), or
/// an empty string when nothing is close.
std::string suggest_key(std::string_view dotted);

/// Return the warning for a key Megatron-Bridge skips: a Bridge YAML without `_target_` classes
/// (an override file) and a `+key=value` override are applied onto the recipe's dataclasses key by
/// key, and a key the dataclass lacks is logged and skipped (omegaconf_utils.py:470-474
/// _apply_overrides), so it sets nothing. `suggestion` is a did-you-mean ("" when none): with one
/// the key is a typo of a real key and the note is an error, without one a warning.
Diagnostic skipped_key_note(const std::string& key, const std::string& suggestion,
                            const Location& at);

/// Check that `dotted` names a known key: a top-level section, or a field of a modelled section.
/// Keys below an unmodelled section, or nested below a known field, are always accepted. Return an
/// error naming the key with a did-you-mean when it is unknown; located at `at`.
Status check_key_known(std::string_view dotted, const Location& at);

/// The physical range of an integer field, for loaders that read numbers from text (Megatron-LM
/// arguments, HF config.json): parallel degrees 1 to 2^20, sizes and dimensions 1 to 2^31 - 1,
/// model.window_size's bounds -1 to 2^31 - 1, every other count 0 to 2^31 - 1.
CountRange count_range_of(std::string_view dotted);
/// The physical range of a float field those loaders read: 0 to 1 for a dropout probability
/// (model.attention_dropout), else any finite, normal number.
PhysicalRange number_range_of(std::string_view dotted);

/// Check one value against its field: type, size bounds. Unknown or unmodelled keys pass.
/// The error names the key, the expected type and the value's location.
Status check_field_value(std::string_view dotted, const Value& value);

/// Check that the model-parallel group sizes fit a world hcp-plan accepts: TP x PP x CP (times
/// tensor_parallel_num_weight_shards / TP when set) and EP x ETP x PP are at most kMaxWorldGpus
/// (2^20). Each size alone passes its bound (< 2^31) while their product can wrap to 0.
/// check_recipe_schema, apply_overrides and the MLM loader call it.
Status check_parallel_product(const Recipe& recipe);

/// Check every key and value of a whole recipe against the schema (unknown keys in modelled
/// sections with did-you-mean, types, size bounds). A section (or a map below a field) whose
/// `_target_` (recipe.targets) names a known class is checked against that class's fields; an
/// unknown class falls back to the section's fields and reports its unknown keys as warnings in
/// recipe.load_notes. Values Bridge's construction accepts beyond their annotation (an int for a
/// bool, an integral float for an int) are turned into the declared type. Return the first error
/// in document order. The MLM and HF loaders call this too, so every input is checked alike.
Status check_recipe_schema(Recipe& recipe);

}  // namespace hcp
