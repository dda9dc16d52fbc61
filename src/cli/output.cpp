#include "output.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/file_output.h"
#include "hcp/text_util.h"

namespace hcp::cli {

CLI::Validator one_of(const std::vector<std::string>& values) {
  std::string names = or_list(values);              // "a, b or c"
  std::string set = "{" + join(values, ",") + "}";  // as CLI::IsMember shows it in the help
  return CLI::Validator(
      [values, names](std::string& value) -> std::string {
        if (std::find(values.begin(), values.end(), value) != values.end()) return "";
        std::string message = "expects " + names + ", got '" + value + "'";
        return message + did_you_mean(value, closest_match(value, values));
      },
      set);
}

namespace {

/// The validator's verdict: "" when `parsed` holds, else its message.
template <typename T>
std::string verdict(const Result<T>& parsed) {
  return parsed.ok() ? "" : parsed.error().message;
}

}  // namespace

CLI::Validator physical_count(const CountRange& range) {
  return CLI::Validator(
      [range](std::string& value) -> std::string {
        Result<int64_t> parsed = parse_checked_count(value, range);
        // CLI11 converts with strtoll base 0, which reads "010" as octal 8: the value it converts
        // is the decimal it was checked as ("10"), so every integer option reads it alike.
        if (parsed) value = std::to_string(*parsed);
        return verdict(parsed);
      },
      "INT in [" + std::to_string(range.min) + ", " + std::to_string(range.max) + "]");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        uint64_t seed = 0;
        const char* last = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), last, seed);
        if (value.empty() || ec != std::errc() || ptr != last) {
          return "expected a seed, a decimal integer from 0 to 2^64-1, got '" +
                 value.substr(0, 40) + "'";
        }
        value = std::to_string(seed);  // As physical_count: decimal, never octal or hex.
        return "";
      },
      "");  // The help shows the option's own UINT.
}

CLI::Validator physical_number(const PhysicalRange& range) {
  std::string shown = "FLOAT in [" + format_number_for_error(range.min) + ", " +
                      format_number_for_error(range.max) + "]" +
                      (range.zero_allowed ? " or 0" : "");
  return CLI::Validator(
      [range](std::string& value) -> std::string { return verdict(parse_physical(value, range)); },
      shown);
}

void add_output_options(CLI::App& sub, OutputOptions& out,
                        const std::vector<std::string>& formats) {
  out.format = formats.front();
  sub.add_option("--format", out.format, "Output format")
      ->check(one_of(formats))
      ->capture_default_str();
  sub.add_option("-o,--output", out.path, "Write the report to FILE instead of stdout");
  if (std::find(formats.begin(), formats.end(), "text") == formats.end()) return;
  out.width = terminal_width();
  out.color = "auto";
  sub.add_flag_callback(
      "--wide", [&out]() { out.width = 0; },
      "Text: do not fit lines to the terminal width (COLUMNS, else the terminal's, else 100)");
  sub.add_option("--color", out.color,
                 "Text: colour severities and the recommended and own rows: auto (on a "
                 "terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

size_t terminal_width() {
  constexpr size_t kNarrowest = 40;
  if (const char* env = std::getenv("COLUMNS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end == '\0' && value > 0) return std::max<size_t>(static_cast<size_t>(value), kNarrowest);
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col > 0) {
    return std::max<size_t>(size.ws_col, kNarrowest);
  }
  return kTextWidth;
}

bool color_enabled(const OutputOptions& out) {
  if (out.format != "text" || out.color == "never") return false;
  if (out.color == "always") return true;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color != nullptr && *no_color != '\0') return false;
  if (term != nullptr && std::string(term) == "dumb") return false;
  return (out.path.empty() || out.path == "-") && stdout_is_tty();
}

namespace {

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return wrap_text(CLI::Formatter::make_help(app, std::move(name), mode), terminal_width());
  }
};

}  // namespace

std::shared_ptr<CLI::FormatterBase> wrapping_help_formatter() {
  return std::make_shared<WrappingFormatter>();
}

struct ElapsedProgress::State {
  std::mutex mutex;
  std::condition_variable done_signal;
  bool done = false;
  bool shown = false;
  std::thread ticker;
};

ElapsedProgress::ElapsedProgress(std::string label) {
  if (isatty(STDERR_FILENO) != 1) return;
  state_ = std::make_unique<State>();
  State* state = state_.get();
  state->ticker = std::thread([state, label = std::move(label)]() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(state->mutex);
    if (state->done_signal.wait_for(lock, std::chrono::seconds(1), [state] { return state->done; }))
      return;
    do {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      std::cerr << "\rhcp-plan: " << label << "... " << format_fixed(elapsed.count(), 1) << " s"
                << std::flush;
      state->shown = true;
    } while (!state->done_signal.wait_for(lock, std::chrono::milliseconds(250),
                                          [state] { return state->done; }));
  });
}

ElapsedProgress::~ElapsedProgress() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->done = true;
  }
  state_->done_signal.notify_all();
  state_->ticker.join();
  if (state_->shown) std::cerr << "\r\x1b[K" << std::flush;
}

bool emit(const OutputOptions& out, const std::string& text) {
  const bool plain = out.format == "text" || out.format == "gcc" || out.format == "github";
  // Text from inputs (YAML keys, log lines) may hold escape sequences: never raw to a terminal.
  // With colour on, colour codes (ESC [ n;n m, which only change colours) pass; nothing else does.
  std::string shown = plain ? neutralize_controls(text, color_enabled(out)) : text;
  if (out.format == "text" && out.width > 0) shown = wrap_text(shown, out.width);
  const bool to_stdout = out.path.empty() || out.path == "-";
  // A report written over the recipe (or any input) it was made from would destroy that input.
  if (auto input = to_stdout ? std::nullopt : input_read_as(out.path)) {
    print_error(out.path + ": is an input of this command" +
                (*input == out.path ? std::string() : " (read as " + *input + ")") +
                "; not overwritten with the report: name another output file");
    return false;
  }
  Status written = to_stdout ? write_standard_output(shown) : write_output_file(out.path, shown);
  if (!written) print_error(written.error().str());
  return written.ok();
}

namespace {

/// "hcp-plan: KIND: MESSAGE" on stderr, one line whatever the message quotes.
void print_line(const char* kind, const std::string& message) {
  std::cerr << "hcp-plan: " << kind << ": " << neutralize_controls(one_line(message)) << "\n";
}

}  // namespace

void print_error(const std::string& message) {
  print_line("error", message);
}

void print_warning(const std::string& message) {
  print_line("warning", message);
}

void print_note(const std::string& message) {
  print_line("note", message);
}

bool stdout_is_tty() {
  return isatty(STDOUT_FILENO) == 1;
}

}  // namespace hcp::cli
