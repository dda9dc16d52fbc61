// UTF-8 and terminal-safety helpers of text_util.h (issue 28: invalid UTF-8 in XML/JSON output,
// escape sequences from inputs on the terminal, a message that cut a UTF-8 character).
#include "hcp/text_util.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace hcp {
namespace {

struct Utf8Case {
  const char* name;
  std::string text;
  size_t first_invalid;  ///< npos when valid
};

TEST(Utf8, FirstInvalidByteOfEachClass) {
  const size_t npos = std::string_view::npos;
  const std::vector<Utf8Case> cases = {
      {"ascii", "model: {}", npos},
      {"two, three and four bytes", "\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", npos},
      {"lone continuation byte", "a\x80", 1},
      {"overlong slash (C0 AF)", "ab\xC0\xAF", 2},
      {"overlong three-byte (E0 80 AF)", "\xE0\x80\xAF", 0},
      {"overlong four-byte (F0 80 80 AF)", "\xF0\x80\x80\xAF", 0},
      {"surrogate (ED A0 80)", "x\xED\xA0\x80", 1},
      {"above U+10FFFF (F4 90 80 80)", "\xF4\x90\x80\x80", 0},
      {"F5 lead", "\xF5\x80\x80\x80", 0},
      {"FF", "ok\xFF", 2},
      {"truncated at the end", "ok\xE2\x82", 2},
      {"continuation missing", "\xC3(", 0},
  };
  for (const Utf8Case& c : cases)
    EXPECT_EQ(first_invalid_utf8(c.text), c.first_invalid) << c.name;
}

TEST(Utf8, ReplaceInvalidBytesWithReplacementCharacter) {
  EXPECT_EQ(replace_invalid_utf8("ok"), "ok");
  EXPECT_EQ(replace_invalid_utf8("a\xFF"
                                 "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(replace_invalid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(first_invalid_utf8(replace_invalid_utf8("\xE2\x82")), std::string_view::npos);
}

TEST(Utf8, PrefixNeverCutsACharacter) {
  const std::string euro = "\xE2\x82\xAC";  // 3 bytes
  EXPECT_EQ(utf8_prefix("ab" + euro, 3), "ab");
  EXPECT_EQ(utf8_prefix("ab" + euro, 4), "ab");
  EXPECT_EQ(utf8_prefix("ab" + euro, 5), "ab" + euro);
  EXPECT_EQ(utf8_prefix("abc", 10), "abc");
}

TEST(NeutralizeControls, WithColourOnlyColourCodesPass) {
  EXPECT_EQ(neutralize_controls("\x1b[1;31merror\x1b[0m", true), "\x1b[1;31merror\x1b[0m");
  // Cursor moves, screen clears and title sequences stay neutralised.
  EXPECT_EQ(neutralize_controls("\x1b[2J\x1b[5A\x1b]0;t\x07", true),
            "\\x1b[2J\\x1b[5A\\x1b]0;t\\x07");
  EXPECT_EQ(neutralize_controls("\x1b[1;31m", false), "\\x1b[1;31m");
}

TEST(NeutralizeControls, EscapeSequencesAndC1ControlsAreShownNotSent) {
  EXPECT_EQ(neutralize_controls("key\x1b[31mred\x07"), "key\\x1b[31mred\\x07");
  EXPECT_EQ(neutralize_controls("a\rb\x7f"), "a\\x0db\\x7f");
  EXPECT_EQ(neutralize_controls("csi \xC2\x9B"
                                "2J"),
            "csi \\x9b2J");
  // Line breaks, tabs and printable UTF-8 stay as they are; invalid UTF-8 becomes U+FFFD.
  EXPECT_EQ(neutralize_controls("a\tb\n\xC3\xA9"), "a\tb\n\xC3\xA9");
  EXPECT_EQ(neutralize_controls("\xFF"), "\xEF\xBF\xBD");
}

struct InvisibleCase {
  const char* name;
  std::string text;
  std::string shown;  ///< neutralize_controls(text)
};

TEST(NeutralizeControls, InvisibleAndReorderingCharactersAreWrittenOut) {
  const std::vector<InvisibleCase> cases = {
      {"right-to-left override (Trojan Source)", "cp\u202e=4", "cp\\u202e=4"},
      {"left-to-right isolate and pop", "\u2066a\u2069", "\\u2066a\\u2069"},
      {"right-to-left mark", "a\u200fb", "a\\u200fb"},
      {"Arabic letter mark", "a\u061cb", "a\\u061cb"},
      {"zero-width space", "context_parallel_size\u200b", "context_parallel_size\\u200b"},
      {"zero-width joiner", "a\u200db", "a\\u200db"},
      {"word joiner", "a\u2060b", "a\\u2060b"},
      {"byte-order mark inside a key", "model\ufeff.cp", "model\\ufeff.cp"},
      {"soft hyphen", "tensor\u00admodel", "tensor\\u00admodel"},
      {"line separator", "a\u2028b", "a\\u2028b"},
      {"paragraph separator", "a\u2029b", "a\\u2029b"},
      {"invisible times", "a\u2062b", "a\\u2062b"},
      {"interlinear annotation anchor", "a\ufff9b", "a\\ufff9b"},
      {"tag letter (smuggled text)", "cp\U000E0041", "cp\\U000e0041"},
      {"Mongolian vowel separator", "a\u180eb", "a\\u180eb"},
  };
  for (const InvisibleCase& c : cases)
    EXPECT_EQ(neutralize_controls(c.text), c.shown) << c.name;
}

TEST(NeutralizeControls, VisibleTextOfEveryScriptStaysAsItIs) {
  for (const char* text :
       {"\u00b1 4% \u03c4 0.78 \u2264 0.8 \u00d7 \u2192", "\u65e5\u672c\u8a9e GPU",
        "e\u0301t\u00e9", "no\u00a0break", "\U0001F680 rocket", "\u05e9\u05dc\u05d5\u05dd"}) {
    EXPECT_EQ(neutralize_controls(text), text) << text;
    EXPECT_EQ(xml_escape(text), text) << text;
  }
}

TEST(XmlEscape, InvisibleCharactersAreWrittenOutInReports) {
  EXPECT_EQ(xml_escape("cp\u202e<b>"), "cp\\u202e&lt;b&gt;");
  EXPECT_EQ(xml_escape("size\u200b"), "size\\u200b");
}

TEST(Utf8, CodePointOfEachLength) {
  for (uint32_t cp : {0x41u, 0xE9u, 0x20ACu, 0x1F680u, 0xE0041u, 0x10FFFFu}) {
    std::string text;
    if (cp < 0x80) {
      text = std::string(1, char(cp));
    } else if (cp < 0x800) {
      text = {char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))};
    } else if (cp < 0x10000) {
      text = {char(0xE0 | (cp >> 12)), char(0x80 | ((cp >> 6) & 0x3F)), char(0x80 | (cp & 0x3F))};
    } else {
      text = {char(0xF0 | (cp >> 18)), char(0x80 | ((cp >> 12) & 0x3F)),
              char(0x80 | ((cp >> 6) & 0x3F)), char(0x80 | (cp & 0x3F))};
    }
    ASSERT_EQ(utf8_sequence_length(text, 0), text.size()) << cp;
    EXPECT_EQ(utf8_code_point(text, 0, text.size()), cp);
  }
}

TEST(EscapeChars, OnlyTheNamedCharactersChange) {
  EXPECT_EQ(escape_chars("a:b,c%", {{':', "%3A"}, {',', "%2C"}}), "a%3Ab%2Cc%");
  EXPECT_EQ(escape_chars("xyz", {}), "xyz");
  EXPECT_EQ(escape_chars("", {{'a', "b"}}), "");
  EXPECT_EQ(escape_chars("aa", {{'a', ""}}), "");  // an escape may drop its character
}

TEST(OneLine, LineBreaksAndTabsAreWrittenOut) {
  EXPECT_EQ(one_line("key\nresult: PASS"), "key\\nresult: PASS");
  EXPECT_EQ(one_line("a\r\nb\tc"), "a\\r\\nb\\tc");
  EXPECT_EQ(one_line("plain text, 50%"), "plain text, 50%");
  EXPECT_EQ(one_line(""), "");
}

struct EscapeCase {
  const char* name;
  std::string text;
  size_t length;  ///< terminal_escape_length at 0
};

TEST(TerminalEscapes, WholeSequencesOnlyAreMeasuredAndRemoved) {
  const EscapeCase cases[] = {
      {"underline", "\x1b[4mGPU0", 4},
      {"reset without parameters", "\x1b[m", 3},
      {"colour with parameters", "\x1b[1;32mok", 7},
      {"private parameter and intermediate", "\x1b[?25 q", 7},
      {"erase to end of line", "\x1b[K", 3},
      {"ESC without '['", "\x1bM", 0},
      {"unfinished", "\x1b[4", 0},
      {"broken by a control byte", "\x1b[4\x01m", 0},
      {"broken by a newline", "\x1b[4\nm", 0},
      {"not at an ESC", "[4m", 0},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(terminal_escape_length(c.text, 0), c.length) << c.name;
    const std::string kept = without_terminal_escapes(c.text);
    EXPECT_EQ(kept, c.text.substr(c.length)) << c.name;  // only at 0 in these cases
  }
  EXPECT_EQ(without_terminal_escapes("\tGPU0\x1b[0m\t\x1b[4mCPU\x1b[0m\n"), "\tGPU0\tCPU\n");
}

TEST(XmlEscape, InvalidUtf8AndControlsNeverReachTheXml) {
  EXPECT_EQ(xml_escape("<a & 'b'>"), "&lt;a &amp; &apos;b&apos;&gt;");
  EXPECT_EQ(xml_escape("bad\xFF\x01"), "bad\xEF\xBF\xBD?");
}

struct GibCase {
  double gib;
  const char* limit;   ///< format_limit_gib (nullptr: not a limit, which is never negative)
  const char* margin;  ///< format_margin_gib
};

TEST(MemoryFigures, LimitsToATenthAndMarginsNeverShowAZeroThatIsNot) {
  const std::vector<GibCase> cases = {
      {80, "80", "80.0"},      {94.6, "94.6", "94.6"},
      {79.96, "80", "80.0"},   // a tenth rounds up to a whole GiB: shown whole
      {0.04, "0.04", "<0.1"},  // a limit under 1 GiB keeps its digits, never "0"
      {0.05, "0.05", "0.1"},   {0.001, "0.001", "<0.1"},
      {0.25, "0.25", "0.2"},   {0.97, "0.97", "1.0"},
      {0, "0", "0.0"},         {-0.04, nullptr, "-<0.1"},  // an excess under 0.05 GiB: not "-0.0"
      {-0.3, nullptr, "-0.3"}, {570.14, "570.1", "570.1"},
  };
  for (const GibCase& c : cases) {
    if (c.limit != nullptr) {
      EXPECT_EQ(format_limit_gib(c.gib), c.limit) << c.gib;
    }
    EXPECT_EQ(format_margin_gib(c.gib), c.margin) << c.gib;
  }
}

TEST(Rates, WholeFrom100UpElseThreeSignificantDigitsNeverZero) {
  const std::vector<std::pair<double, const char*>> cases = {
      {400, "400"}, {2621.4, "2621"},     {100, "100"},     {99.96, "100"},   {12.5, "12.5"},
      {0.4, "0.4"}, {0.00645, "0.00645"}, {0.001, "0.001"}, {1e6, "1000000"},
  };
  for (const auto& [value, text] : cases)
    EXPECT_EQ(format_rate(value), text) << value;
}

TEST(Counted, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(counted(1, "GPU"), "1 GPU");
  EXPECT_EQ(counted(0, "layout"), "0 layouts");
  EXPECT_EQ(counted(32, "GPU"), "32 GPUs");
}

TEST(Percent, ThreeSignificantDigitsWithoutTrailingZeros) {
  const std::vector<std::pair<double, const char*>> cases = {
      {0.25, "25%"}, {0.125, "12.5%"}, {0.004, "0.4%"},    {0.0004, "0.04%"}, {0, "0%"},
      {1.0, "100%"}, {2.5, "250%"},    {0.33333, "33.3%"}, {-0.05, "-5%"},
  };
  for (const auto& [fraction, text] : cases)
    EXPECT_EQ(format_percent(fraction), text) << fraction;
}

TEST(Columns, PadLeavesOneSpaceAfterAWideValueAndCountsCodePoints) {
  struct Case {
    std::string text;
    size_t width;
    std::string padded;
  };
  const std::vector<Case> cases = {
      {"ab", 5, "ab   "},
      {"abcde", 5, "abcde "},                 // as wide as the column: one space still follows
      {"abcdefgh", 5, "abcdefgh "},           // wider: one space, never glued to the next column
      {"\u2588\u2588", 4, "\u2588\u2588  "},  // a bar of two 3-byte glyphs is 2 columns
      {"caf\u00e9", 6, "caf\u00e9  "},
      {"", 2, "  "},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(pad_column(c.text, c.width), c.padded) << c.text;
  }
  EXPECT_EQ(text_columns("\u2588\u2588\u2588"), 3u);
  EXPECT_EQ(text_columns("GPU H100-80GB (MosaicML platform)"), 33u);
}

TEST(Lists, JoinOrListAndHexByte) {
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({"a", "b", "c"}, "; "), "a; b; c");
  EXPECT_EQ(or_list({}), "");
  EXPECT_EQ(or_list({"p2p"}), "p2p");
  EXPECT_EQ(or_list({"p2p", "a2a"}), "p2p or a2a");
  EXPECT_EQ(or_list({"p2p", "all_gather", "a2a"}), "p2p, all_gather or a2a");
  EXPECT_EQ(hex_byte(0x00), "00");
  EXPECT_EQ(hex_byte(0x7f), "7f");
  EXPECT_EQ(hex_byte(0xfe, true), "FE");
}

}  // namespace
}  // namespace hcp
