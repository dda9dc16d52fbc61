// JUnit XML form of validate's diagnostics: a test suite per recipe, a test case per rule family.
#include <map>
#include <set>
#include <sstream>

#include "hcp/report.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

/// Family of findings that have no catalog rule (loader or environment lines).
constexpr const char* kGeneralFamily = "general";

std::string family_of(const Diagnostic& d) {
  const Rule* rule = d.id().empty() ? nullptr : find_rule(d.id());
  return rule != nullptr ? std::string(rule->family) : kGeneralFamily;
}

/// Every family of the catalog, in catalog order, then "general".
std::vector<std::string> all_families() {
  std::vector<std::string> families;
  std::set<std::string> seen;
  for (const Rule& rule : rule_registry()) {
    if (seen.insert(std::string(rule.family)).second) families.emplace_back(rule.family);
  }
  families.emplace_back(kGeneralFamily);
  return families;
}

/// "recipes/x.yaml:12:5: error: [CP013] message" (the recipe stands in for an unknown file).
std::string finding_line(const Diagnostic& d, const std::string& recipe) {
  std::string where = d.location.known() ? d.location.str() : recipe;
  std::string line = one_line(where) + ": " + diagnostic_headline(d);
  if (!d.fix().empty()) line += "\n    " + diagnostic_fix_line(d);
  return line + "\n";
}

void write_testcase(std::ostream& out, const std::string& recipe, const std::string& family,
                    const std::vector<const Diagnostic*>& findings) {
  std::string errors;
  std::string all;
  int error_count = 0;
  std::vector<Diagnostic> family_findings;
  family_findings.reserve(findings.size());
  for (const Diagnostic* d : findings) {
    if (d->severity() == Severity::kError) ++error_count;
    family_findings.push_back(*d);
  }
  // Repeats fold inside their family, so the note stays in the test case of its findings.
  for (const Diagnostic& d : fold_repeats(family_findings)) {
    std::string line = finding_line(d, recipe);
    all += line;
    if (d.severity() == Severity::kError) errors += line;
  }
  out << "    <testcase classname=\"" << xml_escape(recipe) << "\" name=\"" << xml_escape(family)
      << "\" time=\"0\"";
  if (all.empty()) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (error_count > 0) {
    out << "      <failure type=\"hcp-plan.error\" message=\"" << error_count << " error"
        << (error_count == 1 ? "" : "s") << " in family " << xml_escape(family) << "\">"
        << xml_escape(errors) << "</failure>\n";
  }
  out << "      <system-out>" << xml_escape(all) << "</system-out>\n";
  out << "    </testcase>\n";
}

int count_failures(const std::map<std::string, std::vector<const Diagnostic*>>& by_family) {
  int failures = 0;
  for (const auto& [family, findings] : by_family) {
    for (const Diagnostic* d : findings) {
      if (d->severity() == Severity::kError) {
        ++failures;
        break;
      }
    }
  }
  return failures;
}

}  // namespace

std::string format_diagnostics_junit(const std::vector<DiagnosticsReport>& reports) {
  const std::vector<std::string> families = all_families();
  std::ostringstream suites;
  int total_tests = 0;
  int total_failures = 0;
  for (const DiagnosticsReport& report : reports) {
    std::map<std::string, std::vector<const Diagnostic*>> by_family;
    for (const Diagnostic& d : report.diagnostics)
      by_family[family_of(d)].push_back(&d);
    int failures = count_failures(by_family);
    int tests = static_cast<int>(families.size());
    total_tests += tests;
    total_failures += failures;
    suites << "  <testsuite name=\"" << xml_escape(report.recipe) << "\" tests=\"" << tests
           << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"0\" time=\"0\">\n";
    suites << "    <properties>\n      <property name=\"framework\" value=\""
           << xml_escape(report.framework) << "\"/>\n    </properties>\n";
    for (const std::string& family : families)
      write_testcase(suites, report.recipe, family, by_family[family]);
    suites << "  </testsuite>\n";
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"hcp-plan validate\" tests=\"" << total_tests << "\" failures=\""
      << total_failures << "\" errors=\"0\">\n"
      << suites.str() << "</testsuites>\n";
  return out.str();
}

}  // namespace hcp
