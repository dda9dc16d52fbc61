// wrap_text: text reports fit 100 columns (issue 16, point 10).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "hcp/text_util.h"

namespace hcp {
namespace {

size_t longest_line(const std::string& text) {
  std::istringstream in(text);
  size_t longest = 0;
  for (std::string line; std::getline(in, line);)
    longest = std::max(longest, line.size());
  return longest;
}

TEST(WrapText, ShortLinesAreUntouchedAndZeroWidthTurnsWrappingOff) {
  EXPECT_EQ(wrap_text("a b\n\nc\n", 10), "a b\n\nc\n");
  std::string long_line(150, 'x');
  long_line[70] = ' ';
  EXPECT_EQ(wrap_text(long_line, 0), long_line);
}

TEST(WrapText, ProseGetsAHangingIndent) {
  std::string text = "  - " + std::string(60, 'a') + " " + std::string(30, 'b') + " " +
                     std::string(30, 'c') + "\n";
  std::string wrapped = wrap_text(text, 100);
  EXPECT_LE(longest_line(wrapped), 100u) << wrapped;
  EXPECT_EQ(wrapped, "  - " + std::string(60, 'a') + " " + std::string(30, 'b') + "\n      " +
                         std::string(30, 'c') + "\n");
}

TEST(WrapText, TableRowsContinueUnderTheirLastColumn) {
  std::string row =
      "TP1 CP16 a2a DP2   [CP032]  " + std::string(50, 'm') + " " + std::string(40, 'n') + "\n";
  std::string wrapped = wrap_text(row, 100);
  const size_t column = row.find("mmm");
  EXPECT_EQ(wrapped, row.substr(0, column + 50) + "\n" + std::string(column, ' ') +
                         std::string(40, 'n') + "\n");
}

TEST(WrapText, AWordLongerThanTheWidthStaysWhole) {
  std::string word(120, 'w');
  EXPECT_EQ(wrap_text("ab " + word + " cd", 100), "ab\n    " + word + "\n    cd");
}

TEST(WrapText, CountsCodePointsNotBytes) {
  std::string row;
  for (int i = 0; i < 45; ++i)
    row += "× ";  // 2 bytes + space = 2 columns each: 90 columns, 135 bytes.
  EXPECT_EQ(wrap_text(row, 100), row);
}

// groups --show 100000 prints one row of 100,000 groups: wrapping it must keep every word, in
// order, on rows of at most the width, each continuation under the row's last column.
TEST(WrapText, AVeryLongTableRowKeepsEveryWordOnRowsOfTheWidth) {
  std::string words;
  for (int i = 0; i < 100000; ++i)
    words += (i ? " " : "") + std::to_string(2 * i) + "," + std::to_string(2 * i + 1);
  const std::string row = "tp      2  65536  " + words;
  const std::string wrapped = wrap_text(row, 100);
  EXPECT_LE(longest_line(wrapped), 100u);
  const size_t column = row.find("0,1");
  std::istringstream in(wrapped);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("tp      2  65536  0,1 2,3", 0), 0u) << line;
  std::string rejoined = line.substr(column);
  for (; std::getline(in, line);) {
    ASSERT_EQ(line.find_first_not_of(' '), column) << line;
    rejoined += " " + line.substr(column);
  }
  EXPECT_EQ(rejoined, words);
}

TEST(WrapText, MultiByteRowsWrapAtTheWidthInColumns) {
  std::string row;
  for (int i = 0; i < 200; ++i)
    row += "×× ";  // 3 columns each, 5 bytes
  const std::string wrapped = wrap_text(row, 100);
  std::istringstream in(wrapped);
  for (std::string line; std::getline(in, line);) {
    size_t cols = 0;
    for (unsigned char c : line)
      cols += (c & 0xC0) != 0x80 ? 1 : 0;
    EXPECT_LE(cols, 100u) << line;
  }
  EXPECT_EQ(wrapped.substr(0, 99), row.substr(0, 99));
}

TEST(WrapText, ColourCodesTakeNoColumns) {
  // A coloured table row of exactly the width stays whole (issue 30: colour on a terminal).
  const std::string row =
      "\x1b[1;32m" + std::string(48, 'a') + " " + std::string(31, 'b') + "\x1b[0m";
  EXPECT_EQ(wrap_text(row, 80), row);
  // One column more and it wraps at the space, the codes kept with their text.
  const std::string longer =
      "\x1b[1m" + std::string(48, 'a') + " " + std::string(32, 'b') + "\x1b[0m";
  EXPECT_EQ(wrap_text(longer, 80),
            "\x1b[1m" + std::string(48, 'a') + "\n    " + std::string(32, 'b') + "\x1b[0m");
}

}  // namespace
}  // namespace hcp
