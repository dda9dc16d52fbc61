#include "html_output.h"

#include <cstdlib>
#include <ctime>
#include <string_view>

#ifndef HCP_VERSION
#define HCP_VERSION "0.0.0"
#endif
// HCP_BUILD_COMMIT, generated at every build (target hcp_build_commit); a tree configured but
// not built (clang-tidy's) has only the configure-time HCP_GIT_COMMIT.
#if __has_include("build_commit.h")
#include "build_commit.h"
#elif defined(HCP_GIT_COMMIT)
#define HCP_BUILD_COMMIT HCP_GIT_COMMIT
#else
#define HCP_BUILD_COMMIT "unknown"
#endif

#include "hcp/checked.h"
#include "output.h"

namespace hcp::cli {
namespace {

std::string& remembered_command_line() {
  static std::string text = "hcp-plan";
  return text;
}

bool is_safe_shell_char(char c) {
  constexpr std::string_view kSafe = "_-+=./,:@%";
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         kSafe.find(c) != std::string_view::npos;
}

}  // namespace

const char* build_commit() {
  return HCP_BUILD_COMMIT;
}

std::string shell_quote(const std::string& word) {
  bool safe = !word.empty();
  for (char c : word)
    safe = safe && is_safe_shell_char(c);
  if (safe) return word;
  std::string quoted = "'";
  for (char c : word)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void remember_command_line(int argc, char** argv) {
  std::string text = "hcp-plan";
  for (int i = 1; i < argc; ++i)
    text += " " + shell_quote(argv[i]);
  remembered_command_line() = text;
}

const std::string& command_line() {
  return remembered_command_line();
}

std::string utc_date(long long seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return "an unknown date";
  char buffer[32];
  size_t n = std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M UTC", &tm);
  return n == 0 ? std::string("an unknown date") : std::string(buffer, n);
}

Result<std::optional<long long>> source_date_epoch(const char* value) {
  if (value == nullptr || *value == '\0') return std::optional<long long>{};
  std::string_view text(value);
  auto bad = [&] {
    return Error{"SOURCE_DATE_EPOCH: expected whole seconds since 1970 from 0 to " +
                     std::to_string(kLastDatableSecond) + ", got '" + std::string(text) + "'",
                 Location{"<environment>", 0, 0}, "SOURCE_DATE_EPOCH"};
  };
  // The shared decimal reader: no '+', spaces, hex or fraction; the range refuses a sign.
  constexpr CountRange kSeconds{"seconds since 1970", 0, kLastDatableSecond};
  Result<int64_t> seconds = parse_checked_count(text, kSeconds);
  if (!seconds) return bad();
  return std::optional<long long>{*seconds};
}

std::optional<HtmlProvenance> html_provenance_or_report() {
  auto epoch = source_date_epoch(std::getenv("SOURCE_DATE_EPOCH"));
  if (!epoch) {
    print_error(epoch.error().message);
    return std::nullopt;
  }
  long long now = epoch->value_or(static_cast<long long>(std::time(nullptr)));
  return HtmlProvenance{HCP_VERSION, build_commit(), command_line(), utc_date(now)};
}

}  // namespace hcp::cli
