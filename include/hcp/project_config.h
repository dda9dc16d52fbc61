// CI across a repository of recipes: the project config file `.hcp-plan.yaml` (found upward
// from the working directory, as clang-tidy finds `.clang-tidy`), per-glob defaults, and the
// suppressions (`--ignore`, config `ignore:`, `# hcp-plan: disable=ID` comments in a recipe).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {

/// The name of the project config file.
inline constexpr const char* kProjectConfigName = ".hcp-plan.yaml";

/// What the config says for one recipe (or for every recipe, at its top level).
struct ProjectSettings {
  /// Options by their command-line name ("world-size", "nodes", "gpus-per-node",
  /// "nvlink-domain", "te-version", "mcore-version", "framework", "gpu-sm", "cluster") -> value
  /// as text. Each command takes those it has an option for.
  std::map<std::string, std::string> options;
  std::vector<std::string> ignore;  ///< Rule IDs to drop.
  std::vector<std::string> env;     ///< The job's launch environment, NAME=VALUE (as --env).
};

/// A loaded `.hcp-plan.yaml`.
struct ProjectConfig {
  std::string path;  ///< The file.
  std::string dir;   ///< Its directory: globs are relative to it.
  ProjectSettings defaults;
  /// `files:` entries in file order: glob -> settings; later matches win key by key.
  std::vector<std::pair<std::string, ProjectSettings>> files;
  std::optional<std::string> fail_on;  ///< "error" or "warning".
};

/// True for the options that make up the launch shape (world-size, nodes, gpus-per-node): one
/// layer or the command line that sets any of them replaces all three below it.
bool is_shape_option(const std::string& option);

/// Parse the config text. Keys (top level and per glob under `files:`): world_size, nodes,
/// gpus_per_node, nvlink_domain, te_version, mcore_version, framework, gpu_sm, cluster, ignore
/// (list of rule IDs), env (the launch environment: a map NAME: VALUE or a list of NAME=VALUE); top
/// level only: fail_on (error|warning), files (map glob -> settings). An unknown key, an unknown
/// rule ID, a bad value type or malformed YAML is an error with file:line:col and a did-you-mean.
Result<ProjectConfig> parse_project_config(std::string_view text, const std::string& path);

/// Read and parse `path`.
Result<ProjectConfig> load_project_config(const std::string& path);

/// Look for `.hcp-plan.yaml` in `start_dir` and its parents; nullopt when there is none.
std::optional<std::string> find_project_config(const std::string& start_dir);

/// The settings for `recipe_path`: the top level, then every `files:` glob that matches the
/// path relative to the config's directory (or, for a glob without '/', the file name), in
/// order. A layer that sets any of world_size / nodes / gpus_per_node replaces all three of the
/// layers below it (a per-file shape is one shape). Ignored IDs accumulate.
ProjectSettings settings_for(const ProjectConfig& config, const std::string& recipe_path);

/// Rule IDs disabled by `# hcp-plan: disable=ID[,ID...]` comments in a recipe's text (also
/// spelled `# hcp-plan disable=ID`).
struct InlineSuppressions {
  std::set<std::string> whole_file;              ///< In the leading comment block.
  std::map<int, std::set<std::string>> by_line;  ///< 1-based line -> IDs for that line.
  std::map<std::string, int> named;              ///< Every ID named -> its first comment's line.
};

/// Scan a recipe's text for suppression comments (placed as ShellCheck and hadolint place them).
/// A comment in the leading comment block (before the first YAML content) applies to the whole
/// file; a comment line after content applies to the findings located on the next line with
/// content; a comment at the end of a line with content applies to that line.
InlineSuppressions scan_suppressions(std::string_view text);

/// Return the catalog's spelling of rule ID `id`. Case is folded, as `explain` folds it
/// (`cp064` is CP064). An ID the catalog lacks is an error located at `at`, "<where>: unknown
/// rule ID 'CP999' (did you mean CP099?)".
Result<std::string> catalog_rule_id(const std::string& id, const Location& at,
                                    const std::string& where);

/// catalog_rule_id for every ID a recipe's suppression comments name (errors located at the
/// comment); the IDs are respelled as the catalog spells them.
Status canonicalize_suppressions(InlineSuppressions& suppressions, const std::string& file);

/// Remove the diagnostics whose rule ID is in `ignore`, or disabled inline for the line they
/// are located on in `file` (whose comments `inline_ids` holds). Return how many were removed.
size_t drop_suppressed(std::vector<Diagnostic>& diagnostics, const std::vector<std::string>& ignore,
                       const InlineSuppressions& inline_ids, const std::string& file);

/// When a YAML file is recognisably something else than a recipe (a pre-commit config or hook
/// list, a GitHub workflow or other file under .github/, a Compose file, a Kubernetes manifest,
/// clang-format / clang-tidy settings, this tool's own project config), return what it is, for a
/// "skipped" note; nullopt for anything that may be a recipe (the loader then reports it). A
/// file with a top-level recipe section (model, train, ...) or MODEL_ARGS is never skipped.
std::optional<std::string> non_recipe_yaml_kind(std::string_view text, const std::string& path);

}  // namespace hcp
