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
  return json{{"id", d.id()},
              {"severity", severity_name(d.severity())},
              {"message", d.message},
              {"key", d.key},
              {"location", location_json(d.location)},
              {"fix", d.fix()},
              {"enforced_by", d.enforced_by()}};
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

std::vector<Diagnostic> load_error_diagnostics(const Error& error) {
  std::vector<Diagnostic> out;
  auto add = [&out](const Error& e) {
    // "unknown ... 'X' (did you mean 'Y'?)": the suggestion is the fix.
    const std::string marker = "did you mean '";
    size_t at = e.message.find(marker);
    size_t end = at == std::string::npos ? at : e.message.find('\'', at + marker.size());
    std::string fix;
    if (end != std::string::npos) {
      fix = "use '" + e.message.substr(at + marker.size(), end - at - marker.size()) + "'";
    }
    out.push_back(Diagnostic::note(Severity::kError, e.message, e.key, e.location, fix));
  };
  add(error);
  for (const Error& e : error.more)
    add(e);
  return out;
}

std::string format_diagnostics_json(const DiagnosticsReport& report) {
  return format_diagnostics_json(std::vector<DiagnosticsReport>{report});
}

std::string format_diagnostics_json(const std::vector<DiagnosticsReport>& reports) {
  auto summary_json = [](const std::vector<Diagnostic>& ds) {
    Summary s = summarize(ds);
    return json{{"errors", s.errors}, {"warnings", s.warnings}, {"infos", s.infos}};
  };
  std::vector<Diagnostic> all;
  json recipes = json::array();
  for (const DiagnosticsReport& report : reports) {
    all.insert(all.end(), report.diagnostics.begin(), report.diagnostics.end());
    json one{{"recipe", report.recipe},
             {"framework", report.framework},
             {"loaded", report.loaded},
             {"diagnostics", diagnostics_json(fold_repeats(report.diagnostics))},
             {"summary", summary_json(report.diagnostics)}};
    if (!report.skipped.empty()) one["skipped"] = report.skipped;
    recipes.push_back(std::move(one));
  }
  json j{{"schema_version", kDiagnosticsJsonSchemaVersion},
         {"recipe", reports.empty() ? "" : reports.front().recipe},
         {"framework", reports.empty() ? "" : reports.front().framework},
         {"diagnostics", diagnostics_json(fold_repeats(all))},
         {"summary", summary_json(all)},
         {"recipes", std::move(recipes)}};
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
