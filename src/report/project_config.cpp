// `.hcp-plan.yaml` project config, per-glob settings, and suppressions (see project_config.h).
#include "hcp/project_config.h"

#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/rules.h"
#include "hcp/schema.h"
#include "hcp/yaml_input.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

/// Settings keys (YAML spelling) and the command-line option each stands for.
const std::vector<std::pair<std::string, std::string>>& option_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"world_size", "world-size"},
      {"nodes", "nodes"},
      {"gpus_per_node", "gpus-per-node"},
      {"nvlink_domain", "nvlink-domain"},
      {"te_version", "te-version"},
      {"mcore_version", "mcore-version"},
      {"framework", "framework"},
      {"gpu_sm", "gpu-sm"},
      {"cluster", "cluster"},
  };
  return keys;
}

Location location_of(const YAML::Node& node, const std::string& path) {
  const YAML::Mark mark = node.Mark();
  return Location{path, mark.line + 1, mark.column + 1};
}

Error unknown_key(const std::string& key, const std::vector<std::string>& known,
                  const Location& at) {
  std::string message = "unknown key '" + key + "' in " + std::string(kProjectConfigName);
  return Error{message + did_you_mean(key, closest_match(key, known)), at, key};
}

/// A setting's value checked where it is written, as the option it stands for checks it on the
/// command line (set_environment_option): a bad te_version is reported at its line in the file,
/// not as "<command line>: --te-version ...". `framework` and `cluster` mean different things to
/// different commands; each command checks them.
Status check_option_value(const std::string& key, const std::string& option,
                          const std::string& value, const Location& at) {
  if (value.empty()) return Error{key + ": an empty value", at, key};
  if (option == "cluster") return Ok{};  // A profile name or file: each command finds it.
  // An integer with a leading zero has two readings: YAML 1.1 (PyYAML, which reads the recipes
  // Bridge runs) makes "040" octal 32, YAML 1.2 and the command line decimal 40. Rather than pick
  // one for a file the user may have written thinking of the other, the config refuses it.
  const bool integer = is_shape_option(option) || option == "nvlink-domain" || option == "gpu-sm";
  if (integer && value.size() > 1 && value[0] == '0' &&
      std::isdigit(static_cast<unsigned char>(value[1])) != 0) {
    return Error{key + ": '" + value.substr(0, 40) +
                     "' has a leading zero, an octal number in YAML 1.1 (PyYAML) and a decimal "
                     "one on the command line; write the number without it",
                 at, key};
  }
  Environment scratch;
  if (Status s = set_environment_option(scratch, option, value); !s) {
    return Error{key + ": " + s.error().message, at, key};
  }
  return Ok{};
}

/// `env:` the job's launch environment, a map NAME: VALUE or a list of NAME=VALUE.
Status parse_env(const YAML::Node& value, const Location& at, std::vector<std::string>& out) {
  if (value.IsMap()) {
    for (const auto& entry : value) {
      if (!entry.second.IsScalar()) return Error{"env: expected NAME: VALUE", at, "env"};
      out.push_back(entry.first.as<std::string>() + "=" + entry.second.as<std::string>());
    }
    return Ok{};
  }
  if (!value.IsSequence()) return Error{"env: expected a map NAME: VALUE", at, "env"};
  for (const auto& item : value) {
    std::string text = item.IsScalar() ? item.as<std::string>() : "";
    size_t eq = text.find('=');
    if (eq == 0 || eq == std::string::npos)
      return Error{"env: expected NAME=VALUE, got '" + text + "'", at, "env"};
    out.push_back(text);
  }
  return Ok{};
}

