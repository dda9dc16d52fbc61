// Did-you-mean suggestions for unknown keys, rule IDs and recipe names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hcp {

/// Return the Levenshtein distance between a and b, giving up (returning max_distance + 1)
/// once it exceeds max_distance; max_distance 0 means no limit.
int edit_distance(std::string_view a, std::string_view b, int max_distance = 0);

/// Return the candidate closest to `typed` within a distance that scales with its length, or
/// an empty string when nothing is close enough. The distance counts characters of `typed`, not
/// bytes: a look-alike letter from another script is one substitution.
std::string closest_match(std::string_view typed, const std::vector<std::string>& candidates);

/// "character 10 of it is U+0430, not ASCII" for the first character of `text` outside ASCII
/// (U+FFFD for a byte that starts no UTF-8 sequence); "" when `text` is ASCII.
std::string first_non_ascii(std::string_view text);

/// " (did you mean 'S'?)" for the suggestion S of `word`, "" when S is empty. When `word` has a
/// character outside ASCII and S has none (a Cyrillic 'а' for 'a', a zero-width space, a
/// full-width digit), the note names the first one, which the eye cannot tell apart:
/// " (did you mean 'S'? character 15 of it is U+0430, not ASCII)".
std::string did_you_mean(std::string_view word, const std::string& suggestion);

}  // namespace hcp
