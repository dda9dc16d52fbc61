// The rule registry: every context-parallel constraint of the catalog, one small unit each, shared
// by `validate`, `plan`, `compare` and `preflight`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
  std::optional<int64_t> nodes;  ///< --nodes; world_size = nodes x gpus_per_node when both known.
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

/// Inputs outside the recipe that some rules need and validate may not know.
enum class Input { kWorldSize, kGpusPerNode, kTeVersion, kMcoreVersion, kLaunchEnv, kGpuArch };

/// Rules that could not use an unknown input: check_rules turns these into one info line per
/// input ("TE version unknown (pass --te-version X.Y.Z): skipped CP018; assumed TE >= 2.15 for
/// CP034").
struct MissingInputs {
  struct Use {
    std::string rule_id;
    std::string assumption;  ///< Empty when the rule skipped its check.
  };
  std::map<Input, std::vector<Use>> uses;
};

/// Which case of its catalog entry a finding is: the entry's own severity and fix (no name), or
/// one of the entry's `cases` by name. For a case whose fix has a "{}" slot, the value to put
/// there (a computed size). The emitter of a finding passes this, never a severity or a fix.
struct FindingCase {
  FindingCase() = default;
  FindingCase(const char* case_name,  // NOLINT(google-explicit-constructor)
              std::string value = {})
      : name(case_name), fix_value(std::move(value)) {}
  explicit FindingCase(std::string_view case_name) : name(case_name) {}
  std::string_view name;
  std::string fix_value;
};

/// Collects the findings of one rule; each takes its ID, severity and fix from the rule's
/// catalog entry.
class Reporter {
 public:
  Reporter(const Rule& rule, const Recipe& recipe, std::vector<Diagnostic>& out,
           MissingInputs* missing = nullptr)
      : rule_(rule), recipe_(recipe), out_(out), missing_(missing) {}
  /// Report at the location of `key` with the severity and fix of the rule's case `as` (the
  /// entry's own when unnamed).
  void report(std::string_view key, std::string message, const FindingCase& as = {});
  /// Record that the rule skipped its check because `input` is unknown.
  void skipped(Input input);
  /// Record that the rule went on with `assumption` ("TE >= 2.15") because `input` is unknown.
  void assumed(Input input, std::string assumption);

 private:
  const Rule& rule_;
  const Recipe& recipe_;
  std::vector<Diagnostic>& out_;
  MissingInputs* missing_;
};

using RuleCheck = void (*)(const RuleContext&, Reporter&);

/// One case of a rule whose findings do not all weigh the same (a warning under Bridge, an error
/// under the Megatron-LM CLI; a broken NVLink that `probe` warns about and preflight blocks on).
/// The emitter names the case; its severity and fix are stated here, in the catalog entry.
struct RuleCase {
  std::string_view name;  ///< What the emitter passes ("bridge"); "" restates the entry's own.
  Severity severity;      ///< Severity of the case's findings.
  /// Fix hint of the case's findings: nullopt for the entry's own, "" for none. A "{}" in it is
  /// filled with the value the emitter passes (FindingCase::fix_value).
  std::optional<std::string_view> fix = std::nullopt;
};

/// The layout fields the variants of one planner layout differ in (EP, ETP, VP): the ones a rule
/// declares in Rule::reads.
LayoutFields variant_fields();
/// Return the set holding `fields`.
LayoutFields layout_fields(std::initializer_list<LayoutField> fields);