/// Parse one settings map; `top` allows fail_on and files as well.
Status parse_settings(const YAML::Node& map, const std::string& path, bool top,
                      ProjectSettings& out, ProjectConfig* config) {
  if (!map.IsMap()) return Error{"expected a map of settings", location_of(map, path), ""};
  std::vector<std::string> known = {"ignore", "env"};
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
        auto id = catalog_rule_id(value.as<std::string>(), at, "ignore");
        if (!id) return id.error();
        out.ignore.push_back(*id);
      } else if (value.IsSequence()) {
        for (const auto& item : value) {
          if (!item.IsScalar()) return Error{"ignore: expected rule IDs", at, key};
          auto id = catalog_rule_id(item.as<std::string>(), location_of(item, path), "ignore");
          if (!id) return id.error();
          out.ignore.push_back(*id);
        }
      } else {
        return Error{"ignore: expected a rule ID or a list of them", at, key};
      }
    } else if (key == "env") {
      if (Status s = parse_env(value, at, out.env); !s) return s;
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
        if (yaml_key != key) continue;
        const std::string text = value.as<std::string>();
        if (Status s = check_option_value(key, option, text, at); !s) return s;
        out.options[option] = text;
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
  into.env.insert(into.env.end(), layer.env.begin(), layer.env.end());
}

/// Every rule ID of the catalog.
const std::vector<std::string>& rule_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const Rule& rule : rule_registry())
      out.emplace_back(rule.id);
    return out;
  }();
  return ids;
}

/// The IDs after "hcp-plan: disable=" (or "hcp-plan disable=") in a comment, or none.
std::vector<std::string> disabled_ids(std::string_view comment) {
  std::vector<std::string> ids;
  size_t at = comment.find("hcp-plan");
  if (at == std::string_view::npos) return ids;
  std::string_view rest = comment.substr(at + 8);
  if (rest.starts_with(":")) rest.remove_prefix(1);
  if (!rest.starts_with(" disable=")) return ids;
  rest.remove_prefix(9);
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

bool is_shape_option(const std::string& option) {
  return option == "world-size" || option == "nodes" || option == "gpus-per-node";
}

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
  std::set<std::string> pending;  // From comment lines, for the next line with content.
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
        out.named.emplace(id, line_number);
        if (leading && comment_only) {
          out.whole_file.insert(id);
        } else if (comment_only) {
          pending.insert(std::move(id));
        } else {
          out.by_line[line_number].insert(std::move(id));
        }
      }
    }
    if (!blank && !comment_only && !document_marker) {
      leading = false;
      out.by_line[line_number].merge(pending);
      pending.clear();
      if (out.by_line[line_number].empty()) out.by_line.erase(line_number);
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

namespace {

/// The catalog ID closest to `id` ("" when none is close): the same family and number with the
/// catalog's three digits first (CP64 and CP0064 are CP064), else the nearest by edit distance.
std::string nearest_rule_id(const std::string& id) {
  std::string upper = id;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  size_t digits = upper.find_first_of("0123456789");
  if (digits != std::string::npos && digits > 0 &&
      upper.find_first_not_of("0123456789", digits) == std::string::npos) {
    std::string number = upper.substr(digits);
    number.erase(0, std::min(number.find_first_not_of('0'), number.size()));
    if (!number.empty() && number.size() <= 3) {
      std::string padded = upper.substr(0, digits) + std::string(3 - number.size(), '0') + number;
      if (const Rule* rule = find_rule(padded)) return std::string(rule->id);
    }
  }
  return closest_match(upper, rule_ids());
}

}  // namespace

Result<std::string> catalog_rule_id(const std::string& id, const Location& at,
                                    const std::string& where) {
  if (const Rule* rule = find_rule(id)) return std::string(rule->id);
  std::string near = nearest_rule_id(id);
  std::string message = where + ": unknown rule ID '" + id + "'";
  message += near.empty() ? " (`hcp-plan rules --format ids` lists them)" : did_you_mean(id, near);
  return Error{message, at, id};
}

Status canonicalize_suppressions(InlineSuppressions& suppressions, const std::string& file) {
  std::map<std::string, std::string> spelled;  // As written -> the catalog's spelling.
  for (const auto& [id, line] : suppressions.named) {
    auto canonical = catalog_rule_id(id, Location{file, line, 0}, "hcp-plan: disable=");
    if (!canonical) return canonical.error();
    spelled[id] = *canonical;
  }
  auto respell = [&spelled](std::set<std::string>& ids) {
    std::set<std::string> out;
    for (const std::string& id : ids)
      out.insert(spelled.count(id) > 0 ? spelled.at(id) : id);
    ids = std::move(out);
  };
  respell(suppressions.whole_file);
  for (auto& [line, ids] : suppressions.by_line)
    respell(ids);
  return Ok{};
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
