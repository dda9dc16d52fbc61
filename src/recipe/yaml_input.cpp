#include "hcp/yaml_input.h"

#include <yaml-cpp/depthguard.h>

#include <exception>
#include <unordered_set>
#include <vector>

#include "hcp/text_util.h"

namespace hcp {

namespace {

/// Nodes visited by check_core_tags before it gives up (loaders bound their own trees further).
constexpr size_t kMaxTagNodes = 10'000'000;

Location location_of(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return Location{file, 0, 0};
  return Location{file, mark.line + 1, mark.column + 1};
}

/// True for the tags a YAML parser of the core schema resolves ("?" plain, "!" quoted).
bool core_tag(const std::string& tag) {
  static const char* const kCore[] = {"",
                                      "?",
                                      "!",
                                      "tag:yaml.org,2002:str",
                                      "tag:yaml.org,2002:int",
                                      "tag:yaml.org,2002:float",
                                      "tag:yaml.org,2002:bool",
                                      "tag:yaml.org,2002:null",
                                      "tag:yaml.org,2002:map",
                                      "tag:yaml.org,2002:seq"};
  for (const char* core : kCore)
    if (tag == core) return true;
  return false;
}

/// "!!python/object" for "tag:yaml.org,2002:python/object", as it was written.
std::string written_tag(const std::string& tag) {
  const std::string prefix = "tag:yaml.org,2002:";
  std::string shown =
      tag.compare(0, prefix.size(), prefix) == 0 ? "!!" + tag.substr(prefix.size()) : tag;
  return neutralize_controls(utf8_prefix(shown, 60));
}

Result<std::vector<YAML::Node>> load_all(std::string_view text, const std::string& file) {
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    return Error{
        "YAML nesting too deep (yaml-cpp stops at " + std::to_string(e.depth()) + " levels)",
        location_of(file, e.mark), ""};
  } catch (const YAML::Exception& e) {
    return Error{e.msg.empty() ? std::string("malformed YAML") : "malformed YAML: " + e.msg,
                 location_of(file, e.mark), ""};
  } catch (const std::exception& e) {
    return Error{std::string("cannot parse YAML: ") + e.what(), Location{file, 0, 0}, ""};
  }
}

}  // namespace

Status check_core_tags(const YAML::Node& root, const std::string& file) {
  std::vector<YAML::Node> pending{root};
  std::unordered_set<int> seen;  // collections by their position: an alias is the same node
  size_t visited = 0;
  while (!pending.empty() && ++visited < kMaxTagNodes) {
    YAML::Node node = pending.back();
    pending.pop_back();
    if (!node.IsDefined()) continue;
    if (!core_tag(node.Tag())) {
      return Error{"YAML tag '" + written_tag(node.Tag()) +
                       "' is not read (only the core schema: !!str, !!int, !!float, !!bool, "
                       "!!null, !!map, !!seq)",
                   location_of(file, node.Mark()), ""};
    }
    if (!node.IsMap() && !node.IsSequence()) continue;
    if (!node.Mark().is_null() && !seen.insert(node.Mark().pos).second) continue;
    for (const auto& item : node) {
      if (node.IsMap()) {
        pending.push_back(item.first);
        pending.push_back(item.second);
      } else {
        pending.push_back(item);
      }
    }
  }
  return Ok{};
}

Result<YAML::Node> parse_single_yaml(std::string_view text, const std::string& file,
                                     const std::string& what) {
  Result<std::vector<YAML::Node>> documents = load_all(text, file);
  if (!documents) return documents.error();
  if (documents->empty()) return YAML::Node();
  for (size_t i = 1; i < documents->size(); ++i) {
    const YAML::Node& extra = (*documents)[i];
    if (extra.IsNull() || !extra.IsDefined()) continue;
    return Error{"a YAML stream of " + std::to_string(documents->size()) +
                     " documents (a second '---' document); " + what +
                     " is one document, and only the first would be read",
                 location_of(file, extra.Mark()), ""};
  }
  const YAML::Node& root = documents->front();
  if (Status tags = check_core_tags(root, file); !tags) return tags.error();
  return root;
}

}  // namespace hcp
