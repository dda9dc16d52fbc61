// Terminal text: a table that fits a width (long notes move to indented lines below their row)
// and ANSI colour for the text reports.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hcp {

/// How a report marks a piece of text on a colour terminal.
enum class TextStyle { kPlain, kBold, kError, kWarning, kInfo, kGood, kDim };

/// Return `text` wrapped in the ANSI SGR codes of `style` when `color` is true, else unchanged.
std::string styled(const std::string& text, TextStyle style, bool color);

/// A plain text table: columns padded to their widest cell, two spaces apart. Each row may carry
/// a note (the last, free-text column). A note that would take its row past `width` columns goes
/// on its own line(s) below the row instead, indented and wrapped to the width, so no cell ever
/// wraps under the table. width 0 means no limit.
class TextTable {
 public:
  /// `header` names the columns; `note_header` heads the notes column when notes stay inline.
  explicit TextTable(std::vector<std::string> header, std::string note_header = "");

  /// Add a row; `note` is its free text, `style` colours the whole row (and its note).
  void row(std::vector<std::string> cells, std::string note = "",
           TextStyle style = TextStyle::kPlain);

  /// Columns the widest row needs without its note.
  size_t cells_width() const;

  /// Return the table laid out for `width` columns (0: no limit), coloured when `color`.
  std::string str(size_t width, bool color = false) const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::string note;
    TextStyle style = TextStyle::kPlain;
  };
  std::vector<size_t> column_widths() const;
  bool note_fits(const Row& r, size_t width) const;
  std::string line(const std::vector<std::string>& cells, const std::vector<size_t>& widths) const;

  std::vector<std::string> header_;
  std::string note_header_;
  std::vector<Row> rows_;
};

}  // namespace hcp
