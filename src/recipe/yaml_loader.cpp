// Recipe YAML loading: read the file, parse it with yaml-cpp, convert it into a located Value tree
// (OmegaConf scalar typing), normalise full dumps and check the tree against the field schema.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hcp/file_input.h"
#include "hcp/recipe.h"
#include "hcp/schema.h"
#include "hcp/yaml_input.h"
#include "normalize.h"
#include "yaml_merge.h"
#include "yaml_scalar.h"

namespace hcp {
namespace {

/// Deeper than any real config (ConfigContainer dumps nest about 6 levels).
constexpr int kMaxDepth = 64;
/// Guards against alias bombs: yaml-cpp shares aliased nodes, the conversion would copy them.
constexpr size_t kMaxNodes = 100'000;

/// The prefix of the core schema's tags: "tag:yaml.org,2002:int" is written "!!int".
constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

/// The core tag of `node` without its prefix ("int"), or "" for a non-specific one ("?" plain,
/// "!" quoted; check_core_nodes has refused every other tag).
std::string_view core_tag_name(const YAML::Node& node) {
  std::string_view tag = node.Tag();
  if (tag.substr(0, kCoreTagPrefix.size()) != kCoreTagPrefix) return {};
  return tag.substr(kCoreTagPrefix.size());
}

/// An error for an explicit tag of another type on a collection (`!!str {a: 1}`).
Status check_collection_tag(const YAML::Node& node, std::string_view kind, const Location& here) {
  std::string_view tag = core_tag_name(node);
  if (tag.empty() || tag == kind) return Ok{};
  auto node_kind = [](std::string_view k) {
    return k == "map" ? "a mapping" : k == "seq" ? "a sequence" : "a scalar";
  };
  return Error{"a !!" + std::string(tag) + " tag on " + node_kind(kind) + "; PyYAML builds a " +
                   std::string(tag) + " only from " + node_kind(tag),
               here, ""};
}

class Converter {
 public:
  Converter(std::string file, std::string_view text)
      : file_(std::move(file)),
        columns_(text),
        merges_([this](const YAML::Mark& mark) { return at(mark); }, kMaxNodes) {}
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;

  Result<Value> convert(const YAML::Node& node, const Location& fallback, int depth);

 private:
  Location at(const YAML::Mark& mark) const { return yaml_location(file_, mark, columns_); }
  Result<Value> convert_map(const YAML::Node& node, const Location& here, int depth);
  Result<Value> convert_list(const YAML::Node& node, const Location& here, int depth);
  Result<Value> convert_scalar(const YAML::Node& node, const Location& here);

  std::string file_;
  CodePointColumns columns_;
  yaml_detail::MergeKeys merges_;
  size_t nodes_ = 0;
};

Result<Value> Converter::convert(const YAML::Node& node, const Location& fallback, int depth) {
  if (++nodes_ > kMaxNodes) {
    return Error{
        "YAML holds more than 100000 nodes (a list that long, or aliases that expand to it)",
        fallback, ""};
  }
  if (depth > kMaxDepth) {
    return Error{"YAML nesting deeper than " + std::to_string(kMaxDepth) + " levels", fallback, ""};
  }
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return convert_map(node, at(node.Mark()), depth);
    case YAML::NodeType::Sequence:
      return convert_list(node, at(node.Mark()), depth);
    case YAML::NodeType::Scalar:
      return convert_scalar(node, at(node.Mark()));
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      // An empty value ("key:") carries the next token's mark: locate it at its key instead.
      return Value::null(fallback);
  }
  return Value::null(fallback);
}

Result<Value> Converter::convert_map(const YAML::Node& node, const Location& here, int depth) {
  if (Status s = check_collection_tag(node, "map", here); !s) return s.error();
  // Merge keys applied: a merged value keeps the place where its anchor wrote it.
  Result<std::vector<yaml_detail::MappingEntry>> entries = merges_.entries(node);
  if (!entries) return entries.error();
  Value map = Value::map({}, here);
  for (const yaml_detail::MappingEntry& entry : *entries) {
    Result<Value> child = convert(entry.value, at(entry.key.Mark()), depth + 1);
    if (!child) return child.error();
    map.append(entry.key.Scalar(), std::move(*child));
  }
  return map;
}

Result<Value> Converter::convert_list(const YAML::Node& node, const Location& here, int depth) {
  if (Status s = check_collection_tag(node, "seq", here); !s) return s.error();
  std::vector<Value> items;
  items.reserve(node.size());
  for (const auto& item : node) {
    Result<Value> child = convert(item, here, depth + 1);
    if (!child) return child.error();
    items.push_back(std::move(*child));
  }
  return Value::list(std::move(items), here);
}

Result<Value> Converter::convert_scalar(const YAML::Node& node, const Location& here) {
  // "!" marks quoted and block scalars; an explicit tag builds its type as PyYAML does.
  if (node.Tag() == "!") return Value::string(node.Scalar(), here);
  std::string_view tag = core_tag_name(node);
  if (!tag.empty()) return yaml_detail::type_tagged_scalar(tag, node.Scalar(), here);
  return yaml_detail::type_plain_scalar(node.Scalar(), here);
}

/// Return an error when the text holds bytes no YAML recipe has (NUL, other C0 controls, DEL);
/// the same check as every other YAML loader.
Status check_text(std::string_view text, const std::string& file) {
  return check_no_control_bytes(text, file, "a YAML recipe");
}

Result<YAML::Node> parse_yaml(std::string_view text, const std::string& file) {
  return parse_single_yaml(text, file, "a recipe");
}

const char* kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    default:
      return "nothing";
  }
}

Result<std::string> read_text_file(const std::string& path) {
  return read_input_file(path, InputKind::kRecipe);
}

}  // namespace

Result<Recipe> load_recipe_text(std::string_view text, const std::string& name) {
  text = strip_utf8_bom(text);
  if (Status s = check_text(text, name); !s) return s.error();
  Result<YAML::Node> parsed = parse_yaml(text, name);
  if (!parsed) return parsed.error();
  const YAML::Node& node = *parsed;
  Location top{name, 1, 1};
  if (node.IsNull() || !node.IsDefined()) {
    return Error{"empty recipe: the file holds no YAML content", Location{name, 0, 0}, ""};
  }
  if (!node.IsMap()) {
    return Error{std::string("the top level of a recipe must be a map of sections (model:, train:, "
                             "...), got ") +
                     kind_of(node),
                 top, ""};
  }
  Converter converter(name, text);
  Result<Value> root = converter.convert(node, top, 0);
  if (!root) return root.error();
  Recipe recipe;
  recipe.path = name;
  recipe.name = std::filesystem::path(name).stem().string();
  recipe.root = std::move(*root);
  recipe_detail::collect_targets(recipe.root, "", recipe.targets);
  recipe_detail::normalize_tree(recipe.root);
  if (Status s = resolve_interpolations(recipe); !s) return s.error();
  if (Status s = check_recipe_schema(recipe); !s) return s.error();
  recipe.packing_specs_copied = recipe_detail::canonical_packing(recipe.root);
  return recipe;
}

Result<Recipe> load_recipe_file(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return text.error();
  return load_recipe_text(*text, path);
}

}  // namespace hcp
