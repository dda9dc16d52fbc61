// The HTML report's provenance (version, commit, command line, date) and its writing, for the
// subcommands that offer --format html or --html FILE (plan, compare).
#pragma once

#include <string>

#include "hcp/html_report.h"

namespace hcp::cli {

/// Return the commit this binary was built from ("unknown" when not built from git).
const char* build_commit();

/// Remember the command line main() was called with (argv[0] is shown as "hcp-plan").
void remember_command_line(int argc, char** argv);

/// Return the remembered command line, each word shell-quoted when it needs quotes.
const std::string& command_line();

/// Return `word` as a POSIX shell reads it back: unchanged when it is made of safe characters,
/// else in single quotes ('it'\''s').
std::string shell_quote(const std::string& word);

/// Return "YYYY-MM-DD HH:MM UTC" of `seconds` since the epoch.
std::string utc_date(long long seconds);

/// Return the provenance of a page written now: this binary's version and commit, the command
/// line, and the date (SOURCE_DATE_EPOCH when set to a number, for reproducible pages).
HtmlProvenance html_provenance();

}  // namespace hcp::cli
