// SARIF 2.1.0 form of validate's diagnostics (OASIS SARIF v2.1.0, sections 3.13-3.30): one run,
// the rule catalog as tool.driver.rules, one result per diagnostic.
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "hcp/json_io.h"
#include "hcp/report.h"

namespace hcp {
namespace {

using nlohmann::json;

constexpr const char* kLoadErrorRuleId = "hcp-plan";
constexpr const char* kSchemaUri = "https://json.schemastore.org/sarif-2.1.0.json";

/// SARIF levels (3.27.10): error, warning, note.
const char* sarif_level(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      break;
  }
  return "note";
}

/// Percent-encode what may not appear in a relative URI reference (RFC 3986), keeping '/'.
std::string uri_reference(const std::string& path) {
  static const std::string kUnreserved = "-._~/";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || kUnreserved.find(static_cast<char>(c)) != std::string::npos) {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

/// Overrides and the command line are not files: they get no physical location.
bool is_file_location(const Location& at) {
  return at.known() && at.file.front() != '<';
}

json rule_descriptor(const Rule& rule) {
  std::string help = std::string(rule.rationale);
  if (!rule.fix.empty()) help += "\nFix: " + std::string(rule.fix);
  if (!rule.upstream.empty()) help += "\nUpstream: " + std::string(rule.upstream);
  return json{{"id", std::string(rule.id)},
              {"name", std::string(rule.id)},
              {"shortDescription", {{"text", std::string(rule.title)}}},
              {"fullDescription", {{"text", std::string(rule.rationale)}}},
              {"help", {{"text", help}}},
              {"defaultConfiguration", {{"level", sarif_level(rule.severity)}}},
              {"properties", {{"tags", json::array({std::string(rule.family)})}}}};
}

json physical_location(const Location& at) {
  json region = json::object();
  if (at.line > 0) region["startLine"] = at.line;
  // The run declares columnKind unicodeCodePoints: the reader's code-point column, or, where it did
  // not count one, the byte column (the same on a line of ASCII).
  const int column = at.code_point_column > 0 ? at.code_point_column : at.column;
  if (at.line > 0 && column > 0) region["startColumn"] = column;
  json physical{{"artifactLocation", {{"uri", uri_reference(at.file)}}}};
  if (!region.empty()) physical["region"] = region;
  return physical;
}

json result_json(const Diagnostic& d, const std::string& recipe) {
  std::string text = d.message;
  if (!d.fix().empty()) text += " Fix: " + d.fix();
  json result{{"level", sarif_level(d.severity())}, {"message", {{"text", text}}}};
  if (d.id().empty()) {
    result["ruleId"] = kLoadErrorRuleId;  // Loader and environment findings have no catalog rule.
  } else {
    result["ruleId"] = d.id();
    const Rule* rule = find_rule(d.id());
    if (rule != nullptr) {
      const auto& rules = rule_registry();
      result["ruleIndex"] = static_cast<int>(rule - rules.data());
    }
  }
  Location at = d.location;
  if (!is_file_location(at)) at = Location{recipe, 0, 0};
  json location{{"physicalLocation", physical_location(at)}};
  if (!d.key.empty()) location["logicalLocations"] = json::array({{{"fullyQualifiedName", d.key}}});
  result["locations"] = json::array({location});
  json props{{"recipe", recipe}};
  if (!d.enforced_by().empty()) props["enforcedBy"] = d.enforced_by();
  result["properties"] = props;
  return result;
}

}  // namespace

std::string format_diagnostics_sarif(const std::vector<DiagnosticsReport>& reports,
                                     const std::string& tool_version) {
  json rules = json::array();
  for (const Rule& rule : rule_registry())
    rules.push_back(rule_descriptor(rule));
  json results = json::array();
  for (const DiagnosticsReport& report : reports) {
    for (const Diagnostic& d : fold_repeats(report.diagnostics))
      results.push_back(result_json(d, report.recipe));
  }
  json driver{{"name", "hcp-plan"}, {"version", tool_version}, {"rules", rules}};
  json run{
      {"tool", {{"driver", driver}}}, {"results", results}, {"columnKind", "unicodeCodePoints"}};
  json log{{"$schema", kSchemaUri}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  return json_dump(log, 2) + "\n";
}

}  // namespace hcp
