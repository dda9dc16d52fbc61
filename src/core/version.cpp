#include "hcp/version.h"

#include <cctype>

namespace hcp {
namespace {

bool read_number(std::string_view& s, int& out) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  long v = 0;
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) {
    v = v * 10 + (s.front() - '0');
    if (v > 1'000'000) return false;
    s.remove_prefix(1);
  }
  out = static_cast<int>(v);
  return true;
}

/// A suffix after the numbers is a pre-release, dev, post or local part (PEP 440 and git tags:
/// "rc1", "a0", ".dev0+abc", "+cu124", "-beta"); ".x.y" (as in "1.x.y") is not a version.
bool plausible_suffix(std::string_view s) {
  if (s.empty() || s.front() == '+' || s.front() == '-') return true;
  if (s.front() == '.' || s.front() == '_') s.remove_prefix(1);
  for (std::string_view tag :
       {"dev", "post", "rc", "alpha", "beta", "pre", "preview", "a", "b", "c"}) {
    if (s.substr(0, tag.size()) != tag) continue;
    std::string_view rest = s.substr(tag.size());
    // "a0", "rc1", "dev", "beta+x", "post.1": the tag ends at a digit, separator or the end.
    if (rest.empty() || std::isdigit(static_cast<unsigned char>(rest.front())) ||
        rest.front() == '+' || rest.front() == '.' || rest.front() == '-') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<Version> Version::parse(std::string_view text) {
  std::string_view s = text;
  if (s.substr(0, 6) == "core_v") s.remove_prefix(6);
  if (!s.empty() && (s.front() == 'v' || s.front() == 'V')) s.remove_prefix(1);
  Version v;
  if (!read_number(s, v.major)) return std::nullopt;
  int* rest[] = {&v.minor, &v.patch};
  for (int* field : rest) {
    if (s.size() < 2 || s.front() != '.' || !std::isdigit(static_cast<unsigned char>(s[1]))) break;
    s.remove_prefix(1);
    if (!read_number(s, *field)) return std::nullopt;
  }
  if (!plausible_suffix(s)) return std::nullopt;
  v.suffix = std::string(s);
  return v;
}

std::string Version::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) + suffix;
}

}  // namespace hcp
