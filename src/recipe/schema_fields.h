// Internal: the per-section field tables behind include/hcp/schema.h.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "hcp/schema.h"

namespace hcp::schema_detail {

/// The fields of one modelled section, sorted by name.
struct SectionSpec {
  std::string_view name;
  std::span<const FieldSpec> fields;
};

/// Return every modelled section with its field table.
const std::vector<SectionSpec>& section_specs();

}  // namespace hcp::schema_detail
