#include "hcp/text_util.h"

#include <algorithm>
#include <cstdio>

namespace hcp {

std::string format_fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

std::string format_gib(double bytes) {
  return format_fixed(bytes / (1024.0 * 1024.0 * 1024.0), 1);
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
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

namespace {

/// Display columns of UTF-8 text (one per code point; continuation bytes do not count).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
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
  void append_prefix(std::string& out, size_t n) const {
    out.append(std::min(n, indent), ' ');
    if (n > indent) out.append(line, pos, n - indent);
  }
  /// Drop the first `n` characters (n >= indent) and start the rest with `new_indent` spaces.
  void advance(size_t n, size_t new_indent) {
    const size_t end = pos + n - indent;
    size_t dropped = indent;
    for (size_t i = pos; i < end; ++i)
      dropped += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 ? 1 : 0;
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
