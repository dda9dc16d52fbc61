// Report formatting: diagnostics (validate, and any command that runs the rules) and the rule
// catalog (rules, explain). Reports only format; they compute nothing.
#pragma once

#include <string>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/rules.h"

namespace hcp {

/// What a validate-style report shows: the subject and its diagnostics.
struct DiagnosticsReport {
  std::string recipe;     ///< The recipe path as given (or its name).
  std::string framework;  ///< "bridge" or "mlm": whose semantics the rules applied.
  std::vector<Diagnostic> diagnostics;
  /// False when the recipe failed to load: its diagnostics are then the load errors.
  bool loaded = true;
  /// Why the file was not checked (a YAML file that is no recipe); empty when it was.
  std::string skipped{};
  bool color = false;  ///< Text: severities in ANSI colour.
};

/// Version of validate's JSON shape: 2 = one object for one or many recipes, with "recipes".
inline constexpr int kDiagnosticsJsonSchemaVersion = 2;

/// The diagnostics of a load error: the error and every further one it carries (`more`), as
/// errors without a rule ID, located where the loader found them.
std::vector<Diagnostic> load_error_diagnostics(const Error& error);

/// Return the diagnostics in compiler form, one per finding:
///   recipes/x.yaml:12:5: error: [CP013] message
///       fix: ...
///       note: enforced by bridge, mcore
/// followed by a summary line "recipes/x.yaml: 1 error, 0 warnings, 2 infos".
std::string format_diagnostics_text(const DiagnosticsReport& report);

/// Return the JSON contract of validate: {"recipe", "framework", "diagnostics":[{"id",
/// "severity", "message", "key", "location":{"file","line","column"}, "fix", "enforced_by"}],
/// "summary":{"errors","warnings","infos"}}, pretty-printed with a trailing newline.
std::string format_diagnostics_json(const DiagnosticsReport& report);
/// The same contract for any number of recipes, one shape: {"schema_version": 2, "recipe" and
/// "framework" of the first recipe, "diagnostics" of all recipes, "summary" over all,
/// "recipes": [{"recipe", "framework", "loaded", "skipped" (when skipped), "diagnostics",
/// "summary"}]}.
std::string format_diagnostics_json(const std::vector<DiagnosticsReport>& reports);

/// CI formats of one or more validate reports (one per recipe). They only format.
///
/// SARIF 2.1.0: one run; tool.driver carries `tool_version` and every catalog rule (id, title,
/// rationale as help text, default level); one result per diagnostic with ruleId, level
/// (error/warning/note), message and a physical location (region line/column when known).
std::string format_diagnostics_sarif(const std::vector<DiagnosticsReport>& reports,
                                     const std::string& tool_version);
/// JUnit XML: one <testsuite> per recipe, one <testcase> per catalog rule family (plus "general"
/// for findings without a rule); a family with errors fails and its <failure> lists them; every
/// finding also appears in the test case's <system-out>.
std::string format_diagnostics_junit(const std::vector<DiagnosticsReport>& reports);
/// GitHub Actions workflow commands, one line per finding:
///   ::error file=recipes/x.yaml,line=12,col=5,title=CP013::message
/// (info -> notice); properties escape % CR LF : , and the message escapes % CR LF.
std::string format_diagnostics_github(const std::vector<DiagnosticsReport>& reports);
/// GCC style, exactly one line per finding: "file:line:col: error: message [CP013]".
std::string format_diagnostics_gcc(const std::vector<DiagnosticsReport>& reports);

/// Return the catalog as a table: ID, severity, family, title; one rule per line.
std::string format_rule_list_text(const std::vector<Rule>& rules);
/// Return {"rules":[{"id","severity","family","title","enforced_by"}]}.
std::string format_rule_list_json(const std::vector<Rule>& rules);

/// One example of a rule as explain shows it: what was run and what the rules said.
struct ExampleReport {
  std::string command;                  ///< The validate command line that reproduces it.
  std::string error;                    ///< Set when the example could not run.
  std::vector<Diagnostic> diagnostics;  ///< Findings of the example's rule only.
  bool fired = false;                   ///< True when the rule reported something.
};

/// Return the rule in full: title, severity, family, rationale, upstream source, enforced by,
/// fix, and the failing and passing examples with their diagnostics.
std::string format_rule_explain_text(const Rule& rule, const ExampleReport& failing,
                                     const ExampleReport& passing);
/// Return the same as JSON: {"id", "severity", "family", "title", "rationale", "upstream",
/// "fix", "enforced_by", "examples":{"failing":{...}, "passing":{...}}}.
std::string format_rule_explain_json(const Rule& rule, const ExampleReport& failing,
                                     const ExampleReport& passing);

}  // namespace hcp
