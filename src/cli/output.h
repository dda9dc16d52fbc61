// Output options shared by every subcommand: --format and -o FILE.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace hcp::cli {

struct OutputOptions {
  std::string format = "text";
  std::string path;  ///< -o FILE; empty means stdout.
  /// Text output is wrapped to this many columns (0: not at all; --wide sets 0). Only
  /// add_output_options turns it on, so other files written with emit() stay as they are.
  size_t width = 0;
};

/// A CLI11 check that the value is one of `values`: "expects a, b or c, got 'jsn' (did you mean
/// 'json'?)" otherwise. Every enumerated option (--format, --fail-on, ...) uses it.
CLI::Validator one_of(const std::vector<std::string>& values);

/// Add --format (restricted to `formats`, first is the default), -o/--output and, when "text" is
/// one of the formats, --wide (text is wrapped to 100 columns unless it is given) to `sub`.
void add_output_options(CLI::App& sub, OutputOptions& out,
                        const std::vector<std::string>& formats = {"text", "json"});

/// Write `text` to the output file or stdout (wrapped to out.width when the format is text). Return
/// false (and print a one-line error on stderr) when the file cannot be written.
bool emit(const OutputOptions& out, const std::string& text);

/// Print a one-line error "hcp-plan: error: ..." on stderr.
void print_error(const std::string& message);

/// Print "hcp-plan: warning: MESSAGE" on standard error.
void print_warning(const std::string& message);

/// Return true when stdout is a terminal (for colour and live progress).
bool stdout_is_tty();

}  // namespace hcp::cli
