#include "hcp/text_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace hcp {

std::string format_fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

namespace {

/// `value` with up to three significant digits and no exponent down to 1e-4 ("%.3g").
std::string three_significant(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

}  // namespace

std::string counted(int64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

size_t text_columns(std::string_view text) {
  size_t n = 0;
  for (unsigned char c : text)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string pad_column(std::string text, size_t width) {
  if (text.find_first_of("\n\r\t") != std::string::npos) text = one_line(text);
  const size_t shown = text_columns(text);
  text.append(shown < width ? width - shown : 1, ' ');
  return text;
}

std::string format_percent(double fraction) {
  const double percent = fraction * 100;
  if (std::abs(percent) >= 100) return format_fixed(percent, 0) + "%";
  return three_significant(percent) + "%";
}

std::string format_gib(double bytes) {
  return format_fixed(bytes / (1024.0 * 1024.0 * 1024.0), 1);
}

std::string format_rate(double value) {
  return std::abs(value) >= 100 ? format_fixed(value, 0) : three_significant(value);
}

std::string format_limit_gib(double gib) {
  if (gib > 0 && gib < 1) return three_significant(gib);
  std::string text = format_fixed(gib, 1);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

std::string format_margin_gib(double gib) {
  if (gib != 0 && std::abs(gib) < 0.05) return gib < 0 ? "-<0.1" : "<0.1";
  return format_fixed(gib, 1);
}

namespace {

/// `\uXXXX` (or `\UXXXXXXXX` above U+FFFF): a code point written out in visible characters.
std::string written_out(uint32_t code_point) {
  char buffer[16];
  if (code_point > 0xFFFF) {
    std::snprintf(buffer, sizeof buffer, "\\U%08x", static_cast<unsigned>(code_point));
  } else {
    std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(code_point));
  }
  return buffer;
}

/// When text[at] starts an invisible character (invisible_character), its length; else 0.
size_t invisible_length(std::string_view text, size_t at) {
  if (static_cast<unsigned char>(text[at]) < 0xC2) return 0;
  const size_t length = utf8_sequence_length(text, at);
  return length > 0 && invisible_character(utf8_code_point(text, at, length)) ? length : 0;
}

}  // namespace

bool invisible_character(uint32_t cp) {
  return cp == 0x00AD || cp == 0x034F || cp == 0x061C || cp == 0x180E ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206F) || cp == 0xFEFF ||
         (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0xE0000 && cp <= 0xE007F);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string or_list(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " or " : ", ") + parts[i];
  return out;
}

std::string hex_byte(unsigned char byte, bool upper) {
  const char* hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  return {hex[byte >> 4], hex[byte & 15]};
}

std::string code_point_name(uint32_t cp) {
  char code[16];
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
  return code;
}

uint32_t utf8_code_point(std::string_view text, size_t at, size_t length) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = static_cast<unsigned char>(text[at]) & kLeadMask[length];
  for (size_t i = 1; i < length; ++i)
    cp = (cp << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
  return cp;
}

std::string xml_escape(const std::string& text) {
  const std::string valid = replace_invalid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    if (const size_t n = invisible_length(valid, i); n > 0) {
      out += written_out(utf8_code_point(valid, i, n));
      i += n - 1;
      continue;
    }
    const char c = valid[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

size_t utf8_sequence_length(std::string_view text, size_t at) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;  // the range of the second byte (Unicode 15, table 3-7)
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong C0/C1 lead, or F5..FF
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (size_t i = 2; i < length; ++i)
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  return length;
}

size_t first_invalid_utf8(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    // ASCII fast path: eight bytes at a time while none has its high bit set.
    uint64_t word = 0;
    while (at + sizeof word <= text.size()) {
      std::memcpy(&word, text.data() + at, sizeof word);
      if ((word & 0x8080808080808080ULL) != 0) break;
      at += sizeof word;
    }
    if (at >= text.size()) break;
    size_t length = utf8_sequence_length(text, at);
    if (length == 0) return at;
    at += length;
  }
  return std::string_view::npos;
}

std::string replace_invalid_utf8(std::string_view text) {
  if (first_invalid_utf8(text) == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t at = 0; at < text.size();) {
    size_t length = utf8_sequence_length(text, at);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++at;
      continue;
    }
    out.append(text.substr(at, length));
    at += length;
  }
  return out;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return text.substr(0, end);
}

namespace {

/// Length of a colour code (ESC [ digits and semicolons m) at text[i]; 0 when none starts there.
size_t colour_code_length(const std::string& text, size_t i) {
  if (text[i] != '\x1b' || i + 1 >= text.size() || text[i + 1] != '[') return 0;
  size_t j = i + 2;
  while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == ';'))
    ++j;
  return j < text.size() && text[j] == 'm' ? j - i + 1 : 0;
}

}  // namespace

