// Small string helpers for the log parser: fast substring search and number parsing on views.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace hcp::logscan {

/// Return the position of `needle` in `hay` or npos (memmem: much faster than a char loop).
inline size_t find(std::string_view hay, std::string_view needle, size_t from = 0) {
  if (from > hay.size() || needle.size() > hay.size() - from) return std::string_view::npos;
  const void* p = memmem(hay.data() + from, hay.size() - from, needle.data(), needle.size());
  return p == nullptr ? std::string_view::npos
                      : static_cast<size_t>(static_cast<const char*>(p) - hay.data());
}

inline bool contains(std::string_view hay, std::string_view needle) {
  return find(hay, needle) != std::string_view::npos;
}

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/// Parse a non-negative integer at `pos` (after optional spaces); advance `pos` past it.
inline std::optional<int64_t> parse_int_at(std::string_view s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ')
    ++pos;
  size_t start = pos;
  int64_t v = 0;
  while (pos < s.size() && is_digit(s[pos]) && pos - start < 18) {
    v = v * 10 + (s[pos] - '0');
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return v;
}

/// Parse a decimal number ("123", "12.5", "1.2E+03") at `pos` after optional spaces.
inline std::optional<double> parse_double_at(std::string_view s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ')
    ++pos;
  size_t start = pos;
  while (pos < s.size() && (is_digit(s[pos]) || s[pos] == '.' || s[pos] == '-' || s[pos] == '+' ||
                            s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
  }
  if (pos == start) return std::nullopt;
  std::string text(s.substr(start, pos - start));
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return v;
}

/// Return the number that follows `label` in `s`, or nullopt.
inline std::optional<double> number_after(std::string_view s, std::string_view label) {
  size_t at = find(s, label);
  if (at == std::string_view::npos) return std::nullopt;
  size_t pos = at + label.size();
  return parse_double_at(s, pos);
}

}  // namespace hcp::logscan
