// Small text helpers shared by the reports and the planner's explanations.
#pragma once

#include <string>

namespace hcp {

/// Return `value` with exactly `digits` decimals ("%.*f").
std::string format_fixed(double value, int digits);

/// Return bytes as GiB with one decimal ("62.9").
std::string format_gib(double bytes);

/// Return text with &, <, >, " and ' escaped for XML and HTML.
std::string xml_escape(const std::string& text);

}  // namespace hcp