std::string escape_chars(std::string_view text, std::initializer_list<CharEscape> escapes) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto* e = std::find_if(escapes.begin(), escapes.end(),
                                 [c](const CharEscape& escape) { return escape.c == c; });
    if (e != escapes.end()) {
      out += e->as;
    } else {
      out += c;
    }
  }
  return out;
}

std::string one_line(std::string_view text) {
  return escape_chars(text, {{'\n', "\\n"}, {'\r', "\\r"}, {'\t', "\\t"}});
}

std::string neutralize_controls(std::string_view text, bool keep_colour) {
  const std::string valid = replace_invalid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  auto escape = [&](unsigned char c) { out += "\\x" + hex_byte(c); };
  for (size_t i = 0; i < valid.size(); ++i) {
    auto c = static_cast<unsigned char>(valid[i]);
    if (size_t n = keep_colour ? colour_code_length(valid, i) : 0; n > 0) {
      out.append(valid, i, n);
      i += n - 1;
      continue;
    }
    // C1 controls U+0080..U+009F are C2 80..C2 9F in UTF-8.
    if (c == 0xC2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) <= 0x9F) {
      escape(static_cast<unsigned char>(valid[++i]));
    } else if (const size_t n = invisible_length(valid, i); n > 0) {
      out += written_out(utf8_code_point(valid, i, n));
      i += n - 1;
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      escape(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

size_t terminal_escape_length(std::string_view text, size_t at) {
  auto in = [text](size_t i, unsigned char low, unsigned char high) {
    if (i >= text.size()) return false;
    const auto c = static_cast<unsigned char>(text[i]);
    return c >= low && c <= high;
  };
  if (at + 1 >= text.size() || text[at] != '\x1b' || text[at + 1] != '[') return 0;
  size_t end = at + 2;
  while (in(end, 0x30, 0x3f))
    ++end;
  while (in(end, 0x20, 0x2f))
    ++end;
  return in(end, 0x40, 0x7e) ? end + 1 - at : 0;
}

std::string without_terminal_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t skip = terminal_escape_length(text, i); skip > 0) {
      i += skip - 1;  // the whole sequence, final byte included
      continue;
    }
    out += text[i];
  }
  return out;
}

namespace {

/// Display columns of UTF-8 text (one per code point; continuation bytes and terminal control
/// sequences such as colour codes do not count).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (size_t skip = terminal_escape_length(s, i); skip > 0) {
      i += skip - 1;
      continue;
    }
    n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 ? 1 : 0;
  }
  return n;
}

/// Where continuation lines of `line` start (see wrap_text).
size_t hanging_indent(const std::string& line, size_t width) {
  const size_t lead = line.find_first_not_of(' ');
  size_t column = std::string::npos;
  for (size_t i = lead; i + 2 < line.size(); ++i) {
    if (line[i] == ' ' && line[i + 1] == ' ') {
      size_t next = line.find_first_not_of(' ', i);
      if (next == std::string::npos) break;
      column = next;
      i = next;
    }
  }
  if (column != std::string::npos && width > 30 && columns(line.substr(0, column)) < width - 30)
    return columns(line.substr(0, column));
  return std::min(lead == std::string::npos ? 0 : lead, width / 2) + 4;
}

