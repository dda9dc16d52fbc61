#include "hcp/diagnostic.h"

#include "hcp/text_util.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

namespace hcp {

std::string Location::str() const {
  if (file.empty()) return "<unknown>";
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

std::string diagnostic_headline(const Diagnostic& d) {
  std::string id = d.id().empty() ? "" : "[" + d.id() + "] ";
  return std::string(severity_name(d.severity())) + ": " + id + one_line(d.message);
}

std::string diagnostic_fix_line(const Diagnostic& d) {
  return d.fix().empty() ? "" : "fix: " + one_line(d.fix());
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

Diagnostic Diagnostic::note(Severity severity, std::string message, std::string key,
                            Location location, std::string fix) {
  Diagnostic d;
  d.severity_ = severity;
  d.message = std::move(message);
  d.key = std::move(key);
  d.location = std::move(location);
  d.fix_ = std::move(fix);
  return d;
}

namespace {

std::string fold_kind(const Diagnostic& d) {
  std::string kind = d.id();
  kind += '\0';
  kind += severity_name(d.severity());
  if (d.id().empty()) kind += '\0' + d.location.file;
  return kind;
}

Diagnostic fold_note(const Diagnostic& last, size_t more) {
  const std::string what = last.id().empty()
                               ? std::string(severity_name(last.severity())) + "s"
                               : "[" + last.id() + "] " + severity_name(last.severity()) + "s";
  return Diagnostic::note(Severity::kInfo,
                          "... and " + std::to_string(more) + " more " + what +
                              " like the above (folded; the summary counts them all)",
                          "", Location{last.location.file, 0, 0});
}

}  // namespace

std::vector<FoldedEntry> fold_plan(const std::vector<Diagnostic>& diagnostics, size_t keep) {
  keep = std::max<size_t>(keep, 1);
  std::vector<std::string> kinds;
  kinds.reserve(diagnostics.size());
  std::unordered_map<std::string, size_t> total;
  for (const Diagnostic& d : diagnostics)
    ++total[kinds.emplace_back(fold_kind(d))];
  std::unordered_map<std::string, size_t> seen;
  std::vector<FoldedEntry> out;
  out.reserve(std::min(diagnostics.size(), total.size() * (keep + 1)));
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const size_t n = ++seen[kinds[i]];
    if (n > keep) continue;
    out.push_back({i, std::nullopt});
    const size_t all = total[kinds[i]];
    if (n == keep && all > keep) out.push_back({i, fold_note(diagnostics[i], all - keep)});
  }
  return out;
}

std::vector<Diagnostic> fold_repeats(const std::vector<Diagnostic>& diagnostics, size_t keep) {
  std::vector<Diagnostic> out;
  for (FoldedEntry& e : fold_plan(diagnostics, keep)) {
    if (e.note) {
      out.push_back(std::move(*e.note));
    } else {
      out.push_back(diagnostics[e.index]);
    }
  }
  return out;
}

Error file_error(const std::string& path, const std::string& message) {
  Error e;
  e.message = message;
  e.location.file = path;
  return e;
}

std::string Error::str() const {
  if (!location.known()) return message;
  return location.str() + ": " + message;
}

}  // namespace hcp
