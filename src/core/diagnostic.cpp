#include "hcp/diagnostic.h"

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

std::string Error::str() const {
  if (!location.known()) return message;
  return location.str() + ": " + message;
}

}  // namespace hcp
