// Output options shared by every subcommand: --format and -o FILE.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "hcp/checked.h"

namespace hcp::cli {

struct OutputOptions {
  std::string format = "text";
  std::string path;  ///< -o FILE; empty means stdout.
  /// Text output is wrapped to this many columns (0: not at all; --wide sets 0). Only
  /// add_output_options turns it on, so other files written with emit() stay as they are.
  size_t width = 0;
  std::string color = "never";  ///< --color auto|always|never (add_output_options: auto).
};

/// A CLI11 check that the value is one of `values`: "expects a, b or c, got 'jsn' (did you mean
/// 'json'?)" otherwise. Every enumerated option (--format, --fail-on, ...) uses it.
CLI::Validator one_of(const std::vector<std::string>& values);

/// A CLI11 check that the value is an integer of `range` (parse_checked_count, checked.h: the whole
/// text a decimal integer inside int64 and inside the range): "--gpus-per-node:
/// '9223372036854775808' overflows a 64-bit integer", where CLI11 took the largest int64. The
/// value is then rewritten as the decimal it was read as, so that CLI11's own conversion (strtoll
/// base 0) cannot read "010" as octal 8: "010" is 10, as Python's int(), argparse's type=int and
/// torchrun read it.
CLI::Validator physical_count(const CountRange& range);

/// As physical_count for a seed: any decimal integer from 0 to 2^64-1 ("010" is 10; "0x10" and
/// "-1" are errors).
CLI::Validator seed_value();

/// A CLI11 check that the value is a physical figure of `range` (parse_physical, checked.h: the
/// whole text a decimal number, finite, not denormal, inside the range), as a file's number must
/// be: "--memory-limit: 'nan' is not a finite number". Every floating-point option uses it, so a
/// NaN, which passes CLI::Range, never reaches a comparison.
CLI::Validator physical_number(const PhysicalRange& range);

/// Add --format (restricted to `formats`, first is the default), -o/--output and, when "text" is
/// one of the formats, --wide (text is wrapped to terminal_width() unless it is given) and
/// --color to `sub`.
void add_output_options(CLI::App& sub, OutputOptions& out,
                        const std::vector<std::string>& formats = {"text", "json"});

/// The width text output fits: COLUMNS when it is a number, else the terminal's (TIOCGWINSZ on
/// stdout), else kTextWidth (100, also when stdout is no terminal); at least 40.
size_t terminal_width();

/// True when `out` is to be coloured: --color always; auto on a terminal stdout (no -o FILE)
/// unless NO_COLOR is set and not empty or TERM is "dumb"; never for formats other than text.
bool color_enabled(const OutputOptions& out);

/// A CLI11 help formatter whose lines fit terminal_width() (continuations under the
/// description column).
std::shared_ptr<CLI::FormatterBase> wrapping_help_formatter();

/// While alive, and only when standard error is a terminal: after a second, a line on stderr
/// "hcp-plan: LABEL... N s" updated every quarter second; erased when the work ends.
class ElapsedProgress {
 public:
  explicit ElapsedProgress(std::string label);
  ~ElapsedProgress();
  ElapsedProgress(const ElapsedProgress&) = delete;
  ElapsedProgress& operator=(const ElapsedProgress&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Write `text` to the output file or stdout (wrapped to out.width when the format is text). Return
/// false (and print a one-line error on stderr) when the file cannot be written.
bool emit(const OutputOptions& out, const std::string& text);

/// Print a one-line error "hcp-plan: error: ..." on stderr.
void print_error(const std::string& message);

/// Print "hcp-plan: warning: MESSAGE" on standard error.
void print_warning(const std::string& message);

/// Print "hcp-plan: note: MESSAGE" to stderr, on one line as print_error does.
void print_note(const std::string& message);

/// Return true when stdout is a terminal (for colour and live progress).
bool stdout_is_tty();

}  // namespace hcp::cli
