// Hydra 1.3.2 override grammar (hydra/grammar/OverrideLexer.g4 and OverrideParser.g4), written
// as a small recursive-descent parser over one command-line token.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "hcp/recipe.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

bool is_id_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}
bool is_ws(char c) {
  return c == ' ' || c == '\t';
}
/// Characters Hydra allows in unquoted values besides ID/number characters (UNQUOTED_CHAR).
bool is_unquoted_char(char c) {
  return c == '/' || c == '-' || c == '\\' || c == '+' || c == '.' || c == '$' || c == '%' ||
         c == '*' || c == '@' || c == '?' || c == '|';
}
/// Characters an ESC sequence may escape.
bool is_escapable(char c) {
  return c == '\\' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' ||
         c == ':' || c == '=' || c == ',' || c == ' ' || c == '\t';
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

/// INT: [+-]? ('0' | [1-9] ('_'? [0-9])*).
bool lex_int(std::string_view t, int64_t& out, bool& overflow) {
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) negative = t[i++] == '-';
  if (i >= t.size()) return false;
  if (t[i] == '0') {
    if (i + 1 != t.size()) return false;
    out = 0;
    return true;
  }
  uint64_t magnitude = 0;
  overflow = false;
  bool prev_underscore = true;  // A leading '_' is not allowed.
  for (; i < t.size(); ++i) {
    if (t[i] == '_') {
      if (prev_underscore) return false;
      prev_underscore = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
    prev_underscore = false;
    auto d = static_cast<uint64_t>(t[i] - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) overflow = true;
    magnitude = magnitude * 10 + d;
  }
  if (prev_underscore) return false;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (overflow || magnitude > kMax + (negative ? 1 : 0)) {
    overflow = true;
    return true;
  }
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

/// Digits with single '_' separators: DIGIT ('_'? DIGIT)*. Advance i; return false if none.
bool lex_digits(std::string_view t, size_t& i) {
  if (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i]))) return false;
  ++i;
  while (i < t.size()) {
    if (std::isdigit(static_cast<unsigned char>(t[i]))) {
      ++i;
    } else if (t[i] == '_' && i + 1 < t.size() &&
               std::isdigit(static_cast<unsigned char>(t[i + 1]))) {
      i += 2;
    } else {
      break;
    }
  }
  return true;
}

/// FLOAT: [+-]? (POINT_FLOAT | EXPONENT_FLOAT | inf | nan), case-insensitive inf/nan.
bool lex_float(std::string_view t, double& out) {
  size_t i = 0;
  double sign = 1;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) sign = t[i++] == '-' ? -1 : 1;
  std::string_view body = t.substr(i);
  if (iequals(body, "inf")) {
    out = sign * std::numeric_limits<double>::infinity();
    return true;
  }
  if (iequals(body, "nan")) {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  size_t start = i;
  bool int_part = lex_digits(t, i);
  if (int_part && t[start] == '0' && i - start > 1) return false;  // INT_UNSIGNED has no 0 prefix
  bool dot = i < t.size() && t[i] == '.';
  bool frac = false;
  if (dot) {
    ++i;
    frac = lex_digits(t, i);
  }
  if (!int_part && !frac) return false;
  bool exponent = i < t.size() && (t[i] == 'e' || t[i] == 'E');
  if (exponent) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!lex_digits(t, i)) return false;
  }
  if (i != t.size() || (!dot && !exponent)) return false;
  std::string clean;
  for (char c : t) {
    if (c != '_') clean += c;
  }
  out = std::strtod(clean.c_str(), nullptr);
  return true;
}

/// Deepest nesting of lists, dicts and function calls in one override value. The parser is
/// recursive; real overrides nest two or three levels, and ~8,000 nested '[' overflowed the stack.
constexpr int kMaxOverrideDepth = 64;

class Parser {
 public:
  Parser(std::string_view text, int index) : t_(text), index_(index) {}

  Result<Override> run();

 private:
  std::string_view t_;
  size_t pos_ = 0;
  int index_;
  int depth_ = 0;  ///< Nesting of parse_element calls.

