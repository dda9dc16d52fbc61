// JSON forms: validate's diagnostics contract (ARCHITECTURE.md §4), the catalog and one rule.
#include <nlohmann/json.hpp>

#include "hcp/json_io.h"
#include "hcp/report.h"

namespace hcp {
namespace {

using nlohmann::json;

json location_json(const Location& at) {
  return json{{"file", at.file}, {"line", at.line}, {"column", at.column}};
}

json diagnostic_json(const Diagnostic& d) {
  return json{{"id", d.id},
              {"severity", severity_name(d.severity)},
              {"message", d.message},
              {"key", d.key},
              {"location", location_json(d.location)},
              {"fix", d.fix},
              {"enforced_by", d.enforced_by}};
}

json diagnostics_json(const std::vector<Diagnostic>& diagnostics) {
  json list = json::array();
  for (const Diagnostic& d : diagnostics)
    list.push_back(diagnostic_json(d));
  return list;
}

json strings(const std::vector<std::string_view>& items) {
  json list = json::array();
  for (std::string_view s : items)
    list.push_back(std::string(s));
  return list;
}

json example_json(const ExampleReport& example) {
  json j{{"command", example.command},
         {"fired", example.fired},
         {"diagnostics", diagnostics_json(example.diagnostics)}};
  if (!example.error.empty()) j["error"] = example.error;
  return j;
}

std::string dump(const json& j) {
  return json_dump(j, 2) + "\n";
}

}  // namespace

std::string format_diagnostics_json(const DiagnosticsReport& report) {
  Summary s = summarize(report.diagnostics);
  json j{{"recipe", report.recipe},
         {"framework", report.framework},
         {"diagnostics", diagnostics_json(report.diagnostics)},
         {"summary", {{"errors", s.errors}, {"warnings", s.warnings}, {"infos", s.infos}}}};
  return dump(j);
}

std::string format_rule_list_json(const std::vector<Rule>& rules) {
  json list = json::array();
  for (const Rule& rule : rules) {
    list.push_back(json{{"id", std::string(rule.id)},
                        {"severity", severity_name(rule.severity)},
                        {"family", std::string(rule.family)},
                        {"title", std::string(rule.title)},
                        {"enforced_by", strings(rule.enforced_by)}});
  }
  return dump(json{{"rules", list}});
}

std::string format_rule_explain_json(const Rule& rule, const ExampleReport& failing,
                                     const ExampleReport& passing) {
  json j{{"id", std::string(rule.id)},
         {"severity", severity_name(rule.severity)},
         {"family", std::string(rule.family)},
         {"title", std::string(rule.title)},
         {"rationale", std::string(rule.rationale)},
         {"upstream", std::string(rule.upstream)},
         {"fix", std::string(rule.fix)},
         {"enforced_by", strings(rule.enforced_by)},
         {"examples", {{"failing", example_json(failing)}, {"passing", example_json(passing)}}}};
  return dump(j);
}

}  // namespace hcp
