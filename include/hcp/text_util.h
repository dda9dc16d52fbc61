// Small text helpers shared by the reports and the planner's explanations.
#pragma once

#include <cstddef>
#include <string>

namespace hcp {

/// Return `value` with exactly `digits` decimals ("%.*f").
std::string format_fixed(double value, int digits);

/// Return bytes as GiB with one decimal ("62.9").
std::string format_gib(double bytes);

/// Return text with &, <, >, " and ' escaped for XML and HTML.
std::string xml_escape(const std::string& text);

/// The width text reports fit by default (`--wide` turns wrapping off).
inline constexpr size_t kTextWidth = 100;

/// Wrap every line of `text` longer than `width` columns at spaces. Continuation lines are
/// indented to the last column of a table row (the text after the line's last run of two or more
/// spaces, when that starts before width - 30), else to the line's own indentation plus four.
/// A word longer than the room left stays whole. width 0 returns `text` unchanged.
std::string wrap_text(const std::string& text, size_t width = kTextWidth);

}  // namespace hcp
