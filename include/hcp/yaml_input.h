// The one YAML parse every YAML loader uses (recipes, Megatron-LM configs, cluster profiles, the
// project config): a single document, tags of YAML's core schema only, every yaml-cpp exception
// turned into an Error naming the file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "hcp/diagnostic.h"

namespace hcp {

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
/// collections are visited once.
Status check_core_nodes(const YAML::Node& root, const std::string& file);

}  // namespace hcp
