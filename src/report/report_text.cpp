// Text forms: compiler-style diagnostics, the rule catalog table and a rule's explanation.
#include <algorithm>
#include <sstream>

#include "hcp/report.h"
#include "hcp/text_table.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

/// Write one diagnostic: the located line, then indented fix and note lines. A finding about the
/// command line or about nothing in particular names `recipe` instead, so the lines of several
/// recipes can be told apart.
TextStyle severity_style(Severity s) {
  if (s == Severity::kError) return TextStyle::kError;
  return s == Severity::kWarning ? TextStyle::kWarning : TextStyle::kInfo;
}

void write_diagnostic(std::ostream& out, const Diagnostic& d, const char* indent,
                      const std::string& recipe = "", bool color = false) {
  const bool unplaced = !d.location.known() || d.location.file == "<command line>";
  const std::string where = unplaced && !recipe.empty() ? recipe : d.location.str();
  out << indent << one_line(where) << ": "
      << styled(severity_name(d.severity()), severity_style(d.severity()), color) << ": ";
  if (!d.id().empty()) out << "[" << d.id() << "] ";
  out << one_line(d.message) << "\n";
  if (!d.fix().empty()) out << indent << "    fix: " << one_line(d.fix()) << "\n";
  if (!d.enforced_by().empty()) {
    out << indent << "    note: enforced by " << join(d.enforced_by(), ", ") << "\n";
  }
}

std::string summary_line(const std::vector<Diagnostic>& diagnostics) {
  Summary s = summarize(diagnostics);
  return counted(s.errors, "error") + ", " + counted(s.warnings, "warning") + ", " +
         counted(s.infos, "info");
}

std::string view_list(const std::vector<std::string_view>& items) {
  std::vector<std::string> copy(items.begin(), items.end());
  return copy.empty() ? "(nothing checks it upstream; hcp-plan derives it)" : join(copy, ", ");
}

void write_example(std::ostream& out, const char* heading, const ExampleReport& example,
                   std::string_view id) {
  out << heading << "\n  $ " << example.command << "\n";
  if (!example.error.empty()) {
    out << "  (could not run: " << example.error << ")\n";
    return;
  }
  if (example.diagnostics.empty()) {
    out << "  " << id << " is quiet.\n";
    return;
  }
  for (const Diagnostic& d : example.diagnostics)
    write_diagnostic(out, d, "  ");
}

}  // namespace

std::string format_diagnostics_text(const DiagnosticsReport& report) {
  std::ostringstream out;
  for (const Diagnostic& d : fold_repeats(report.diagnostics))
    write_diagnostic(out, d, "", report.recipe, report.color);
  out << one_line(report.recipe) << ": " << summary_line(report.diagnostics) << "\n";
  return out.str();
}

std::string format_rule_list_text(const std::vector<Rule>& rules) {
  std::ostringstream out;
  out << "ID     SEVERITY  FAMILY    TITLE\n";
  for (const Rule& rule : rules) {
    std::string severity = severity_name(rule.severity);
    std::string family(rule.family);
    out << rule.id << "  " << severity
        << std::string(10 - std::min<size_t>(severity.size(), 9), ' ') << family
        << std::string(10 - std::min<size_t>(family.size(), 9), ' ') << rule.title << "\n";
  }
  out << rules.size() << " rules; 'hcp-plan explain ID' shows one in full\n";
  return out.str();
}

std::string format_rule_explain_text(const Rule& rule, const ExampleReport& failing,
                                     const ExampleReport& passing) {
  std::ostringstream out;
  out << rule.id << ": " << rule.title << "\n\n";
  out << "Severity:    " << severity_name(rule.severity) << "\n";
  out << "Family:      " << rule.family << "\n";
  out << "Enforced by: " << view_list(rule.enforced_by) << "\n";
  out << "Upstream:    " << rule.upstream << "\n\n";
  out << "Why:\n  " << rule.rationale << "\n\n";
  out << "Fix:\n  " << rule.fix << "\n\n";
  write_example(out, "Failing example:", failing, rule.id);
  out << "\n";
  write_example(out, "Passing example:", passing, rule.id);
  return out.str();
}

}  // namespace hcp
