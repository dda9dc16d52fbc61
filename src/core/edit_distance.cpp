#include "hcp/edit_distance.h"

#include <algorithm>

namespace hcp {

int edit_distance(std::string_view a, std::string_view b, int max_distance) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    int best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j - 1] + 1, above + 1, substitute});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (max_distance > 0 && best > max_distance) return max_distance + 1;
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  int limit = std::max(2, static_cast<int>(word.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const auto& c : candidates) {
    int d = edit_distance(word, c, limit);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace hcp
