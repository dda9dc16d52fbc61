// The one YAML parse every YAML loader uses (recipes, Megatron-LM configs, cluster profiles, the
// project config): a single document, tags of YAML's core schema only, every yaml-cpp exception
// turned into an Error naming the file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {

/// Code-point columns of byte offsets in one UTF-8 text: yaml-cpp's marks count bytes, SARIF's
/// columns count code points. Built in one pass over the text (a count every 256 bytes); each
/// column then costs at most 256 bytes of counting, so a long one-line flow list stays linear.
class CodePointColumns {
 public:
  explicit CodePointColumns(std::string_view text);
  /// The 1-based code-point column of byte offset `pos`, which is `byte_column` (0-based) bytes
  /// after the start of its line; `byte_column + 1` when the offsets do not fit the text.
  int column(size_t pos, size_t byte_column) const;

 private:
  size_t code_points_before(size_t pos) const;

  std::string_view text_;
  std::vector<uint32_t> checkpoints_;  ///< code points before byte k * kStride
};

/// The location of yaml-cpp's `mark` in `file`: 1-based line, byte column and, counted in
/// `columns` (made from the text yaml-cpp parsed), code-point column; {file, 0, 0} for a null mark.
Location yaml_location(const std::string& file, const YAML::Mark& mark,
                       const CodePointColumns& columns);

/// Parse `text` as one YAML document of `what` (with its article: "a recipe"). Errors, located in
/// `file`: malformed YAML, nesting deeper than yaml-cpp reads, a second document that holds
/// anything (only the first would be read: "a YAML stream of 2 documents; a recipe is one"), and
/// a tag outside YAML's core schema (`!!python/object`, `!custom`), and a scalar whose unescaped
/// text is not UTF-8 (check_core_nodes). An empty document after a trailing `---` is allowed.
Result<YAML::Node> parse_single_yaml(std::string_view text, const std::string& file,
                                     const std::string& what);

/// The first node of `root` whose tag is not one of YAML's core schema (!!str, !!int, !!float,
/// !!bool, !!null, !!map, !!seq), or the first scalar whose text after unescaping is not UTF-8,
/// as an error located at it; Ok when there is none. The input is UTF-8 before parsing, but
/// yaml-cpp decodes the double-quoted escapes \_ and \N (U+00A0, U+0085) to the single bytes 0xA0
/// and 0x85: a profile holding one was written back as a file its own loader refused. Aliased
/// collections are visited once. `columns` counts the code-point columns of the parsed text.
Status check_core_nodes(const YAML::Node& root, const std::string& file,
                        const CodePointColumns& columns);

}  // namespace hcp
