#include "hcp/diagnostic.h"

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

std::string Error::str() const {
  if (!location.known()) return message;
  return location.str() + ": " + message;
}

}  // namespace hcp
