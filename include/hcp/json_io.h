// JSON in and out for every loader and writer: output that never throws on invalid UTF-8 echoed
// from an input, and input parsing that turns every nlohmann exception into an Error naming the
// file (syntax errors with line and column, numbers out of range such as 1e400, duplicate keys,
// nesting deeper than kMaxJsonDepth).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "hcp/diagnostic.h"
#include "hcp/file_input.h"

namespace hcp {

/// Deepest JSON nesting accepted by parse_json_input (no input of hcp-plan nests beyond ~6).
inline constexpr int kMaxJsonDepth = 128;

/// `value` where the figure is defined, null where it is not (no sample, no such group, not
/// named by the input): a report never prints a default as if it were measured.
template <typename T>
nlohmann::json json_if(bool defined, const T& value) {
  return defined ? nlohmann::json(value) : nlohmann::json(nullptr);
}

/// Serialise `j` (indent < 0: one line). Invalid UTF-8 in strings is replaced by U+FFFD instead of
/// throwing, so text echoed from a malformed input never makes a writer fail.
std::string json_dump(const nlohmann::json& j, int indent = -1);
std::string json_dump(const nlohmann::ordered_json& j, int indent = -1);

/// Parse `text` (a leading UTF-8 BOM is skipped). `name` is the file named in errors and `what`
/// the document kind ("calibration JSON", "HF config"): "NAME:LINE:COL: malformed WHAT: ...".
/// Duplicate keys in one object are an error (the first and second line are named).
Result<nlohmann::json> parse_json_input(std::string_view text, const std::string& name,
                                        const std::string& what);
Result<nlohmann::ordered_json> parse_ordered_json_input(std::string_view text,
                                                        const std::string& name,
                                                        const std::string& what);

/// read_input_file + parse_json_input.
Result<nlohmann::json> load_json_file(const std::string& path, InputKind kind,
                                      const std::string& what);
Result<nlohmann::ordered_json> load_ordered_json_file(const std::string& path, InputKind kind,
                                                      const std::string& what);

}  // namespace hcp