/// What is left of a line being wrapped: `indent` spaces, then line[pos...], read in place (a
/// copy per wrapped row made wrapping quadratic in the line's length).
struct Rest {
  const std::string& line;
  size_t indent = 0;
  size_t pos = 0;
  size_t cols = 0;  // display columns of the rest

  size_t size() const { return indent + line.size() - pos; }
  char at(size_t i) const { return i < indent ? ' ' : line[pos + i - indent]; }
  /// First index >= from whose character is (or, with space false, is not) a space; npos if none.
  size_t find(bool space, size_t from) const {
    for (size_t i = from; i < size(); ++i) {
      if ((at(i) == ' ') == space) return i;
    }
    return std::string::npos;
  }
  /// Last index <= at_or_before that is not a space; npos if none.
  size_t last_non_space(size_t at_or_before) const {
    for (size_t i = std::min(at_or_before + 1, size()); i-- > 0;) {
      if (at(i) != ' ') return i;
    }
    return std::string::npos;
  }
  /// Length of the colour code starting at index i (0 when none starts there).
  size_t escape_at(size_t i) const {
    return i < indent ? 0 : terminal_escape_length(line, pos + i - indent);
  }
  void append_prefix(std::string& out, size_t n) const {
    out.append(std::min(n, indent), ' ');
    if (n > indent) out.append(line, pos, n - indent);
  }
  /// Drop the first `n` characters (n >= indent) and start the rest with `new_indent` spaces.
  void advance(size_t n, size_t new_indent) {
    const size_t end = pos + n - indent;
    size_t dropped = indent;
    for (size_t i = pos; i < end; ++i) {
      if (size_t skip = terminal_escape_length(line, i); skip > 0) {
        i += skip - 1;
        continue;
      }
      dropped += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 ? 1 : 0;
    }
    cols = cols - dropped + new_indent;
    pos = end;
    indent = new_indent;
  }
};

/// The last space at or before the width (outside the leading indentation) where the rest is cut.
size_t cut_point(const Rest& rest, size_t width) {
  const size_t lead = rest.find(false, 0);
  size_t cut = std::string::npos;
  size_t col = 0;
  for (size_t i = 0; i < rest.size() && col <= width; ++i) {
    if (size_t skip = rest.escape_at(i); skip > 0) {
      i += skip - 1;
      continue;
    }
    const char c = rest.at(i);
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;
    if (c == ' ' && i > lead) cut = i;
    ++col;
  }
  if (cut == std::string::npos) {
    cut = rest.find(true, lead == std::string::npos ? 0 : lead);  // A long word stays whole.
  }
  return cut;
}

void wrap_line(const std::string& line, size_t width, std::string& out) {
  const size_t total = columns(line);
  if (total <= width) {
    out += line;
    return;
  }
  const size_t indent = hanging_indent(line, width);
  Rest rest{line, 0, 0, total};
  while (rest.cols > width) {
    const size_t cut = cut_point(rest, width);
    if (cut == std::string::npos) break;
    const size_t end = rest.last_non_space(cut);
    rest.append_prefix(out, end == std::string::npos ? 0 : end + 1);
    out += "\n";
    const size_t next = rest.find(false, cut);
    if (next == std::string::npos) return;
    rest.advance(next, indent);
  }
  rest.append_prefix(out, rest.size());
}

}  // namespace

std::string wrap_text(const std::string& text, size_t width) {
  if (width == 0) return text;
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    wrap_line(text.substr(start, end == std::string::npos ? std::string::npos : end - start), width,
              out);
    if (end == std::string::npos) break;
    out += "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace hcp
