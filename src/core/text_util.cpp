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

/// The length of the ANSI escape sequence (ESC [ ... final letter) at s[i]; 0 when none starts
/// there. Colour codes take no columns.
size_t escape_length(const std::string& s, size_t i) {
  if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return 0;
  size_t j = i + 2;
  while (j < s.size() && (s[j] < 0x40 || s[j] > 0x7e))
    ++j;
  return j < s.size() ? j - i + 1 : 0;
}

/// Display columns of UTF-8 text (one per code point; continuation bytes and colour codes do not
/// count).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (size_t skip = escape_length(s, i); skip > 0) {
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

void wrap_line(const std::string& line, size_t width, std::string& out) {
  if (columns(line) <= width) {
    out += line;
    return;
  }
  const size_t indent = hanging_indent(line, width);
  std::string rest = line;
  while (columns(rest) > width) {
    // The last space at or before the width (outside the leading indentation).
    size_t lead = rest.find_first_not_of(' ');
    size_t cut = std::string::npos;
    size_t col = 0;
    for (size_t i = 0; i < rest.size() && col <= width; ++i) {
      if (size_t skip = escape_length(rest, i); skip > 0) {
        i += skip - 1;
        continue;
      }
      if ((static_cast<unsigned char>(rest[i]) & 0xC0) == 0x80) continue;
      if (rest[i] == ' ' && i > lead) cut = i;
      ++col;
    }
    if (cut == std::string::npos) {
      cut = rest.find(' ', lead == std::string::npos ? 0 : lead);  // A long word stays whole.
      if (cut == std::string::npos) break;
    }
    size_t end = rest.find_last_not_of(' ', cut);
    out += rest.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
    size_t next = rest.find_first_not_of(' ', cut);
    if (next == std::string::npos) {
      rest.clear();
      break;
    }
    rest = std::string(indent, ' ') + rest.substr(next);
  }
  out += rest;
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
