// `.hcp-plan.yaml` project config, per-glob settings, and suppressions (see project_config.h).
#include "hcp/project_config.h"

#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/schema.h"
#include "hcp/yaml_input.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

/// Settings keys (YAML spelling) and the command-line option each stands for.
const std::vector<std::pair<std::string, std::string>>& option_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"world_size", "world-size"},       {"nodes", "nodes"},
      {"gpus_per_node", "gpus-per-node"}, {"nvlink_domain", "nvlink-domain"},
      {"te_version", "te-version"},       {"mcore_version", "mcore-version"},
      {"framework", "framework"},         {"gpu_sm", "gpu-sm"},
  };
  return keys;
}

bool is_shape_option(const std::string& option) {
  return option == "world-size" || option == "nodes" || option == "gpus-per-node";
}

Location location_of(const YAML::Node& node, const std::string& path) {
  const YAML::Mark mark = node.Mark();
  return Location{path, mark.line + 1, mark.column + 1};
}

Error unknown_key(const std::string& key, const std::vector<std::string>& known,
                  const Location& at) {
  std::string message = "unknown key '" + key + "' in " + std::string(kProjectConfigName);
  std::string near = closest_match(key, known);
  if (!near.empty()) message += " (did you mean '" + near + "'?)";
  return Error{message, at, key};
}

/// Parse one settings map; `top` allows fail_on and files as well.
Status parse_settings(const YAML::Node& map, const std::string& path, bool top,
                      ProjectSettings& out, ProjectConfig* config) {
  if (!map.IsMap()) return Error{"expected a map of settings", location_of(map, path), ""};
  std::vector<std::string> known = {"ignore"};
  for (const auto& [key, option] : option_keys())
    known.push_back(key);
  if (top) {
    known.emplace_back("fail_on");
    known.emplace_back("files");
  }
  for (const auto& entry : map) {
    const std::string key = entry.first.as<std::string>();
    const YAML::Node& value = entry.second;
    const Location at = location_of(entry.second, path);
    if (std::find(known.begin(), known.end(), key) == known.end())
      return unknown_key(key, known, location_of(entry.first, path));
    if (key == "ignore") {
      if (value.IsScalar()) {
        out.ignore.push_back(value.as<std::string>());
      } else if (value.IsSequence()) {
        for (const auto& id : value) {
          if (!id.IsScalar()) return Error{"ignore: expected rule IDs", at, key};
          out.ignore.push_back(id.as<std::string>());
        }
      } else {
        return Error{"ignore: expected a rule ID or a list of them", at, key};
      }
    } else if (key == "fail_on") {
      std::string level = value.IsScalar() ? value.as<std::string>() : "";
      if (level != "error" && level != "warning")
        return Error{"fail_on: expected error or warning", at, key};
      config->fail_on = level;
    } else if (key == "files") {
      if (!value.IsMap()) return Error{"files: expected a map of glob -> settings", at, key};
      for (const auto& glob : value) {
        ProjectSettings settings;
        if (Status s = parse_settings(glob.second, path, false, settings, nullptr); !s) return s;
        config->files.emplace_back(glob.first.as<std::string>(), std::move(settings));
      }
    } else {
      if (!value.IsScalar()) return Error{key + ": expected a single value", at, key};
      for (const auto& [yaml_key, option] : option_keys()) {
        if (yaml_key == key) out.options[option] = value.as<std::string>();
      }
    }
  }
  return Ok{};
}

/// Merge `layer` over `into`: a layer with any shape key replaces the whole shape.
void merge(ProjectSettings& into, const ProjectSettings& layer) {
  bool shape = std::any_of(layer.options.begin(), layer.options.end(),
                           [](const auto& kv) { return is_shape_option(kv.first); });
  if (shape) {
    for (auto it = into.options.begin(); it != into.options.end();) {
      it = is_shape_option(it->first) ? into.options.erase(it) : std::next(it);
    }
  }
  for (const auto& [option, value] : layer.options)
    into.options[option] = value;
  into.ignore.insert(into.ignore.end(), layer.ignore.begin(), layer.ignore.end());
}

/// The IDs after "hcp-plan: disable=" in a comment, or none.
std::vector<std::string> disabled_ids(std::string_view comment) {
  static constexpr std::string_view kTag = "hcp-plan: disable=";
  std::vector<std::string> ids;
  size_t at = comment.find(kTag);
  if (at == std::string_view::npos) return ids;
  std::string_view rest = comment.substr(at + kTag.size());
  std::string id;
  for (char c : rest) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
      id += c;
    } else if (c == ',') {
      if (!id.empty()) ids.push_back(id);
      id.clear();
    } else {
      break;
    }
  }
  if (!id.empty()) ids.push_back(id);
  return ids;
}

}  // namespace

Result<ProjectConfig> parse_project_config(std::string_view text, const std::string& path) {
  ProjectConfig config;
  config.path = path;
  config.dir = fs::path(path).parent_path().string();
  Result<YAML::Node> parsed = parse_single_yaml(text, path, "a project config");
  if (!parsed) return parsed.error();
  const YAML::Node& root = *parsed;
  if (root.IsNull() || !root.IsDefined()) return config;
  try {
    if (Status s = parse_settings(root, path, true, config.defaults, &config); !s) return s.error();
  } catch (const YAML::Exception& e) {
    return Error{e.msg, Location{path, e.mark.line + 1, e.mark.column + 1}, ""};
  }
  return config;
}