  /// Counts one level of parse_element recursion for as long as it lives.
  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(++d) {}
    ~DepthGuard() { --depth; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  Location here(size_t at) const {
    return Location{"<override " + std::to_string(index_) + ">", 1, static_cast<int>(at) + 1};
  }
  Error fail(const std::string& message, size_t at) const {
    // A long override (thousands of brackets) is shortened so the message stays readable.
    std::string shown =
        t_.size() > 120 ? std::string(utf8_prefix(t_, 100)) + "..." : std::string(t_);
    return Error{"bad override '" + shown + "': " + message, here(at), ""};
  }
  /// The whole UTF-8 character at `at` (never a part of one) in quotes, followed by its code
  /// point when it is not ASCII ("'і' (U+0456)": it looks like 'i'); "'\\xNN'" for an invalid
  /// byte.
  std::string quoted_character(size_t at) const {
    const size_t length = utf8_sequence_length(t_, at);
    if (length == 1) return "'" + neutralize_controls(t_.substr(at, 1)) + "'";
    if (length > 1) {
      return "'" + neutralize_controls(t_.substr(at, length)) + "' (" +
             code_point_name(utf8_code_point(t_, at, length)) + ")";
    }
    return "'\\x" + hex_byte(static_cast<unsigned char>(t_[at])) + "'";
  }
  bool at_end() const { return pos_ >= t_.size(); }
  char peek() const { return at_end() ? '\0' : t_[pos_]; }
  void skip_ws() {
    while (!at_end() && is_ws(t_[pos_]))
      ++pos_;
  }

  Result<std::string> parse_key();
  Result<Value> parse_value();
  Result<Value> parse_element();
  Result<Value> parse_list();
  Result<Value> parse_dict();
  Result<Value> parse_quoted();
  Result<Value> parse_primitive();
  Result<Value> parse_function(const std::string& name, size_t start);
  Result<std::string> parse_interpolation();
  Result<Value> cast(const std::string& name, const Value& arg, size_t start);
};

Result<std::string> Parser::parse_key() {
  size_t start = pos_;
  bool segment_start = true;
  while (!at_end() && t_[pos_] != '=') {
    char c = t_[pos_];
    if (c == '.') {
      if (segment_start) return fail("empty segment in key", pos_);
      segment_start = true;
    } else if (is_id_char(c) || c == '$') {
      segment_start = false;
    } else if (c == '@' || c == '/') {
      std::string group(t_.substr(start, pos_ - start));
      return Error{"Override '" + std::string(t_) +
                       "' looks like a config group override, but "
                       "config group '" +
                       group + "' does not exist.",
                   here(start), group};
    } else if (is_ws(c)) {
      return fail("whitespace is not allowed in a key or before '='", pos_);
    } else {
      return fail("unexpected character " + quoted_character(pos_) + " in key", pos_);
    }
    ++pos_;
  }
  std::string key(t_.substr(start, pos_ - start));
  if (key.empty()) return fail("missing key before '='", start);
  if (segment_start) return fail("key ends with '.'", pos_ - 1);
  if (!is_id_start(key[0]) && key[0] != '$' && !std::isdigit(static_cast<unsigned char>(key[0]))) {
    return fail("a key must start with a letter or '_'", start);
  }
  return key;
}

Result<std::string> Parser::parse_interpolation() {
  // At "${": copy through the matching '}' (nested interpolations allowed).
  size_t start = pos_;
  int depth = 0;
  while (!at_end()) {
    if (t_[pos_] == '$' && pos_ + 1 < t_.size() && t_[pos_ + 1] == '{') {
      ++depth;
      pos_ += 2;
      continue;
    }
    if (t_[pos_] == '}' && --depth == 0) {
      ++pos_;
      return std::string(t_.substr(start, pos_ - start));
    }
    ++pos_;
  }
  return fail("unbalanced '${' (no closing '}')", start);
}

Result<Value> Parser::parse_quoted() {
  size_t start = pos_;
  char quote = t_[pos_++];
  std::string out;
  while (!at_end()) {
    char c = t_[pos_];
    if (c == '\\' && pos_ + 1 < t_.size() && (t_[pos_ + 1] == quote || t_[pos_ + 1] == '\\')) {
      out += t_[pos_ + 1];
      pos_ += 2;
      continue;
    }
    if (c == quote) {
      ++pos_;
      return Value::string(out, here(start));
    }
    out += c;
    ++pos_;
  }
  return fail(std::string("unbalanced quote ") + quote + " (no closing quote)", start);
}

Result<Value> Parser::parse_primitive() {
  // A run of ID/INT/FLOAT/BOOL/NULL/UNQUOTED_CHAR/':'/ESC/WS/interpolation pieces. One piece is
  // typed by its token; several are concatenated into a string (outer whitespace stripped).
  size_t start = pos_;
  std::string text;
  bool escaped = false;
  bool interpolation = false;
  while (!at_end()) {
    char c = t_[pos_];
    if (c == '$' && pos_ + 1 < t_.size() && t_[pos_ + 1] == '{') {
      Result<std::string> interp = parse_interpolation();
      if (!interp) return interp.error();
      text += *interp;
      interpolation = true;
      continue;
    }
    if (c == '\\' && pos_ + 1 < t_.size() && is_escapable(t_[pos_ + 1])) {
      text += t_[pos_ + 1];
      pos_ += 2;
      escaped = true;
      continue;
    }
    if (c == ',' || c == ']' || c == '}' || c == '[' || c == '{' || c == ')') break;
    if (c == '(') break;
    if (!(is_id_char(c) || is_unquoted_char(c) || c == ':' || is_ws(c))) {
      return fail("unexpected character " + quoted_character(pos_) + " in value", pos_);
    }
    text += c;
    ++pos_;
  }
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) {
    if (text.empty() && start == pos_) return fail("missing value", start);
    return fail("a value cannot be only whitespace", start);
  }
  text = text.substr(first, text.find_last_not_of(" \t") - first + 1);
  Location at = here(start + first);
  if (escaped || interpolation) return Value::string(text, at);
  if (iequals(text, "null")) return Value::null(at);
  if (iequals(text, "true") || iequals(text, "false"))
    return Value::boolean(iequals(text, "true"), at);
  int64_t i = 0;
  bool overflow = false;
  if (lex_int(text, i, overflow)) {
    if (overflow) return fail("integer " + text + " does not fit in 64 bits", start + first);
    return Value::integer(i, at);
  }
  double d = 0;
  if (lex_float(text, d)) return Value::real(d, at);
  return Value::string(text, at);
}

