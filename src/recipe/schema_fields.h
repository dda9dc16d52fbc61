// Internal: the field sets behind include/hcp/schema.h, built from the generated tables in
// bridge_schema.inc (scripts/gen_bridge_schema.py) plus the few hand-written facts in
// schema_fields.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hcp/schema.h"

namespace hcp::schema_detail {

/// The fields of one or more dataclasses (their bases included), sorted by name.
struct FieldSet {
  std::vector<FieldSpec> fields;
  /// Return the field spec, or nullptr when the set has no such field.
  const FieldSpec* find(std::string_view name) const;
  /// Return every field name.
  std::vector<std::string> names() const;
};

/// Return the fields of the dataclass a dump's `_target_` names (its bases included), or nullptr
/// when the schema does not know the class.
const FieldSet* class_fields(std::string_view qualified_name);

/// Return the fields a section accepts when its `_target_` is not given or unknown: those of the
/// classes ConfigContainer declares for it and of all their subclasses. nullptr when the
/// section is no dataclass (env_vars) or unknown.
const FieldSet* section_fields(std::string_view section);

/// Return the ConfigContainer sections that are dataclasses (every one but env_vars).
const std::vector<std::string>& dataclass_sections();

/// Return true when `dotted` (canonical, "model.context_parallel_size") may not be null: Bridge
/// would set it to None and Megatron, which declares it without Optional, fails at start-up.
bool refuses_null(std::string_view dotted);

/// Return the Megatron-Bridge commit the schema was generated from.
std::string_view schema_bridge_commit();

}  // namespace hcp::schema_detail