/// One catalog entry.
struct Rule {
  std::string_view id;                        ///< "CP013"
  Severity severity;                          ///< Default severity of its findings.
  std::string_view family;                    ///< Catalog section, e.g. "hcp" or "sequence".
  std::string_view title;                     ///< One line.
  std::string_view rationale;                 ///< Why upstream rejects it or what goes wrong.
  std::string_view upstream;                  ///< Source citation (repo-relative path:lines).
  std::string_view fix;                       ///< Default fix hint.
  std::vector<std::string_view> enforced_by;  ///< "bridge", "mcore", "mlm", "te" (runtime).
  /// Validate arguments after the recipe that make it fire: overrides (space separated, Hydra
  /// grammar or shorthand flags) and environment options ("--te-version 1.11.0").
  std::string_view bad_example;
  std::string_view good_example;  ///< Arguments that keep it quiet (same form).
  std::string_view example_args;  ///< Extra validate options for both examples ("--world-size 32").
  RuleCheck check;
  /// Which of the layout fields a planner candidate's variants differ in (EP, ETP, VP: see
  /// variant_fields()) the check reads, directly or through a default (ETP follows EP). The planner
  /// prunes the other variants of a layout on a rejection only when its rule reads none of the
  /// fields they differ in. The other layout fields (TP, CP, PP, DP, comm types, HCP sizes) are
  /// the same inside a variant group and are not declared.
  LayoutFields reads = {};
  /// YAML merged over the example recipe before the failing example's arguments, for findings
  /// overrides cannot produce (run_recipe.py re-syncs model.seq_length, for instance).
  std::string_view bad_example_yaml = {};
  /// True when the loader itself rejects the failing example (exit 2) and the rule guards
  /// recipes built in memory (planner candidates, MLM arguments).
  bool loader_rejects_bad_example = false;
  /// For the rules that read a node or a launch instead of a recipe (PF*, TOPO*): the command
  /// that computes them ("preflight", "probe"). Their check is null, check_rules() skips them,
  /// and bad_example / good_example describe the example inputs in words.
  std::string_view runs_in = {};
  /// The cases whose severity or fix differ from the entry's own (see RuleCase).
  std::vector<RuleCase> cases = {};
  /// True when the check reads the model alone, never the layout or the environment: its error
  /// holds for every layout, so plan and compare report it once for the recipe (model_errors())
  /// instead of rejecting each candidate.
  bool whole_model = false;
};

/// Return every rule, ordered by ID.
const std::vector<Rule>& rule_registry();
/// Return the rule with this ID (case-insensitive), or nullptr.
const Rule* find_rule(std::string_view id);

/// Return the finding `id` in case `as` about `key`, saying `message`: its severity, fix and
/// enforced_by come from the rule's catalog entry (the one way PF*, TOPO* and LOG* findings are
/// made; recipe rules report through their Reporter). An ID or case the catalog lacks is a
/// programming error: std::logic_error.
Diagnostic finding(std::string_view id, std::string key, std::string message,
                   const FindingCase& as = {});
/// Return the finding `id` of a failure the catalog rule `cause` explains (an upstream assert
/// that rule predicts): as finding(), with `cause`'s fix (the entry's own when `cause` has none).
Diagnostic finding_explained_by(const Rule& cause, std::string_view id, std::string key,
                                std::string message);

/// Rewrite `d`'s fix hint in Megatron-LM flag names (--context-parallel-size), for inputs given
/// as Megatron-LM arguments: the catalog's text, respelled (hcp::mlm_spelling).
void spell_fix_for_mlm(Diagnostic& d);
/// Return a finding as another hcp-plan run recorded it (preflight's node reports, read back by
/// the cluster check), or a note when `id` is empty. Error when `id` names no catalog entry or
/// the entry never has `severity`. Never for new findings: those come from finding().
Result<Diagnostic> recorded_finding(std::string id, Severity severity, std::string fix);

/// Run every rule; return diagnostics ordered by severity (errors first) then by location.
std::vector<Diagnostic> check_rules(const Recipe& recipe, const Environment& env);

/// Return the first error of the whole-model rules (Rule::whole_model) on `recipe`, as an Error
/// "[ID] message" at the finding's location and key; nullopt when the model passes them.
std::optional<Error> model_error(const Recipe& recipe);

/// Return the info lines for the unknown inputs some rules needed (one per input).
std::vector<Diagnostic> missing_input_diagnostics(const MissingInputs& missing);

/// Return the environment option names validate understands ("world-size", "nodes",
/// "gpus-per-node", "nvlink-domain", "te-version", "mcore-version", "framework").
const std::vector<std::string>& environment_option_names();
/// Set one environment option by its long name (without dashes). Return an error for an unknown
/// name or a malformed value (sizes must be positive integers, versions X[.Y[.Z]]).
Status set_environment_option(Environment& env, std::string_view name, std::string_view value);
/// Derive what follows from the options given (world size = nodes x gpus per node). Return an
/// error when --world-size contradicts --nodes x --gpus-per-node.
Status finalize_environment(Environment& env);

