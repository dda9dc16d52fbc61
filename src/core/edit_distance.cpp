#include "hcp/edit_distance.h"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "hcp/text_util.h"

namespace hcp {

int edit_distance(std::string_view a, std::string_view b, int max_distance) {
  // The lengths' difference is a lower bound of the distance.
  int length_gap = std::abs(static_cast<int>(a.size()) - static_cast<int>(b.size()));
  if (max_distance > 0 && length_gap > max_distance) return max_distance + 1;
  // One row of the table; on the stack for the short words every caller has (a did-you-mean
  // runs over every schema field for each unknown key: no allocation per candidate).
  std::array<int, 128> small{};
  std::vector<int> large;
  int* row = small.data();
  if (b.size() + 1 > small.size()) {
    large.resize(b.size() + 1);
    row = large.data();
  }
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    int best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      int cell = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      if (row[j - 1] + 1 < cell) cell = row[j - 1] + 1;
      if (above + 1 < cell) cell = above + 1;
      row[j] = cell;
      diagonal = above;
      if (cell < best) best = cell;
    }
    if (max_distance > 0 && best > max_distance) return max_distance + 1;
  }
  return row[b.size()];
}

namespace {

/// `word` with each character outside ASCII as one byte 0x80: distances count characters, so a
/// Cyrillic 'О' for 'O' is one substitution, not two (its two UTF-8 bytes), and a name typed
/// with look-alikes still finds the real one.
std::string one_byte_per_character(std::string_view word) {
  std::string out;
  out.reserve(word.size());
  for (size_t at = 0; at < word.size();) {
    const size_t length = std::max<size_t>(1, utf8_sequence_length(word, at));
    out += length == 1 ? word[at] : '\x80';
    at += length;
  }
  return out;
}

}  // namespace

std::string closest_match(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string folded = one_byte_per_character(typed);
  const std::string_view word = folded;
  int limit = std::max(2, static_cast<int>(word.size()) / 3);
  // The word's letters, for a linear lower bound of each distance (the bag distance: letters of
  // one that the other lacks, the larger side), which rejects most candidates without the
  // quadratic table.
  std::array<int, 256> letters{};
  for (char ch : word)
    ++letters[static_cast<unsigned char>(ch)];
  const std::string* best = nullptr;
  int best_distance = limit + 1;
  for (const auto& c : candidates) {
    // Only a candidate strictly closer than the best so far can replace it (the first of equals
    // wins), so the search bound shrinks as better candidates are found.
    int bound = best_distance - 1;
    int missing = 0;
    for (char ch : c)
      if (--letters[static_cast<unsigned char>(ch)] < 0) ++missing;
    for (char ch : c)
      ++letters[static_cast<unsigned char>(ch)];
    int surplus = static_cast<int>(word.size()) - (static_cast<int>(c.size()) - missing);
    if (std::max(missing, surplus) > bound) continue;
    int d = 0;
    if (bound == 0) {
      d = c == word ? 0 : 1;
    } else {
      d = edit_distance(word, c, bound);
    }
    if (d < best_distance) {
      best_distance = d;
      best = &c;
      if (d == 0) break;
    }
  }
  return best ? *best : std::string();
}

std::string first_non_ascii(std::string_view text) {
  size_t character = 1;
  for (size_t at = 0; at < text.size(); ++character) {
    const size_t length = std::max<size_t>(1, utf8_sequence_length(text, at));
    if (static_cast<unsigned char>(text[at]) >= 0x80) {
      const uint32_t cp = length > 1 ? utf8_code_point(text, at, length) : 0xFFFD;
      return "character " + std::to_string(character) + " of it is " + code_point_name(cp) +
             ", not ASCII";
    }
    at += length;
  }
  return "";
}

std::string did_you_mean(std::string_view word, const std::string& suggestion) {
  if (suggestion.empty()) return "";
  std::string note = " (did you mean '" + suggestion + "'?";
  if (first_non_ascii(suggestion).empty()) {
    if (std::string which = first_non_ascii(word); !which.empty()) note += " " + which;
  }
  return note + ")";
}

}  // namespace hcp
