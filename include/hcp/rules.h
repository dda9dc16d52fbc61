// The rule registry: every context-parallel constraint of the catalog, one small unit each, shared
// by `validate`, `plan`, `compare` and `preflight`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/recipe.h"
#include "hcp/version.h"

namespace hcp {

/// What the rules know besides the recipe. Unknown inputs stay nullopt: a rule that needs one
/// says what it assumed or reports an info line instead of guessing silently.
struct Environment {
  Framework framework = Framework::kBridge;
  std::optional<int64_t> world_size;
  std::optional<int64_t> gpus_per_node;
  std::optional<int64_t> nvlink_domain;  ///< GPUs per NVLink domain (72 on GB200 NVL72).
  std::optional<Version> te_version;
  std::optional<Version> mcore_version;
  std::optional<Version> bridge_version;
  std::optional<Version> torch_version;
  std::optional<Version> nccl_version;
  std::optional<int> gpu_sm;  ///< Compute capability x10 (90 for H100) when known.
  std::map<std::string, std::string> process_env;  ///< Process environment (preflight).
};

/// Everything a rule check reads.
struct RuleContext {
  const Recipe& recipe;
  const Environment& env;
};

struct Rule;

/// Collects the findings of one rule, filling in the rule's ID, severity and fix by default.
class Reporter {
 public:
  Reporter(const Rule& rule, const Recipe& recipe, std::vector<Diagnostic>& out)
      : rule_(rule), recipe_(recipe), out_(out) {}
  /// Report at the location of `key` with the rule's severity and fix.
  void report(std::string_view key, std::string message);
  /// Report with an explicit severity and fix (empty fix = the rule's).
  void report(std::string_view key, std::string message, Severity severity, std::string fix = {});

 private:
  const Rule& rule_;
  const Recipe& recipe_;
  std::vector<Diagnostic>& out_;
};

using RuleCheck = void (*)(const RuleContext&, Reporter&);

/// One catalog entry.
struct Rule {
  std::string_view id;        ///< "CP013"
  Severity severity;          ///< Default severity of its findings.
  std::string_view family;    ///< Catalog section, e.g. "hcp" or "sequence".
  std::string_view title;     ///< One line.
  std::string_view rationale; ///< Why upstream rejects it or what goes wrong.
  std::string_view upstream;  ///< Source citation (repo-relative path:lines).
  std::string_view fix;       ///< Default fix hint.
  std::vector<std::string_view> enforced_by;  ///< "bridge", "mcore", "mlm", "te" (runtime).
  std::string_view bad_example;   ///< Overrides (space separated) that make it fire.
  std::string_view good_example;  ///< Overrides that keep it quiet.
  std::string_view example_args;  ///< Extra validate options for the examples ("--world-size 32").
  RuleCheck check;
};

/// Return every rule, ordered by ID.
const std::vector<Rule>& rule_registry();
/// Return the rule with this ID (case-insensitive), or nullptr.
const Rule* find_rule(std::string_view id);

/// Run every rule; return diagnostics ordered by severity (errors first) then by location.
std::vector<Diagnostic> check_rules(const Recipe& recipe, const Environment& env);

/// Counts of a diagnostic list.
struct Summary {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
};
Summary summarize(const std::vector<Diagnostic>& diagnostics);

}  // namespace hcp
