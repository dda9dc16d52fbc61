// Internal: typing of plain YAML scalars the way OmegaConf's YAML loader types them (PyYAML's
// YAML 1.1 resolvers plus OmegaConf's float resolver that makes 1e-4 a float).
#pragma once

#include <string>
#include <string_view>

#include "hcp/diagnostic.h"
#include "hcp/value.h"

namespace hcp::yaml_detail {

/// Return the typed value of a plain (unquoted) scalar: null, bool, int, float or string.
/// Errors: an integer that does not fit in 64 bits.
Result<Value> type_plain_scalar(std::string_view text, const Location& at);

/// Return the number a YAML 1.1 float literal denotes (1.5, 1e-4, .5, -.inf, .nan, 1_000.0), or
/// false when text is not one.
bool parse_yaml_float(std::string_view text, double& out);

}  // namespace hcp::yaml_detail
