// Small text helpers shared by the reports and the planner's explanations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace hcp {

/// Return `value` with exactly `digits` decimals ("%.*f").
std::string format_fixed(double value, int digits);

/// Return a count with its noun, singular for one: counted(1, "GPU") -> "1 GPU", counted(32,
/// "GPU") -> "32 GPUs".
std::string counted(int64_t n, const char* noun);

/// Return a fraction as a percentage with up to three significant digits and no trailing zeros:
/// 0.25 -> "25%", 0.125 -> "12.5%", 0.004 -> "0.4%"; 1 and more as whole percents ("150%").
std::string format_percent(double fraction);

/// Return bytes as GiB with one decimal ("62.9").
std::string format_gib(double bytes);

/// Return a memory limit in GiB as given to a tenth: "80", "94.6" (never rounded to a whole GiB,
/// so that "needs 94.7 of 94.6" does not read "of 95"); under 1 GiB with its first three
/// significant digits ("0.25", "0.001"), never "0".
std::string format_limit_gib(double gib);

/// Return a rate (TFLOP/s, GB/s, tokens/s) as a whole number from 100 up, else with up to three
/// significant digits: 400 -> "400", 12.5 -> "12.5", 0.4 -> "0.4"; never "0" for a rate above 0.
std::string format_rate(double value);

/// Return a memory margin in GiB (headroom, or an excess) with one decimal; a non-zero margin
/// under 0.05 GiB is "<0.1" (signed when negative: "-<0.1"), never "0.0" or "-0.0".
std::string format_margin_gib(double gib);

/// Terminal columns of UTF-8 text: one per code point (box-drawing bars and accented names take
/// one column each; wide CJK glyphs are not told apart).
size_t text_columns(std::string_view text);

/// `parts` with `sep` between them.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
/// "a", "a or b", "a, b or c".
std::string or_list(const std::vector<std::string>& parts);
/// The two hex digits of `byte` ("7f"; "7F" when `upper`).
std::string hex_byte(unsigned char byte, bool upper = false);

/// `text` left-aligned in a column `width` wide; a value as wide or wider keeps one space after
/// it, so that two columns never run together. A cell is one line: line breaks and tabs in it
/// (a device name from a capture) are written out (one_line).
std::string pad_column(std::string text, size_t width);

/// Return text with &, <, >, " and ' escaped for XML and HTML; the control characters XML
/// 1.0 does not allow (C0 other than tab, LF, CR) become '?', invalid UTF-8 becomes U+FFFD, and
/// invisible characters (invisible_character) are written out as \uXXXX.
std::string xml_escape(const std::string& text);

/// Byte offset of the first byte of `text` that does not begin a valid UTF-8 sequence
/// (overlong forms, surrogates and code points above U+10FFFF are invalid), or npos.
size_t first_invalid_utf8(std::string_view text);

/// Length in bytes of the valid UTF-8 sequence starting at `text[at]`, or 0 when none does.
size_t utf8_sequence_length(std::string_view text, size_t at);

/// `text` with each invalid UTF-8 byte replaced by U+FFFD.
std::string replace_invalid_utf8(std::string_view text);

/// At most `max_bytes` of `text`, cut at a UTF-8 character boundary (never inside a character).
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);

/// `text` safe to print on a terminal: control characters other than LF and tab (ESC, BEL, CR,
/// C1 controls, DEL) are written as \xNN, invalid UTF-8 as U+FFFD, and the characters that show
/// nothing or reorder what follows (invisible_character) as \uXXXX or \UXXXXXXXX. With
/// `keep_colour`, colour codes (ESC [ digits;digits m) pass unchanged: they change colours only,
/// never the cursor.
std::string neutralize_controls(std::string_view text, bool keep_colour = false);

/// True for a code point that prints nothing visible or changes how the text around it is shown:
/// bidirectional embeddings, overrides, isolates and marks (the "Trojan Source" characters,
/// CVE-2021-42574), zero-width spaces and joiners, the byte-order mark, the soft hyphen, the line
/// and paragraph separators, invisible operators, interlinear annotation marks and the tag
/// characters (U+E0000..U+E007F). A key spelled with one looks like the real key in a message.
bool invisible_character(uint32_t cp);

/// "U+0430": a code point as Unicode names it, at least four hex digits.
std::string code_point_name(uint32_t cp);

/// The code point of the valid UTF-8 sequence of `length` bytes at text[at] (utf8_sequence_length).
uint32_t utf8_code_point(std::string_view text, size_t at, size_t length);

/// A character and what it is written as.
struct CharEscape {
  char c;
  std::string_view as;
};

/// `text` with each character that `escapes` names written as it says; the others as they are.
std::string escape_chars(std::string_view text, std::initializer_list<CharEscape> escapes);

/// `text` on one line: each line break (LF, CR) and tab written as \n, \r or \t. A finding or an
/// error is one line whatever it quotes (a YAML key, a command-line value), so quoted text cannot
/// add lines that read as the tool's own ("result: PASS").
std::string one_line(std::string_view text);

/// Length in bytes of the terminal control sequence starting at `text[at]` (ECMA-48 CSI: ESC '[',
/// parameter bytes 0x30-0x3F, intermediate bytes 0x20-0x2F, a final byte 0x40-0x7E), or 0 when
/// no complete one starts there.
size_t terminal_escape_length(std::string_view text, size_t at);

/// `text` without its terminal control sequences (terminal_escape_length); an ESC that starts no
/// complete sequence is kept.
std::string without_terminal_escapes(std::string_view text);

/// The width text reports fit by default (`--wide` turns wrapping off).
inline constexpr size_t kTextWidth = 100;

/// Wrap every line of `text` longer than `width` columns at spaces. Continuation lines are
/// indented to the last column of a table row (the text after the line's last run of two or more
/// spaces, when that starts before width - 30), else to the line's own indentation plus four.
/// A word longer than the room left stays whole. width 0 returns `text` unchanged.
std::string wrap_text(const std::string& text, size_t width = kTextWidth);

}  // namespace hcp
