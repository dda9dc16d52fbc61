// Dotted version numbers (TE 2.18.0, MCore 0.17.0) and their comparison.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace hcp {

/// A release version; pre-release and local suffixes ("2.20.0.dev0+abc") are kept as text and
/// ignored in comparisons, so "2.20.0.dev0" compares equal to "2.20.0".
struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string suffix;

  /// Parse "X", "X.Y", "X.Y.Z", with optional "v" / "core_v" prefix and any suffix.
  /// Return nullopt when the text does not start with a number.
  static std::optional<Version> parse(std::string_view text);

  std::string str() const;

  friend std::strong_ordering operator<=>(const Version& a, const Version& b) {
    if (auto c = a.major <=> b.major; c != 0) return c;
    if (auto c = a.minor <=> b.minor; c != 0) return c;
    return a.patch <=> b.patch;
  }
  friend bool operator==(const Version& a, const Version& b) {
    return (a <=> b) == std::strong_ordering::equal;
  }
};

}  // namespace hcp
