// Text and JSON pieces shared by the single-node and the cluster preflight reports, and the
// reading back of a node's JSON report (what rank 0 receives from every node).
#include <cstdint>

#include "preflight_format.h"

#include "hcp/text_util.h"

namespace hcp::preflight_format {
namespace {

const char* plural(int64_t n, const char* one, const char* many) {
  return n == 1 ? one : many;
}

nlohmann::json optional_json(const std::optional<int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

Error json_error(const std::string& where, const std::string& what) {
  return Error{"malformed preflight report from " + where + ": " + what, Location{where, 0, 0}, ""};
}

/// A string member; "" when absent or null.
std::string text_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int64_t> optional_int(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

Result<Severity> severity_from(const std::string& name, const std::string& where) {
  for (Severity s : {Severity::kError, Severity::kWarning, Severity::kInfo})
    if (name == severity_name(s)) return s;
  return json_error(where, "unknown severity '" + name + "'");
}

}  // namespace

std::string counts_text(const Summary& s) {
  std::ostringstream ss;
  ss << s.errors << plural(s.errors, " error, ", " errors, ") << s.warnings
     << plural(s.warnings, " warning, ", " warnings, ") << s.infos
     << plural(s.infos, " info", " infos");
  return ss.str();
}

std::string shape_text(const LaunchShape& l) {
  auto num = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : std::string("?");
  };
  std::string text = num(l.nodes) + plural(l.nodes.value_or(0), " node x ", " nodes x ") +
                     num(l.gpus_per_node) + " GPUs (world size " + num(l.world_size) + "), from " +
                     one_line(l.source);
  if (!l.nodelist.empty()) text += " [" + one_line(l.nodelist) + "]";
  return text;
}

void append_finding(std::ostringstream& ss, const Diagnostic& d) {
  ss << "  " << diagnostic_headline(d);
  if (!d.key.empty() && d.key != "node" && d.key != "environment")
    ss << " (" << one_line(d.key) << ")";
  ss << "\n";
  if (!d.fix().empty()) ss << "      " << diagnostic_fix_line(d) << "\n";
}

nlohmann::json launch_json(const LaunchShape& l) {
  return {{"source", l.source},
          {"nodes", optional_json(l.nodes)},
          {"gpus_per_node", optional_json(l.gpus_per_node)},
          {"world_size", optional_json(l.world_size)},
          {"nodelist", l.nodelist},
          {"gpus_from_probe", l.gpus_from_probe},
          {"notes", l.notes}};
}

Result<LaunchShape> launch_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return json_error(where, "\"launch\" is not an object");
  LaunchShape l;
  l.source = text_of(j, "source");
  l.nodes = optional_int(j, "nodes");
  l.gpus_per_node = optional_int(j, "gpus_per_node");
  l.world_size = optional_int(j, "world_size");
  l.nodelist = text_of(j, "nodelist");
  l.gpus_from_probe = j.value("gpus_from_probe", false);
  if (auto it = j.find("notes"); it != j.end() && it->is_array())
    for (const auto& n : *it)
      if (n.is_string()) l.notes.push_back(n.get<std::string>());
  return l;
}

nlohmann::json summary_json(const Summary& s) {
  return {{"errors", s.errors}, {"warnings", s.warnings}, {"infos", s.infos}};
}

nlohmann::json finding_json(const std::string& source, const Diagnostic& d) {
  return {{"source", source},     {"id", d.id()}, {"severity", severity_name(d.severity())},
          {"message", d.message}, {"key", d.key}, {"fix", d.fix()}};
}

Result<Diagnostic> finding_from_json(const nlohmann::json& j, const std::string& where,
                                     std::string& source_out) {
  if (!j.is_object() || !j.contains("message"))
    return json_error(where, "a diagnostic without a message");
  auto severity = severity_from(text_of(j, "severity"), where);
  if (!severity) return severity.error();
  auto d = recorded_finding(text_of(j, "id"), *severity, text_of(j, "fix"));
  if (!d) return json_error(where, d.error().message);
  d->message = text_of(j, "message");
  d->key = text_of(j, "key");
  source_out = text_of(j, "source");
  return d;
}

}  // namespace hcp::preflight_format

namespace hcp {

Result<PreflightReport> preflight_report_from_json(const nlohmann::json& j,
                                                   const std::string& where) {
  using namespace preflight_format;
  if (!j.is_object() || !j.contains("verdict") || !j.contains("diagnostics") ||
      !j["diagnostics"].is_array())
    return json_error(where, "expected an object with \"verdict\" and \"diagnostics\"");
  PreflightReport r;
  r.go = text_of(j, "verdict") == "GO";
  r.recipe = text_of(j, "recipe");
  auto launch = launch_from_json(j.value("launch", nlohmann::json::object()), where);
  if (!launch) return launch.error();
  r.launch = std::move(*launch);
  r.environment = j.value("environment", nlohmann::json::object());
  r.node = j.value("node", nlohmann::json::object());
  std::vector<Diagnostic> all;
  for (const auto& item : j["diagnostics"]) {
    std::string source;
    auto d = finding_from_json(item, where, source);
    if (!d) return d.error();
    all.push_back(*d);
    r.findings.push_back({source, std::move(*d)});
  }
  r.summary = summarize(all);
  return r;
}

}  // namespace hcp