Result<ProjectConfig> load_project_config(const std::string& path) {
  Result<std::string> text = read_input_file(path, InputKind::kConfig);
  if (!text) return text.error();
  return parse_project_config(*text, path);
}

std::optional<std::string> find_project_config(const std::string& start_dir) {
  std::error_code ec;
  fs::path dir = fs::absolute(start_dir.empty() ? "." : start_dir, ec);
  if (ec) return std::nullopt;
  for (int depth = 0; depth < 256; ++depth) {
    fs::path candidate = dir / kProjectConfigName;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

ProjectSettings settings_for(const ProjectConfig& config, const std::string& recipe_path) {
  ProjectSettings out = config.defaults;
  std::error_code ec;
  fs::path base = fs::absolute(config.dir.empty() ? "." : config.dir, ec).lexically_normal();
  fs::path recipe = fs::absolute(recipe_path, ec).lexically_normal();
  const std::string relative = recipe.lexically_relative(base).generic_string();
  const std::string name = recipe.filename().string();
  for (const auto& [glob, settings] : config.files) {
    const bool has_slash = glob.find('/') != std::string::npos;
    const std::string& subject = has_slash ? relative : name;
    if (fnmatch(glob.c_str(), subject.c_str(), 0) == 0) merge(out, settings);
  }
  return out;
}

InlineSuppressions scan_suppressions(std::string_view text) {
  InlineSuppressions out;
  bool leading = true;
  int line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    ++line_number;
    size_t first = line.find_first_not_of(" \t\r");
    const bool blank = first == std::string_view::npos;
    const bool comment_only = !blank && line[first] == '#';
    const bool document_marker = !blank && line.substr(first, 3) == "---";
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) {
      for (std::string& id : disabled_ids(line.substr(hash))) {
        if (leading && comment_only) {
          out.whole_file.insert(id);
        } else {
          out.by_line[line_number].insert(std::move(id));
        }
      }
    }
    if (!blank && !comment_only && !document_marker) leading = false;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

size_t drop_suppressed(std::vector<Diagnostic>& diagnostics, const std::vector<std::string>& ignore,
                       const InlineSuppressions& inline_ids, const std::string& file) {
  const size_t before = diagnostics.size();
  std::erase_if(diagnostics, [&](const Diagnostic& d) {
    if (d.id().empty()) return false;
    if (std::find(ignore.begin(), ignore.end(), d.id()) != ignore.end()) return true;
    if (inline_ids.whole_file.count(d.id()) > 0) return true;
    if (d.location.file != file) return false;
    auto line = inline_ids.by_line.find(d.location.line);
    return line != inline_ids.by_line.end() && line->second.count(d.id()) > 0;
  });
  return before - diagnostics.size();
}

std::optional<std::string> non_recipe_yaml_kind(std::string_view text, const std::string& path) {
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name == kProjectConfigName) return std::string("the hcp-plan project config");
  if (name == ".pre-commit-config.yaml") return std::string("a pre-commit config");
  if (name == ".pre-commit-hooks.yaml") return std::string("a pre-commit hook list");
  if (name == ".clang-format" || name == ".clang-tidy" || name == "_clang-format")
    return std::string("clang tool settings");
  // A line "model:" (or another ConfigContainer section, or MODEL_ARGS) at column 0 is a top-level
  // key of a block mapping: a recipe, known without parsing the file a second time (the loader
  // parses it). At worst a non-recipe file is then checked as a recipe, as without this test.
  const auto& sections = top_level_sections();
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? text.npos : end - start);
    if (line.rfind("MODEL_ARGS", 0) == 0) return std::nullopt;
    for (const std::string& section : sections) {
      if (line.size() > section.size() && line.rfind(section, 0) == 0 &&
          line[section.size()] == ':') {
        return std::nullopt;
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception&) {
    return std::nullopt;  // The recipe loader reports malformed YAML.
  }
  if (!root.IsMap()) return std::nullopt;
  std::set<std::string> keys;
  try {
    for (const auto& entry : root)
      keys.insert(entry.first.as<std::string>());
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  for (const std::string& key : keys) {
    if (key.rfind("MODEL_ARGS", 0) == 0) return std::nullopt;
    if (std::find(sections.begin(), sections.end(), key) != sections.end()) return std::nullopt;
  }
  auto has = [&keys](const char* key) { return keys.count(key) > 0; };
  if (has("repos")) return std::string("a pre-commit config");
  if (has("jobs") && (has("on") || has("true") || has("name")))
    return std::string("a GitHub Actions workflow");
  if (has("runs") && (has("name") || has("description"))) return std::string("a GitHub action");
  if (p.generic_string().find(".github/") != std::string::npos)
    return std::string("a file under .github/");
  if (has("services")) return std::string("a Compose file");
  if (has("apiVersion") && has("kind")) return std::string("a Kubernetes manifest");
  if (has("stages") || has("variables")) return std::string("a CI pipeline");
  return std::nullopt;
}

}  // namespace hcp
