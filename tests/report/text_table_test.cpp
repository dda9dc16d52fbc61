// TextTable: columns fit the width; a note that would pass it goes below its row; colour only
// when asked (issue 30: terminal-aware text).
#include "hcp/text_table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace hcp {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TextTable sample() {
  TextTable t({"Option", "TP"}, "notes");
  t.row({"A *", "4"}, "a2a on NVLink; IB ring exposed 2.5%; tie with B");
  t.row({"B", "2"}, "short");
  t.row({"C", "8"});
  return t;
}

TEST(TextTable, NotesStayInlineWhenTheyFit) {
  EXPECT_EQ(sample().str(0),
            "Option  TP  notes\n"
            "A *     4   a2a on NVLink; IB ring exposed 2.5%; tie with B\n"
            "B       2   short\n"
            "C       8\n");
}

TEST(TextTable, ANoteThatPassesTheWidthGoesBelowItsRowIndented) {
  EXPECT_EQ(sample().str(40),
            "Option  TP  notes\n"
            "A *     4\n"
            "      a2a on NVLink; IB ring exposed\n"
            "          2.5%; tie with B\n"
            "B       2   short\n"
            "C       8\n");
}

TEST(TextTable, NoLinePassesTheWidthAtAnyWidth) {
  for (size_t width : {20, 30, 40, 50, 60, 80}) {
    for (const std::string& line : lines_of(sample().str(width))) {
      EXPECT_LE(line.size(), width) << "width " << width << ": " << line;
    }
  }
}

TEST(TextTable, TheNotesHeaderGoesWhenNoNoteIsInline) {
  TextTable t({"group", "size"}, "first groups");
  t.row({"cp", "16"}, "[0 1 2 3 4 5 ... 15] [16 17 18 19 20 21 ... 31]");
  EXPECT_EQ(lines_of(t.str(30)).front(), "group  size");
  EXPECT_EQ(lines_of(t.str(0)).front(), "group  size  first groups");
}

TEST(TextTable, AnEmptyHeaderPrintsNoHeaderLine) {
  TextTable t(std::vector<std::string>{});
  t.row({"  TP3 CP1", "[CP001]"}, "TP must divide the heads");
  EXPECT_EQ(t.str(0), "  TP3 CP1  [CP001]  TP must divide the heads\n");
}

TEST(TextTable, CellsWidthCountsEveryColumnButTheNotes) {
  EXPECT_EQ(sample().cells_width(), std::string("Option  TP").size());
}

TEST(TextTable, RowStylesColourOnlyWhenAsked) {
  TextTable t({"Option"});
  t.row({"A *"}, "", TextStyle::kGood);
  t.row({"B"});
  EXPECT_EQ(t.str(0, false), "Option\nA *\nB\n");
  EXPECT_EQ(t.str(0, true), "Option\n\x1b[1;32mA *\x1b[0m\nB\n");
}

TEST(Styled, WrapsTextInItsCodesOrLeavesItAlone) {
  struct Case {
    TextStyle style;
    bool color;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {TextStyle::kError, true, "\x1b[1;31merror\x1b[0m"},
      {TextStyle::kWarning, true, "\x1b[1;33merror\x1b[0m"},
      {TextStyle::kInfo, true, "\x1b[36merror\x1b[0m"},
      {TextStyle::kBold, true, "\x1b[1merror\x1b[0m"},
      {TextStyle::kPlain, true, "error"},
      {TextStyle::kError, false, "error"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(styled("error", c.style, c.color), c.expected);
  EXPECT_EQ(styled("", TextStyle::kError, true), "");
}

}  // namespace
}  // namespace hcp
