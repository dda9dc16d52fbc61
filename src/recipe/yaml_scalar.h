// Internal: typing of YAML scalars the way OmegaConf's YAML loader types them (PyYAML's YAML 1.1
// resolvers plus OmegaConf's float resolver that makes 1e-4 a float, and PyYAML's constructors
// for explicit tags).
#pragma once

#include <string>
#include <string_view>

#include "hcp/diagnostic.h"
#include "hcp/value.h"

namespace hcp::yaml_detail {

/// Return the typed value of a plain (unquoted) scalar: null, bool, int (base 60 too: "1:4" is
/// 64), float ("1:30.5" is 90.5) or string.
/// Errors: an integer that does not fit in 64 bits.
Result<Value> type_plain_scalar(std::string_view text, const Location& at);

/// Return the value of a scalar with an explicit tag of YAML's core schema, `tag` without its
/// "tag:yaml.org,2002:" prefix ("str", "int", "float", "bool", "null"), built as PyYAML's
/// SafeConstructor builds it: `!!float 16` is 16.0, `!!int 1:4` is 64, `!!null` is null whatever
/// its text. Errors: text the type's constructor refuses (`!!bool 1`, `!!int 1.5`), an integer
/// that does not fit in 64 bits, a "map" or "seq" tag on a scalar.
Result<Value> type_tagged_scalar(std::string_view tag, std::string_view text, const Location& at);

/// Return the number a YAML 1.1 float literal denotes (1.5, 1e-4, .5, -.inf, .nan, 1_000.0,
/// 1:30.5), or false when text is not one.
bool parse_yaml_float(std::string_view text, double& out);

}  // namespace hcp::yaml_detail
