// The HTML report's provenance (version, commit, command line, date) and its writing, for the
// subcommands that offer --format html or --html FILE (plan, compare).
#pragma once

#include <optional>
#include <string>

#include "hcp/diagnostic.h"
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

/// The latest second a page may be dated: 9999-12-31 23:59:59 UTC (four-digit years).
inline constexpr long long kLastDatableSecond = 253402300799;

/// The page date SOURCE_DATE_EPOCH asks for (reproducible builds' convention): nullopt when
/// `value` is unset or empty; a whole number of seconds from 0 to kLastDatableSecond; anything
/// else (a sign, a fraction, "1e9", a year past 9999) is an error, as the convention asks, not
/// a silent fall back to today.
Result<std::optional<long long>> source_date_epoch(const char* value);

/// Return the provenance of a page written now: this binary's version and commit, the command
/// line, and the date (SOURCE_DATE_EPOCH when set, for reproducible pages); an unreadable
/// SOURCE_DATE_EPOCH is printed as one error line and gives nullopt.
std::optional<HtmlProvenance> html_provenance_or_report();

}  // namespace hcp::cli
