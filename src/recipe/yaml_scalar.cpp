// YAML scalar typing as OmegaConf.load() (PyYAML's SafeLoader, YAML 1.1) does it: plain scalars
// resolve to null, booleans, integers (decimal with '_', 0x, 0o-style leading zero, 0b, base 60)
// or floats; a scalar with an explicit tag (!!int, !!float, !!bool, ...) is built as that type.
#include "yaml_scalar.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace hcp::yaml_detail {
namespace {

/// `text` without '_' (with `lower`, lower-cased), as PyYAML's constructors first make it.
std::string without_underscores(std::string_view text, bool lower) {
  std::string clean;
  for (char c : text) {
    if (c == '_') continue;
    clean += lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c;
  }
  return clean;
}

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

/// Consume [0-9_]* from t at i; return how many digits (not underscores) were read.
size_t digits_at(std::string_view t, size_t& i) {
  size_t count = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '_')) {
    if (t[i] != '_') ++count;
    ++i;
  }
  return count;
}

/// Add the digits of `t` (no sign, no prefix; '_' skipped) to `magnitude` in `base`. Returns
/// false when a character is not a digit of the base, or when there are no digits.
bool accumulate_digits(std::string_view t, int base, uint64_t& magnitude, bool& overflow) {
  bool any_digit = false;
  for (char c : t) {
    if (c == '_') continue;
    int d = digit_value(c);
    if (d >= base) return false;
    any_digit = true;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) /
                        static_cast<uint64_t>(base)) {
      overflow = true;
      continue;
    }
    magnitude = magnitude * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return any_digit;
}

/// The signed value of `magnitude`, or kOverflow past int64_t.
IntParse signed_int(uint64_t magnitude, bool negative, bool overflow, int64_t& out) {
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (overflow || magnitude > kMaxPositive + (negative ? 1 : 0)) return IntParse::kOverflow;
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return IntParse::kOk;
}

/// Strip a leading '-' or '+' from `t`; true when it was '-'.
bool take_sign(std::string_view& t) {
  if (t.empty() || (t[0] != '-' && t[0] != '+')) return false;
  const bool negative = t[0] == '-';
  t.remove_prefix(1);
  return negative;
}

/// `t` split at each ':'.
std::vector<std::string_view> colon_parts(std::string_view t) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t colon = t.find(':', start);
    parts.push_back(t.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

/// True for YAML 1.1's base-60 digit after a ':' ([0-5]?[0-9]).
bool sexagesimal_digit(std::string_view part) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (part.size() == 1) return digit(part[0]);
  return part.size() == 2 && part[0] >= '0' && part[0] <= '5' && digit(part[1]);
}

/// True for [0-9][0-9_]* (with `nonzero_first`, [1-9][0-9_]*).
bool underscored_digits(std::string_view part, bool nonzero_first) {
  if (part.empty() || part[0] < (nonzero_first ? '1' : '0') || part[0] > '9') return false;
  for (char c : part) {
    if (c != '_' && (c < '0' || c > '9')) return false;
  }
  return true;
}

/// The value of base-60 `parts` (each a decimal integer; '_' skipped), most significant first.
IntParse sexagesimal_int(const std::vector<std::string_view>& parts, bool negative, int64_t& out) {
  uint64_t magnitude = 0;
  bool overflow = false;
  for (std::string_view part : parts) {
    uint64_t digit = 0;
    if (!accumulate_digits(part, 10, digit, overflow)) return IntParse::kNotInt;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 60) overflow = true;
    if (!overflow) magnitude = magnitude * 60 + digit;
  }
  return signed_int(magnitude, negative, overflow, out);
}

/// YAML 1.1's base-60 int as PyYAML resolves it: [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+ ("1:4" is 64;
/// "0:16" and "1:60" are strings).
IntParse parse_sexagesimal_int(std::string_view t, int64_t& out) {
  const bool negative = take_sign(t);
  std::vector<std::string_view> parts = colon_parts(t);
  if (parts.size() < 2 || !underscored_digits(parts[0], true)) return IntParse::kNotInt;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (!sexagesimal_digit(parts[i])) return IntParse::kNotInt;
  }
  return sexagesimal_int(parts, negative, out);
}