/// The shipped recipe every rule example starts from.
inline constexpr std::string_view kExampleRecipe = "llama3_8b_128k";

/// One rule example run through the loader and every rule.
struct ExampleRun {
  std::vector<std::string> overrides;   ///< The overrides applied to the example recipe.
  Environment env;                      ///< The environment the example options describe.
  std::vector<Diagnostic> diagnostics;  ///< What check_rules reported.
  Recipe recipe;                        ///< The recipe the rules checked.
};
/// Split example text ("model.x=1 -cp 4 --te-version 1.11") into overrides and environment
/// options. Return an error for a malformed option.
Status split_example(std::string_view text, std::vector<std::string>& overrides, Environment& env);
/// Run the rule's failing (`failing` = true) or passing example on kExampleRecipe with the rule's
/// example_args. Return an error when the recipe cannot be found or an override is rejected.
Result<ExampleRun> run_rule_example(const Rule& rule, bool failing);

/// A finding of a layout rule computed from plain sizes.
struct SizeFinding {
  std::string_view id;  ///< "CP013"
  std::string message;  ///< The rule's text.
  std::string key;      ///< The recipe key it is about.
};

/// The layout rules on plain sizes: the one place the conditions and texts of CP001, CP002,
/// CP004, CP005, CP013, CP020, CP081 and CP090 are computed. Their registry rules call these
/// with a recipe's sizes, and the process-group builder (layout/resolve.cpp, `hcp-plan groups`)
/// with a GroupOptions. Each returns the finding, or nullopt when the sizes pass.
namespace size_rules {
/// Products of parallel sizes can exceed 64 bits for absurd inputs; they are compared exactly.
using Wide = unsigned __int128;
/// Return the decimal text of `v`.
std::string wide_str(Wide v);
/// Return the exact product of `xs` (each taken as unsigned).
Wide wide_product(std::initializer_list<int64_t> xs);
/// CP002: context_parallel_size >= 1.
std::optional<SizeFinding> context_parallel_positive(int64_t cp);
/// CP001: the world divides by TP*PP*CP (times MCore main's GTP rematerialisation factor).
std::optional<SizeFinding> world_divisible(int64_t world, int64_t tp, int64_t pp, int64_t cp,
                                           int64_t gtp_factor);
/// CP005: the world divides by ETP*EP*PP (times the expert GTP factor).
std::optional<SizeFinding> expert_world_divisible(int64_t world, int64_t etp, int64_t ep,
                                                  int64_t pp, int64_t egtp_factor);
/// CP005: without pp-last ordering and with PP > 1, the dense group TP*CP (x GTP) and the expert
/// group ETP*EP (x expert GTP) must be equal, i.e. both DPs must be.
std::optional<SizeFinding> rank_ordering_same_dp(bool pp_last, int64_t pp, int64_t dense_group,
                                                 int64_t expert_group);
/// CP004: num_distributed_optimizer_instances divides DP*CP.
std::optional<SizeFinding> distopt_instances_divide(int64_t dp_cp, int64_t instances);
/// CP013: the product of the HCP sizes equals CP (levels below 1 are CP002's).
std::optional<SizeFinding> hcp_product(const std::vector<int64_t>& hcp, int64_t cp);
/// CP081: hybrid / dynamic CP needs an even DP*CP.
std::optional<SizeFinding> dynamic_domain_even(bool hybrid, int64_t dp_cp);
/// CP090: min_dynamic_context_parallel_size >= 1.
std::optional<SizeFinding> min_dynamic_size_positive(int64_t min);
/// CP020: the a2a level of HCP (blocks of TP*HCP[0] consecutive ranks) stays inside the NVLink
/// domain (`nvlink_domain`) or node: no block crosses a domain boundary when the world size is
/// known, else the span divides the domain.
std::optional<SizeFinding> a2a_level_in_domain(int64_t tp, int64_t hcp0, int64_t domain,
                                               bool nvlink_domain,
                                               std::optional<int64_t> world = std::nullopt);
}  // namespace size_rules

/// Counts of a diagnostic list.
struct Summary {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
};
Summary summarize(const std::vector<Diagnostic>& diagnostics);

}  // namespace hcp
