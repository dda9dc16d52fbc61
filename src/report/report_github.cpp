// GitHub Actions workflow-command form of validate's diagnostics: annotations on the recipe lines.
#include <sstream>

#include "hcp/report.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

/// Escape the message (data) of a workflow command: % CR LF.
std::string escape_data(const std::string& text) {
  return escape_chars(text, {{'%', "%25"}, {'\r', "%0D"}, {'\n', "%0A"}});
}

/// Escape a property value of a workflow command: the data escapes plus ':' and ','.
std::string escape_property(const std::string& text) {
  return escape_chars(escape_data(text), {{':', "%3A"}, {',', "%2C"}});
}

/// Annotation levels: error, warning, notice.
const char* command_name(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      break;
  }
  return "notice";
}

std::string annotation(const Diagnostic& d, const std::string& recipe) {
  bool in_file = d.location.known() && d.location.file.front() != '<';
  std::string file = in_file ? d.location.file : recipe;
  std::string line =
      std::string("::") + command_name(d.severity()) + " file=" + escape_property(file);
  if (in_file && d.location.line > 0) {
    line += ",line=" + std::to_string(d.location.line);
    if (d.location.column > 0) line += ",col=" + std::to_string(d.location.column);
  }
  line += ",title=" + escape_property(d.id().empty() ? "hcp-plan" : d.id());
  std::string message = d.message;
  if (!d.fix().empty()) message += "\nfix: " + d.fix();
  return line + "::" + escape_data(message) + "\n";
}

}  // namespace

std::string format_diagnostics_github(const std::vector<DiagnosticsReport>& reports) {
  std::ostringstream out;
  for (const DiagnosticsReport& report : reports) {
    for (const Diagnostic& d : fold_repeats(report.diagnostics))
      out << annotation(d, report.recipe);
  }
  return out.str();
}

}  // namespace hcp