Result<Value> Parser::parse_list() {
  size_t start = pos_++;
  std::vector<Value> items;
  skip_ws();
  if (peek() == ']') {
    ++pos_;
    return Value::list({}, here(start));
  }
  while (true) {
    skip_ws();
    Result<Value> item = parse_element();
    if (!item) return item.error();
    items.push_back(std::move(*item));
    skip_ws();
    if (at_end()) return fail("unbalanced '[' (no closing ']')", start);
    if (peek() == ',') {
      ++pos_;
      continue;
    }
    if (peek() == ']') {
      ++pos_;
      return Value::list(std::move(items), here(start));
    }
    return fail(std::string("unexpected '") + peek() + "' in list", pos_);
  }
}

Result<Value> Parser::parse_dict() {
  size_t start = pos_++;
  Value map = Value::map({}, here(start));
  skip_ws();
  if (peek() == '}') {
    ++pos_;
    return map;
  }
  while (true) {
    skip_ws();
    size_t key_start = pos_;
    std::string key;
    while (!at_end() && t_[pos_] != ':' && t_[pos_] != ',' && t_[pos_] != '}') {
      char c = t_[pos_];
      if (!(is_id_char(c) || is_unquoted_char(c) || is_ws(c))) {
        return fail("unexpected character " + quoted_character(pos_) + " in dict key", pos_);
      }
      key += c;
      ++pos_;
    }
    while (!key.empty() && is_ws(key.back()))
      key.pop_back();
    if (at_end()) return fail("unbalanced '{' (no closing '}')", start);
    if (key.empty() || peek() != ':') return fail("expected 'key: value' in dict", key_start);
    ++pos_;
    skip_ws();
    Result<Value> value = parse_element();
    if (!value) return value.error();
    if (map.get(key) != nullptr) return fail("duplicate dict key '" + key + "'", key_start);
    map.append(key, std::move(*value));
    skip_ws();
    if (at_end()) return fail("unbalanced '{' (no closing '}')", start);
    if (peek() == ',') {
      ++pos_;
      continue;
    }
    if (peek() == '}') {
      ++pos_;
      return map;
    }
    return fail(std::string("unexpected '") + peek() + "' in dict", pos_);
  }
}

Result<Value> Parser::cast(const std::string& name, const Value& arg, size_t start) {
  Location at = here(start);
  if (name == "str") {
    return Value::string(arg.is_string() ? arg.as_string() : arg.str(), at);
  }
  if (name == "int") {
    if (arg.is_int()) return Value::integer(arg.as_int(), at);
    if (arg.is_float() && std::isfinite(arg.as_double()) && std::fabs(arg.as_double()) < 9.2e18) {
      return Value::integer(static_cast<int64_t>(arg.as_double()), at);
    }
    if (arg.is_bool()) return Value::integer(arg.as_bool() ? 1 : 0, at);
    if (arg.is_string()) {
      int64_t i = 0;
      bool overflow = false;
      if (lex_int(arg.as_string(), i, overflow) && !overflow) return Value::integer(i, at);
    }
  } else if (name == "float") {
    if (arg.is_number()) return Value::real(arg.as_double(), at);
    double d = 0;
    int64_t i = 0;
    bool overflow = false;
    if (arg.is_string() && lex_float(arg.as_string(), d)) return Value::real(d, at);
    if (arg.is_string() && lex_int(arg.as_string(), i, overflow)) {
      return Value::real(static_cast<double>(i), at);
    }
  } else if (name == "bool") {
    if (arg.is_bool()) return arg;
    if (arg.is_number()) return Value::boolean(arg.as_double() != 0, at);
    if (arg.is_string() &&
        (iequals(arg.as_string(), "true") || iequals(arg.as_string(), "false"))) {
      return Value::boolean(iequals(arg.as_string(), "true"), at);
    }
  }
  return fail("cannot cast " + arg.str() + " with " + name + "()", start);
}

