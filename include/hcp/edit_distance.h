// Did-you-mean suggestions for unknown keys, rule IDs and recipe names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hcp {

/// Return the Levenshtein distance between a and b, giving up (returning max_distance + 1)
/// once it exceeds max_distance; max_distance 0 means no limit.
int edit_distance(std::string_view a, std::string_view b, int max_distance = 0);

/// Return the candidate closest to word within a distance that scales with its length, or
/// an empty string when nothing is close enough.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hcp