/// Python's float() of a decimal literal (digits, optional '.', optional exponent; no '_').
bool python_float(std::string_view t, double& out) {
  size_t i = 0;
  size_t mantissa_digits = digits_at(t, i);
  if (i < t.size() && t[i] == '.') {
    ++i;
    mantissa_digits += digits_at(t, i);
  }
  if (mantissa_digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    const size_t start = i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
      ++i;
    if (i == start) return false;
  }
  if (i != t.size() || t.find('_') != std::string_view::npos) return false;
  out = std::strtod(std::string(t).c_str(), nullptr);
  return true;
}

/// The value of base-60 float `parts` ("1:30.5" is 90.5), each a float without '_'.
bool sexagesimal_float(const std::vector<std::string_view>& parts, double& out) {
  double value = 0;
  for (std::string_view part : parts) {
    double digit = 0;
    if (!python_float(part, digit)) return false;
    value = value * 60 + digit;
  }
  out = value;
  return true;
}

/// YAML 1.1's base-60 float: [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* ("1:30.5" is 90.5).
bool parse_sexagesimal_float(std::string_view t, double& out) {
  const bool negative = take_sign(t);
  std::vector<std::string_view> parts = colon_parts(t);
  if (parts.size() < 2 || !underscored_digits(parts[0], false)) return false;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    if (!sexagesimal_digit(parts[i])) return false;
  }
  std::string_view last = parts.back();
  const size_t dot = last.find('.');
  if (dot == std::string_view::npos || !sexagesimal_digit(last.substr(0, dot))) return false;
  for (char c : last.substr(dot + 1)) {
    if (c != '_' && (c < '0' || c > '9')) return false;
  }
  if (!sexagesimal_float(colon_parts(without_underscores(t, false)), out)) return false;
  if (negative) out = -out;
  return true;
}

/// Parse a YAML 1.1 int as PyYAML resolves a plain scalar: [-+]? then 0b..., 0x..., 0[0-7_]+
/// (octal), 0|[1-9][0-9_]*, or base 60 ([1-9][0-9_]*(:[0-5]?[0-9])+).
IntParse parse_yaml_int(std::string_view t, int64_t& out) {
  if (t.find(':') != std::string_view::npos) return parse_sexagesimal_int(t, out);
  std::string_view body = t;
  const bool negative = take_sign(body);
  if (body.empty()) return IntParse::kNotInt;
  int base = 10;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'b')) {
    base = body[1] == 'x' ? 16 : 2;
    body.remove_prefix(2);
  } else if (body.size() > 1 && body[0] == '0') {
    base = 8;
    body.remove_prefix(1);
  } else if (body[0] == '_') {
    return IntParse::kNotInt;
  }
  // Magnitude accumulates as unsigned so INT64_MIN parses.
  uint64_t magnitude = 0;
  bool overflow = false;
  if (!accumulate_digits(body, base, magnitude, overflow)) return IntParse::kNotInt;
  return signed_int(magnitude, negative, overflow, out);
}

}  // namespace

bool parse_yaml_float(std::string_view t, double& out) {
  if (t.find(':') != std::string_view::npos) return parse_sexagesimal_float(t, out);
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
  out = std::strtod(without_underscores(t, false).c_str(), nullptr);
  return true;
}

