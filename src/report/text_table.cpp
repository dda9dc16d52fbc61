#include "hcp/text_table.h"

#include <algorithm>

#include "hcp/text_util.h"

namespace hcp {

namespace {

/// Indentation of a note moved below its row.
constexpr size_t kNoteIndent = 6;

const char* sgr(TextStyle style) {
  switch (style) {
    case TextStyle::kBold:
      return "\x1b[1m";
    case TextStyle::kError:
      return "\x1b[1;31m";
    case TextStyle::kWarning:
      return "\x1b[1;33m";
    case TextStyle::kInfo:
      return "\x1b[36m";
    case TextStyle::kGood:
      return "\x1b[1;32m";
    case TextStyle::kDim:
      return "\x1b[2m";
    case TextStyle::kPlain:
      break;
  }
  return "";
}

/// Display columns of UTF-8 text (one per code point).
std::string trim_right(std::string s) {
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  return s;
}

}  // namespace

std::string styled(const std::string& text, TextStyle style, bool color) {
  if (!color || style == TextStyle::kPlain || text.empty()) return text;
  return sgr(style) + text + "\x1b[0m";
}

TextTable::TextTable(std::vector<std::string> header, std::string note_header)
    : header_(std::move(header)), note_header_(std::move(note_header)) {}

void TextTable::row(std::vector<std::string> cells, std::string note, TextStyle style) {
  rows_.push_back({std::move(cells), std::move(note), style});
}

std::vector<size_t> TextTable::column_widths() const {
  std::vector<size_t> widths(header_.size(), 0);
  auto widen = [&widths](const std::vector<std::string>& cells) {
    if (widths.size() < cells.size()) widths.resize(cells.size(), 0);
    for (size_t i = 0; i < cells.size(); ++i)
      widths[i] = std::max(widths[i], text_columns(cells[i]));
  };
  widen(header_);
  for (const Row& r : rows_)
    widen(r.cells);
  return widths;
}

size_t TextTable::cells_width() const {
  size_t total = 0;
  std::vector<size_t> widths = column_widths();
  for (size_t i = 0; i < widths.size(); ++i)
    total += widths[i] + (i + 1 < widths.size() ? 2 : 0);
  return total;
}

std::string TextTable::line(const std::vector<std::string>& cells,
                            const std::vector<size_t>& widths) const {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    out += cells[i];
    if (i + 1 < cells.size()) out += std::string(widths[i] - text_columns(cells[i]) + 2, ' ');
  }
  return trim_right(out);
}

bool TextTable::note_fits(const Row& r, size_t width) const {
  return width == 0 || r.note.empty() || cells_width() + 2 + text_columns(r.note) <= width;
}

std::string TextTable::str(size_t width, bool color) const {
  bool any_inline = false;
  for (const Row& r : rows_)
    any_inline = any_inline || (!r.note.empty() && note_fits(r, width));
  std::vector<size_t> widths = column_widths();
  std::vector<std::string> head = header_;
  if (any_inline && !note_header_.empty()) {
    head.resize(widths.size());
    head.push_back(note_header_);
  }
  std::string out = head.empty() ? std::string() : line(head, widths) + "\n";
  for (const Row& r : rows_) {
    std::vector<std::string> cells = r.cells;
    const bool inline_note = note_fits(r, width);
    if (inline_note && !r.note.empty()) {
      cells.resize(widths.size());
      cells.push_back(r.note);
    }
    out += styled(line(cells, widths), r.style, color) + "\n";
    if (inline_note) continue;
    const std::string note = wrap_text(std::string(kNoteIndent, ' ') + r.note, width);
    size_t start = 0;
    while (start < note.size()) {
      size_t end = note.find('\n', start);
      std::string piece = note.substr(start, end == std::string::npos ? end : end - start);
      out += styled(piece, r.style, color) + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return out;
}

}  // namespace hcp
