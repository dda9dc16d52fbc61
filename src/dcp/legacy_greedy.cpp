// The older bucketed greedy schedulers (dynamic_cp.md §3-4): Megatron-LM main's
// BalancedCPScheduler.next_hdp_group (no token cap, trim_overload on) and dev as merged by PR
// #2000 (per-rank token cap m, trim_overload off). Upstream quirks that change decisions are kept
// (bucket rule double count, prev_needed set once, trimmed samples appended unsorted); the review
// bugs are not (the fill checks that the growth fits and reports it instead of overwriting).
#include <algorithm>
#include <deque>
#include <limits>

#include "schedule_internal.h"

namespace hcp::dcp::internal {
namespace {

constexpr double kBalanceDelta = 0.05;
constexpr double kBucketOverfill = 1.1;

struct Group {
  int first_rank = 0;
  int size = 0;
  double work = 0;
  double packed = 0;
  std::vector<int64_t> ids;
  std::vector<int64_t> lengths;
};

using Bucket = std::deque<Sample>;

/// dcp_make_buckets_equal: one bucket per distinct CP size, by roughly equal work.
std::vector<Bucket> make_buckets(std::span<const Sample> samples, int64_t m, int min_cp) {
  std::vector<int> sizes;
  double total = 0;
  for (const Sample& s : samples) {
    const int cp = cp_size_needed(s.length, m, min_cp);
    if (std::find(sizes.begin(), sizes.end(), cp) == sizes.end()) sizes.push_back(cp);
    total += workload(s.length, cp);
  }
  const int64_t k = static_cast<int64_t>(sizes.size());
  const double target = total / static_cast<double>(k);
  std::vector<Bucket> buckets;
  Bucket current;
  double current_work = 0;
  int64_t remaining_k = k;
  const int64_t n = static_cast<int64_t>(samples.size());
  for (int64_t i = 0; i < n; ++i) {
    const Sample& s = samples[i];
    const double w = workload(s.length, cp_size_needed(s.length, m, min_cp));
    const bool over_target = current_work + w > target * kBucketOverfill;
    // Upstream quirk kept: remaining_k shrinks *and* the bucket count grows on every close.
    const bool reserve = n - i <= remaining_k - static_cast<int64_t>(buckets.size());
    if (!current.empty() && (over_target || reserve)) {
      buckets.push_back(std::move(current));
      current = Bucket{};
      current_work = 0;
      --remaining_k;
    }
    current.push_back(s);
    current_work += w;
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  return buckets;
}

class LegacyGrouper {
 public:
  LegacyGrouper(int ranks, int64_t m, int min_cp, bool packing_cap)
      : ranks_(ranks), m_(m), min_cp_(min_cp), packing_cap_(packing_cap) {}

  Result<GroupingResult> run(std::span<const Sample> samples) {
    std::vector<Bucket> buckets = make_buckets(samples, m_, min_cp_);
    greedy(buckets);
    GroupingResult result;
    for (const Bucket& b : buckets)
      result.leftovers.insert(result.leftovers.end(), b.begin(), b.end());
    if (!packing_cap_) trim_overload(result.leftovers);
    if (groups_.empty()) return nothing_placed(samples);
    while (covered_ < ranks_) {
      if (Status grown = grow_smallest_group(); !grown.ok()) return grown.error();
    }
    for (const Group& g : groups_) {
      result.microbatch.groups.push_back(CpGroup{g.first_rank, g.size, g.ids});
    }
    return result;
  }

 private:
  int need(int64_t length) const { return cp_size_needed(length, m_, min_cp_); }

  bool has_group_of(int size) const {
    return std::any_of(groups_.begin(), groups_.end(),
                       [&](const Group& g) { return g.size == size; });
  }

  /// Index of the first bucket (in order) whose head can go somewhere, or -1.
  int pick_bucket(const std::vector<Bucket>& buckets) const {
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (buckets[b].empty()) continue;
      const int cp = need(buckets[b].front().length);
      if (has_group_of(cp) || ranks_ - covered_ >= cp) return static_cast<int>(b);
    }
    return -1;
  }

  /// The same-size group with room and the smallest load (first on ties), or -1.
  int best_existing_group(int64_t length, int cp) const {
    int best = -1;
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].size != cp) continue;
      if (packing_cap_ &&
          groups_[g].packed + tokens_per_rank(length, cp) > static_cast<double>(m_)) {
        continue;
      }
      if (best < 0 || groups_[g].work < groups_[best].work) best = static_cast<int>(g);
    }
    return best;
  }

  bool spread_ok() const {
    double hi = 0;
    double lo = covered_ < ranks_ ? 0.0 : std::numeric_limits<double>::infinity();
    for (const Group& g : groups_) {
      hi = std::max(hi, g.work);
      lo = std::min(lo, g.work);
    }
    return hi - lo <= kBalanceDelta * hi;
  }

  void greedy(std::vector<Bucket>& buckets) {
    int first_needed = 0;
    bool check_balance = false;
    while (!buckets.empty()) {
      const int b = pick_bucket(buckets);
      if (b < 0) break;
      const Sample sample = buckets[b].front();
      const int cp = need(sample.length);
      if (first_needed == 0) first_needed = cp;  // upstream quirk: never updated
      int target = best_existing_group(sample.length, cp);
      if (ranks_ - covered_ >= cp) {
        target = open_group(cp);  // free ranks carry no load, so they always win
      } else if (target < 0) {
        break;  // PR #2000: no group with room and no free ranks: close the micro-batch
      }
      Group& g = groups_[target];
      g.work += workload(sample.length, cp);
      if (packing_cap_) g.packed += tokens_per_rank(sample.length, cp);
      g.ids.push_back(sample.id);
      g.lengths.push_back(sample.length);
      buckets[b].pop_front();
      while (!buckets.empty() && buckets.front().empty())
        buckets.erase(buckets.begin());
      if (cp < first_needed) check_balance = true;
      if (check_balance && !buckets.empty() && spread_ok()) break;
    }
  }

  int open_group(int cp) {
    Group g;
    g.first_rank = covered_;
    g.size = cp;
    groups_.push_back(std::move(g));
    covered_ += cp;
    return static_cast<int>(groups_.size()) - 1;
  }

  /// trim_overload (main only): pop the last sample of the most loaded group while that narrows
  /// the max-min spread.
  void trim_overload(std::vector<Sample>& leftovers) {
    while (covered_ == ranks_ && !groups_.empty()) {
      double hi = -1;
      double lo = std::numeric_limits<double>::infinity();
      size_t top = 0;
      for (size_t g = 0; g < groups_.size(); ++g) {
        if (groups_[g].work > hi) {
          hi = groups_[g].work;
          top = g;
        }
        lo = std::min(lo, groups_[g].work);
      }
      const double slack = hi - lo;
      if (slack <= kBalanceDelta * hi || lo == 0) break;
      Group& g = groups_[top];
      if (g.ids.size() <= 1) break;
      const int64_t length = g.lengths.back();
      const double cost = workload(length, need(length));
      double new_hi = -std::numeric_limits<double>::infinity();
      double new_lo = std::numeric_limits<double>::infinity();
      for (size_t o = 0; o < groups_.size(); ++o) {
        const double w = o == top ? groups_[o].work - cost : groups_[o].work;
        new_hi = std::max(new_hi, w);
        new_lo = std::min(new_lo, w);
      }
      if (!(new_hi - new_lo < slack)) break;
      leftovers.push_back(Sample{g.ids.back(), length});
      g.ids.pop_back();
      g.lengths.pop_back();
      g.work -= cost;
    }
  }

  /// fill_empty_gpus: double the first smallest group; later groups move right.
  Status grow_smallest_group() {
    int min_size = ranks_;
    for (const Group& g : groups_)
      min_size = std::min(min_size, g.size);
    const int grown = std::min(2 * min_size, ranks_);
    const int extra = grown - min_size;
    auto it = std::find_if(groups_.begin(), groups_.end(),
                           [&](const Group& g) { return g.size == min_size; });
    const int end = it->first_rank + it->size - 1;
    if (covered_ - 1 + extra >= ranks_ || extra == 0) {
      return make_error(
          "sample " + std::to_string(it->ids.front()) + ": cannot fill " +
          std::to_string(ranks_ - covered_) + " idle rank(s) by growing the CP-" +
          std::to_string(min_size) + " group at ranks " + std::to_string(it->first_rank) + "-" +
          std::to_string(end) + " to " + std::to_string(grown) +
          " (upstream IndexError in fill_empty_gpus; DP×CP = " + std::to_string(ranks_) +
          " is not a power of two)");
    }
    for (Group& g : groups_) {
      if (g.first_rank > end) g.first_rank += extra;
    }
    it->size = grown;
    covered_ += extra;
    return Ok{};
  }

  Error nothing_placed(std::span<const Sample> samples) const {
    for (const Sample& s : samples) {
      if (need(s.length) > ranks_) return too_long_error(s, need(s.length), ranks_);
    }
    return make_error(describe(samples.front()) +
                      ": no sequence could be placed in a micro-batch; raise "
                      "--max-seqlen-per-dp-cp-rank");
  }

  int ranks_;
  int64_t m_;
  int min_cp_;
  bool packing_cap_;
  int covered_ = 0;
  std::vector<Group> groups_;
};

}  // namespace

Result<GroupingResult> next_group_legacy(std::span<const Sample> samples, int ranks,
                                         int64_t max_seqlen_per_rank, int min_cp,
                                         bool packing_cap) {
  if (samples.empty()) return GroupingResult{};
  LegacyGrouper grouper(ranks, max_seqlen_per_rank, min_cp, packing_cap);
  return grouper.run(samples);
}

}  // namespace hcp::dcp::internal