namespace {

/// PyYAML's construct_yaml_int of an explicit !!int: '_' dropped, a sign, then 0, 0b..., 0x...,
/// 0... (octal, "0o" too: Python's int(text, 8)), base 60 (any decimal parts) or decimal.
IntParse construct_int(std::string_view text, int64_t& out) {
  const std::string clean = without_underscores(text, false);
  std::string_view body = clean;
  const bool negative = take_sign(body);
  if (body.empty()) return IntParse::kNotInt;
  if (body[0] != '0' && body.find(':') != std::string_view::npos) {
    return sexagesimal_int(colon_parts(body), negative, out);
  }
  int base = 10;
  if (body.size() > 1 && body[0] == '0') {
    base = body[1] == 'b' ? 2 : body[1] == 'x' ? 16 : 8;
    body.remove_prefix(base == 8 && body[1] != 'o' && body[1] != 'O' ? 1 : 2);
  }
  uint64_t magnitude = 0;
  bool overflow = false;
  if (!accumulate_digits(body, base, magnitude, overflow)) return IntParse::kNotInt;
  return signed_int(magnitude, negative, overflow, out);
}

/// PyYAML's construct_yaml_float of an explicit !!float: '_' dropped, lower-cased, a sign, then
/// .inf, .nan, base 60, or what Python's float() reads ("16", "1e5", "inf", "nan").
bool construct_float(std::string_view text, double& out) {
  const std::string clean = without_underscores(text, true);
  std::string_view body = clean;
  const double sign = take_sign(body) ? -1.0 : 1.0;
  if (body == ".inf" || body == "inf" || body == "infinity") {
    out = sign * std::numeric_limits<double>::infinity();
    return true;
  }
  if (body == ".nan" || body == "nan") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const bool read = body.find(':') != std::string_view::npos
                        ? sexagesimal_float(colon_parts(body), out)
                        : python_float(body, out);
  out *= sign;
  return read;
}

/// The value of an int parse of `text`: the integer, an error past 64 bits, or nothing when `text`
/// is no integer.
std::optional<Result<Value>> int_value(IntParse parsed, int64_t i, std::string_view text,
                                       const Location& at) {
  if (parsed == IntParse::kOk) return Result<Value>(Value::integer(i, at));
  if (parsed == IntParse::kOverflow) {
    return Result<Value>(
        Error{"integer " + std::string(text) + " does not fit in 64 bits", at, ""});
  }
  return std::nullopt;
}

Error tagged_error(std::string_view tag, std::string_view text, const std::string& what,
                   const Location& at) {
  return Error{"!!" + std::string(tag) + " '" + std::string(text) + "' is not " + what +
                   "; PyYAML refuses it",
               at, ""};
}

}  // namespace

Result<Value> type_tagged_scalar(std::string_view tag, std::string_view text, const Location& at) {
  if (tag == "str") return Value::string(std::string(text), at);
  if (tag == "null") return Value::null(at);  // PyYAML's construct_yaml_null ignores the text
  if (tag == "bool") {
    std::string lower(text);
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (int b = bool_word(lower); b >= 0) return Value::boolean(b == 1, at);
    return tagged_error(tag, text, "a boolean (true, false, yes, no, on or off, in any case)", at);
  }
  if (tag == "int") {
    int64_t i = 0;
    IntParse parsed = construct_int(text, i);
    if (std::optional<Result<Value>> v = int_value(parsed, i, text, at)) return *v;
    return tagged_error(tag, text, "an integer", at);
  }
  if (tag == "float") {
    double d = 0;
    if (construct_float(text, d)) return Value::real(d, at);
    return tagged_error(tag, text, "a number", at);
  }
  return Error{"a !!" + std::string(tag) + " tag on a scalar ('" + std::string(text) +
                   "'); PyYAML builds a " + std::string(tag) + " only from a " +
                   (tag == "seq" ? "sequence" : "mapping"),
               at, ""};
}

Result<Value> type_plain_scalar(std::string_view text, const Location& at) {
  if (is_null_word(text)) return Value::null(at);
  if (int b = bool_word(text); b >= 0) return Value::boolean(b == 1, at);
  int64_t i = 0;
  IntParse parsed = parse_yaml_int(text, i);
  if (std::optional<Result<Value>> v = int_value(parsed, i, text, at)) return *v;
  double d = 0;
  if (parse_yaml_float(text, d)) return Value::real(d, at);
  return Value::string(std::string(text), at);
}

}  // namespace hcp::yaml_detail
