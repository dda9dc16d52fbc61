// GCC-style form of validate's diagnostics: exactly one line per finding, for editors and grep.
#include <sstream>

#include "hcp/report.h"
#include "hcp/text_util.h"

namespace hcp {
std::string format_diagnostics_gcc(const std::vector<DiagnosticsReport>& reports) {
  std::ostringstream out;
  for (const DiagnosticsReport& report : reports) {
    for (const Diagnostic& d : fold_repeats(report.diagnostics)) {
      // A finding about the command line names its recipe, so several recipes stay apart.
      const bool unplaced = !d.location.known() || d.location.file == "<command line>";
      std::string where = unplaced ? report.recipe : d.location.str();
      out << one_line(where) << ": " << severity_name(d.severity()) << ": " << one_line(d.message);
      if (!d.id().empty()) out << " [" << d.id() << "]";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace hcp
