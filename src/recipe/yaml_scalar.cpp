// Plain YAML scalar typing: null, YAML 1.1 booleans, integers (decimal with '_', 0x, 0o-style
// leading zero, 0b) and floats, as OmegaConf.load() resolves them.
#include "yaml_scalar.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace hcp::yaml_detail {
namespace {

bool is_one_of(std::string_view text, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (text == w) return true;
  }
  return false;
}

bool is_null_word(std::string_view t) {
  return is_one_of(t, {"", "~", "null", "Null", "NULL"});
}

/// YAML 1.1 booleans, which PyYAML's SafeLoader (and so OmegaConf) still resolves.
int bool_word(std::string_view t) {
  if (is_one_of(t, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})) return 1;
  if (is_one_of(t, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})) return 0;
  return -1;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

enum class IntParse { kNotInt, kOk, kOverflow };

/// Parse a YAML 1.1 int: [-+]? then 0b..., 0x..., 0[0-7_]+ (octal), or 0|[1-9][0-9_]*.
IntParse parse_yaml_int(std::string_view t, int64_t& out) {
  bool negative = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) return IntParse::kNotInt;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'b')) {
    base = t[1] == 'x' ? 16 : 2;
    t.remove_prefix(2);
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    t.remove_prefix(1);
  } else if (t[0] == '_') {
    return IntParse::kNotInt;
  }
  // Magnitude accumulates as unsigned so INT64_MIN parses.
  uint64_t magnitude = 0;
  bool any_digit = false;
  bool overflow = false;
  for (char c : t) {
    if (c == '_') continue;
    int d = digit_value(c);
    if (d >= base) return IntParse::kNotInt;
    any_digit = true;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) /
                        static_cast<uint64_t>(base)) {
      overflow = true;
      continue;
    }
    magnitude = magnitude * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (!any_digit) return IntParse::kNotInt;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (overflow || magnitude > kMaxPositive + (negative ? 1 : 0)) return IntParse::kOverflow;
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return IntParse::kOk;
}

/// Consume [0-9_]* from t at i; return how many digits (not underscores) were read.
size_t digits_at(std::string_view t, size_t& i) {
  size_t count = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '_')) {
    if (t[i] != '_') ++count;
    ++i;
  }
  return count;
}

}  // namespace

bool parse_yaml_float(std::string_view t, double& out) {
  std::string_view body = t;
  bool has_sign = !body.empty() && (body[0] == '-' || body[0] == '+');
  double sign = (has_sign && body[0] == '-') ? -1.0 : 1.0;
  if (has_sign) body.remove_prefix(1);
  if (is_one_of(body, {".inf", ".Inf", ".INF"})) {
    out = sign * std::numeric_limits<double>::infinity();
    return true;
  }
  if (!has_sign && is_one_of(body, {".nan", ".NaN", ".NAN"})) {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (body.empty()) return false;
  size_t i = 0;
  bool leading_digit = std::isdigit(static_cast<unsigned char>(body[0])) != 0;
  size_t int_digits = leading_digit ? digits_at(body, i) : 0;
  bool has_dot = i < body.size() && body[i] == '.';
  size_t frac_digits = 0;
  if (has_dot) {
    ++i;
    frac_digits = digits_at(body, i);
  }
  bool has_exp = i < body.size() && (body[i] == 'e' || body[i] == 'E');
  bool exp_signed = false;
  if (has_exp) {
    ++i;
    exp_signed = i < body.size() && (body[i] == '-' || body[i] == '+');
    if (exp_signed) ++i;
    size_t start = i;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i])))
      ++i;
    if (i == start) return false;
  }
  if (i != body.size()) return false;
  bool valid = leading_digit
                   ? (int_digits > 0 && (has_dot || has_exp))
                   : (!has_sign && has_dot && frac_digits > 0 && (!has_exp || exp_signed));
  if (!valid) return false;
  std::string clean;
  for (char c : t) {
    if (c != '_') clean += c;
  }
  out = std::strtod(clean.c_str(), nullptr);
  return true;
}

Result<Value> type_plain_scalar(std::string_view text, const Location& at) {
  if (is_null_word(text)) return Value::null(at);
  if (int b = bool_word(text); b >= 0) return Value::boolean(b == 1, at);
  int64_t i = 0;
  switch (parse_yaml_int(text, i)) {
    case IntParse::kOk:
      return Value::integer(i, at);
    case IntParse::kOverflow:
      return Error{"integer " + std::string(text) + " does not fit in 64 bits", at, ""};
    case IntParse::kNotInt:
      break;
  }
  double d = 0;
  if (parse_yaml_float(text, d)) return Value::real(d, at);
  return Value::string(std::string(text), at);
}

}  // namespace hcp::yaml_detail