Result<Value> Parser::parse_function(const std::string& name, size_t start) {
  static const char* const kSweeps[] = {"choice", "range",   "interval", "glob",
                                        "sort",   "shuffle", "tag"};
  for (const char* sweep : kSweeps) {
    if (name == sweep) {
      return fail(name + "() is a Hydra sweep; Bridge applies one value per key", start);
    }
  }
  if (name != "int" && name != "float" && name != "str" && name != "bool") {
    return fail("unknown function " + name + "() (supported: int, float, str, bool)", start);
  }
  ++pos_;  // '('
  skip_ws();
  Result<Value> arg = parse_element();
  if (!arg) return arg.error();
  skip_ws();
  if (peek() != ')') {
    if (peek() == ',') return fail(name + "() takes one argument", pos_);
    return fail("unbalanced '(' (no closing ')')", start);
  }
  ++pos_;
  if (arg->is_list() || arg->is_map()) {
    return fail(name + "() of a list or dict is not supported", start);
  }
  return cast(name, *arg, start);
}

Result<Value> Parser::parse_element() {
  DepthGuard guard(depth_);
  if (depth_ > kMaxOverrideDepth) {
    return fail("nested deeper than " + std::to_string(kMaxOverrideDepth) + " levels", pos_);
  }
  char c = peek();
  if (c == '[') return parse_list();
  if (c == '{') return parse_dict();
  if (c == '\'' || c == '"') return parse_quoted();
  if (c == ']' || c == '}' || c == ')') {
    return fail(std::string("unbalanced '") + c + "'", pos_);
  }
  size_t start = pos_;
  Result<Value> primitive = parse_primitive();
  if (!primitive) return primitive;
  if (peek() == '(') {
    if (!primitive->is_string()) return fail("unexpected '('", pos_);
    return parse_function(primitive->as_string(), start);
  }
  return primitive;
}

Result<Value> Parser::parse_value() {
  size_t start = pos_;
  if (at_end()) return Value::string("", here(start));  // "key=" sets the empty string.
  Result<Value> value = parse_element();
  if (!value) return value;
  skip_ws();
  if (peek() == ',') {
    return fail(
        "'a,b' is a Hydra sweep, which Bridge rejects (\"Error merging override\"); "
        "write a list as [a,b] or quote the value",
        pos_);
  }
  if (!at_end()) {
    char c = peek();
    if (c == ']' || c == '}' || c == ')') return fail(std::string("unbalanced '") + c + "'", pos_);
    return fail(std::string("unexpected '") + c + "' after the value", pos_);
  }
  return value;
}

Result<Override> Parser::run() {
  Override out;
  out.text = std::string(t_);
  out.index = index_;
  if (t_.empty()) return fail("empty override", 0);
  if (t_[0] == '~') {
    out.kind = OverrideKind::kDelete;
    pos_ = 1;
  } else if (t_.substr(0, 2) == "++") {
    out.kind = OverrideKind::kForceAdd;
    pos_ = 2;
  } else if (t_[0] == '+') {
    out.kind = OverrideKind::kAdd;
    pos_ = 1;
  }
  Result<std::string> key = parse_key();
  if (!key) return key.error();
  out.key = *key;
  if (at_end()) {
    if (out.kind == OverrideKind::kDelete) return out;
    return fail("expected KEY=VALUE (no '=')", pos_);
  }
  ++pos_;  // '='
  skip_ws();
  if (out.kind == OverrideKind::kDelete && at_end()) return out;  // "~key=" is "~key".
  Result<Value> value = parse_value();
  if (!value) return value.error();
  out.value = std::move(*value);
  return out;
}

}  // namespace

Result<Override> parse_override(std::string_view text, int index) {
  return Parser(text, index).run();
}

}  // namespace hcp
