// check-log reports: a one-line verdict first, then what was read, then the diagnostics in the
// same forms validate prints (src/report). Formatting only: every number comes from the checks.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hcp/json_io.h"
#include "hcp/logcheck.h"
#include "hcp/report.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

using json = nlohmann::ordered_json;

json location_json(const Location& at) {
  return json{{"file", at.file}, {"line", at.line}, {"column", at.column}};
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

std::string log_verdict(const LogCheckReport& report) {
  Summary s = summarize(report.diagnostics);
  std::string counts = plural(s.errors, "error") + ", " + plural(s.warnings, "warning");
  for (const Diagnostic& d : report.diagnostics) {
    if (d.severity() == Severity::kError) {
      return "check-log: FAIL: [" + d.id() + "] " + d.message.substr(0, 160) +
             (d.message.size() > 160 ? "..." : "") + " (" + counts + ")";
    }
  }
  return "check-log: OK: the job ran as configured and planned (" + counts + ")";
}

std::string format_log_report_text(const LogCheckReport& report) {
  const ParsedLog& log = report.log;
  std::ostringstream out;
  out << log_verdict(report) << "\n\n";
  out << "Read:      " << log.lines << " lines from " << log.files.size() << " file"
      << (log.files.size() == 1 ? "" : "s") << "\n";
  out << "Config:    "
      << (log.config ? log.config->format + " at " + one_line(log.config->begin.str())
          : report.config_source == "recipe" ? std::string("none printed; the recipe's")
                                             : std::string("none"))
      << "\n";
  if (log.world_size) out << "World:     " << *log.world_size << " GPUs\n";
  if (!log.groups.empty()) {
    out << "Groups:    ";
    bool first = true;
    for (const LogGroup& g : log.groups) {
      if (g.name.find("CONTEXT_PARALLEL") == std::string::npos) continue;
      out << (first ? "" : ", ") << g.name << (g.size > 0 ? " x" + std::to_string(g.size) : "");
      first = false;
    }
    if (first) out << "(no CP groups among " << log.groups.size() << ")";
    out << "\n";
  }
  if (!log.versions.empty()) {
    out << "Versions: ";
    for (const auto& [name, v] : log.versions)
      out << " " << name << " " << v.version.str();
    out << "\n";
  }
  if (report.speed) {
    out << "Step:      median " << format_fixed(report.speed->median_step_ms, 1) << " ms over "
        << report.speed->samples << " lines (" << report.speed->skipped_warmup
        << " warm-up dropped)";
    if (report.speed->median_tflops_per_gpu)
      out << ", " << format_fixed(*report.speed->median_tflops_per_gpu, 1) << " TFLOP/s/GPU";
    out << "\n";
  }
  if (report.speed_check) {
    const SpeedCheck& sc = *report.speed_check;
    out << "Plan:      " << format_fixed(sc.predicted_s * 1000, 1) << " ms (band "
        << format_fixed(sc.low_s * 1000, 1) << "-" << format_fixed(sc.high_s * 1000, 1)
        << "), CP off " << format_fixed(sc.cp_off_s * 1000, 1) << " ms\n";
  }
  if (report.prediction) {
    for (const std::string& note : report.prediction->notes)
      out << "Note:      " << note << "\n";
  }
  out << "\n";
  DiagnosticsReport diags;
  diags.recipe = log.files.empty() ? "log" : log.files.front();
  diags.framework = log.config ? framework_name(log.config->recipe.framework) : "";
  diags.diagnostics = report.diagnostics;
  out << format_diagnostics_text(diags);
  return out.str();
}

std::string format_log_report_json(const LogCheckReport& report) {
  const ParsedLog& log = report.log;
  json j;
  j["verdict"] = log_verdict(report);
  j["files"] = log.files;
  j["lines"] = log.lines;
  if (log.config) {
    j["config"] = json{{"format", log.config->format},
                       {"framework", framework_name(log.config->recipe.framework)},
                       {"location", location_json(log.config->begin)},
                       {"end_line", log.config->end_line}};
  } else {
    j["config"] = nullptr;
  }
  j["world_size"] = log.world_size ? json(*log.world_size) : json(nullptr);
  j["process_group_logging"] = log.pg_logging;
  json groups = json::array();
  for (const LogGroup& g : log.groups) {
    groups.push_back(json{{"name", g.name},
                          {"size", g.size},
                          {"seen", g.seen},
                          {"location", location_json(g.first)}});
  }
  j["groups"] = groups;
  json versions = json::object();
  for (const auto& [name, v] : log.versions)
    versions[name] = v.version.str();
  j["versions"] = versions;
  j["iterations_seen"] = log.iterations_seen;
  if (report.speed) {
    json speed{{"median_step_ms", report.speed->median_step_ms},
               {"samples", report.speed->samples},
               {"skipped_warmup", report.speed->skipped_warmup}};
    if (report.speed->median_tflops_per_gpu)
      speed["median_tflops_per_gpu"] = *report.speed->median_tflops_per_gpu;
    if (report.speed_check) {
      const SpeedCheck& sc = *report.speed_check;
      speed["predicted_ms"] = sc.predicted_s * 1000;
      speed["band_ms"] = json::array({sc.low_s * 1000, sc.high_s * 1000});
      speed["cp_off_ms"] = sc.cp_off_s * 1000;
      speed["matches_cp_off"] = sc.matches_cp_off;
      speed["verdict"] = sc.verdict == SpeedVerdict::kFaster   ? "faster"
                         : sc.verdict == SpeedVerdict::kSlower ? "slower"
                                                               : "within";
      speed["largest_term"] = sc.largest_term;
    }
    j["speed"] = speed;
  } else {
    j["speed"] = nullptr;
  }
  if (report.prediction) {
    const Estimate& e = report.prediction->estimate;
    j["prediction"] = json{{"layout", report.prediction->layout.label()},
                           {"cluster", report.prediction->cluster},
                           {"step_ms", e.time.step_s * 1000},
                           {"memory_gib", e.memory_gib()},
                           {"band", json::array({report.prediction->band.low_factor,
                                                 report.prediction->band.high_factor})},
                           {"band_source", report.prediction->band.source},
                           {"notes", report.prediction->notes}};
  }
  json memory = json::array();
  for (const LogMemory& m : log.memory) {
    // A line that names no rank or iteration gives null, not -1.
    memory.push_back(
        json{{"rank", json_if(m.rank >= 0, m.rank)},
             {"after_iterations", json_if(m.after_iterations >= 0, m.after_iterations)},
             {"max_allocated_mb", m.max_allocated_mb},
             {"max_reserved_mb", m.max_reserved_mb},
             {"location", location_json(m.at)}});
  }
  j["memory"] = memory;
  json failures = json::array();
  for (const LogFailure& f : log.failures) {
    json one{{"kind", log_failure_kind_name(f.kind)},
             {"exception", f.exception},
             {"message", f.message},
             {"frame", f.frame},
             {"source_line", f.source_line},
             {"rule", f.rule_id.empty() ? json(nullptr) : json(f.rule_id)},
             {"occurrences", f.occurrences},
             {"location", location_json(f.at)}};
    failures.push_back(one);
  }
  j["failures"] = failures;
  DiagnosticsReport diags;
  diags.recipe = log.files.empty() ? "log" : log.files.front();
  diags.diagnostics = report.diagnostics;
  json validate_form = json::parse(format_diagnostics_json(diags));
  j["diagnostics"] = validate_form["diagnostics"];
  j["summary"] = validate_form["summary"];
  return j.dump(2) + "\n";
}

std::string format_log_check(const std::string& format, const LogCheckReport& report,
                             const std::string& tool_version) {
  DiagnosticsReport diags;
  diags.recipe = report.log.files.empty() ? "log" : report.log.files.front();
  diags.framework = report.log.config ? framework_name(report.log.config->recipe.framework) : "";
  diags.diagnostics = report.diagnostics;
  std::vector<DiagnosticsReport> reports{diags};
  if (format == "sarif") return format_diagnostics_sarif(reports, tool_version);
  if (format == "junit") return format_diagnostics_junit(reports);
  if (format == "github") return format_diagnostics_github(reports);
  if (format == "gcc") return format_diagnostics_gcc(reports);
  if (format == "json") return format_log_report_json(report);
  return format_log_report_text(report);
}

}  // namespace hcp
