#include "output.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "hcp/edit_distance.h"
#include "hcp/file_output.h"
#include "hcp/text_util.h"

namespace hcp::cli {

CLI::Validator one_of(const std::vector<std::string>& values) {
  std::string names;  // "a, b or c"
  std::string set;    // "{a,b,c}", as CLI::IsMember shows it in the help
  for (size_t i = 0; i < values.size(); ++i) {
    names += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
    set += (i == 0 ? "" : ",") + values[i];
  }
  return CLI::Validator(
      [values, names](std::string& value) -> std::string {
        if (std::find(values.begin(), values.end(), value) != values.end()) return "";
        std::string message = "expects " + names + ", got '" + value + "'";
        std::string near = closest_match(value, values);
        if (!near.empty()) message += " (did you mean '" + near + "'?)";
        return message;
      },
      "{" + set + "}");
}

void add_output_options(CLI::App& sub, OutputOptions& out,
                        const std::vector<std::string>& formats) {
  out.format = formats.front();
  sub.add_option("--format", out.format, "Output format")
      ->check(one_of(formats))
      ->capture_default_str();
  sub.add_option("-o,--output", out.path, "Write the report to FILE instead of stdout");
  if (std::find(formats.begin(), formats.end(), "text") == formats.end()) return;
  out.width = kTextWidth;
  sub.add_flag_callback(
      "--wide", [&out]() { out.width = 0; }, "Text: do not wrap lines to 100 columns");
}

bool emit(const OutputOptions& out, const std::string& text) {
  const bool plain = out.format == "text" || out.format == "gcc" || out.format == "github";
  // Text from inputs (YAML keys, log lines) may hold escape sequences: never raw to a terminal.
  std::string shown = plain ? neutralize_controls(text) : text;
  if (out.format == "text" && out.width > 0) shown = wrap_text(shown, out.width);
  const bool to_stdout = out.path.empty() || out.path == "-";
  Status written = to_stdout ? write_standard_output(shown) : write_output_file(out.path, shown);
  if (!written) print_error(written.error().str());
  return written.ok();
}

void print_error(const std::string& message) {
  std::cerr << "hcp-plan: error: " << neutralize_controls(message) << "\n";
}

void print_warning(const std::string& message) {
  std::cerr << "hcp-plan: warning: " << neutralize_controls(message) << "\n";
}

bool stdout_is_tty() {
  return isatty(STDOUT_FILENO) == 1;
}

}  // namespace hcp::cli
