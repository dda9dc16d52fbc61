#include "output.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "hcp/text_util.h"

namespace hcp::cli {

void add_output_options(CLI::App& sub, OutputOptions& out,
                        const std::vector<std::string>& formats) {
  out.format = formats.front();
  sub.add_option("--format", out.format, "Output format")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  sub.add_option("-o,--output", out.path, "Write the report to FILE instead of stdout");
  if (std::find(formats.begin(), formats.end(), "text") == formats.end()) return;
  out.width = kTextWidth;
  sub.add_flag_callback(
      "--wide", [&out]() { out.width = 0; }, "Text: do not wrap lines to 100 columns");
}

bool emit(const OutputOptions& out, const std::string& raw) {
  const std::string text = out.format == "text" && out.width > 0 ? wrap_text(raw, out.width) : raw;
  if (out.path.empty() || out.path == "-") {
    std::cout << text;
    std::cout.flush();
    return true;
  }
  std::ofstream file(out.path, std::ios::binary | std::ios::trunc);
  if (!file) {
    print_error("cannot write " + out.path);
    return false;
  }
  file << text;
  if (!file.good()) {
    print_error("cannot write " + out.path);
    return false;
  }
  return true;
}

void print_error(const std::string& message) {
  std::cerr << "hcp-plan: error: " << message << "\n";
}

void print_warning(const std::string& message) {
  std::cerr << "hcp-plan: warning: " << message << "\n";
}

bool stdout_is_tty() {
  return isatty(STDOUT_FILENO) == 1;
}

}  // namespace hcp::cli
