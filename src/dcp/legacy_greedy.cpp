// The older bucketed greedy schedulers (dynamic_cp.md §3-4): Megatron-LM main's
// BalancedCPScheduler.next_hdp_group (no token cap, trim_overload on) and dev as merged by PR
// #2000 (per-rank token cap m, trim_overload off). Upstream quirks that change decisions are kept
// (bucket rule double count, prev_needed set once, trimmed samples appended unsorted); the review
// bugs are not (the fill checks that the growth fits and reports it instead of overwriting).
// Upstream scans every group for every sample; here GroupTrees over the groups give the least
// loaded group of a size, the spread and the most loaded group in logarithmic time, and the idle
// ranks are filled one group size at a time, so a pool of a million ranks does not make each
// micro-batch cost its samples times its groups (or its groups times the idle ranks).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
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
  size_t slot = 0;  // position in the tree of its size
  std::vector<int64_t> ids;
  std::vector<int64_t> lengths;
};

/// A sample's work L^2 / c scaled by 2^30 (c is a power of two <= 2^30): an exact integer, so sums
/// over any range are exact whatever the order. Upstream sums floats left to right; both agree
/// except where a sum lands within rounding of the bucket threshold.
using Work = unsigned __int128;
constexpr int kWorkScaleLog2 = 30;

Work scaled_work(int64_t length, int cp) {
  const Work square = static_cast<Work>(length) * static_cast<Work>(length);
  return (square << kWorkScaleLog2) / static_cast<Work>(cp);
}

double unscaled(Work work) {
  return std::ldexp(static_cast<double>(work), -kWorkScaleLog2);
}

/// A Fenwick tree over positions that grows at the end: prefix sums and the first position whose
/// prefix exceeds a value, each in O(log n).
template <typename T>
class GrowingFenwick {
 public:
  explicit GrowingFenwick(const std::vector<T>& values) : tree_(values.size() + 1, T{}) {
    for (size_t i = 1; i <= values.size(); ++i) {
      tree_[i] += values[i - 1];
      const size_t parent = i + (i & (~i + 1));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
    }
  }
  size_t size() const { return tree_.size() - 1; }
  /// Add `delta` at `position` (0-based). Unsigned T wraps, so a removal adds the negation.
  void add(size_t position, T delta) {
    for (size_t i = position + 1; i < tree_.size(); i += i & (~i + 1))
      tree_[i] += delta;
  }
  /// Append `value` as a new last position.
  void push_back(T value) {
    const size_t i = tree_.size();
    const size_t low = i & (~i + 1);
    tree_.push_back(value + prefix(i - 1) - prefix(i - low));
  }
  /// Sum of positions [0, end).
  T prefix(size_t end) const {
    T sum{};
    for (size_t i = end; i > 0; i -= i & (~i + 1))
      sum += tree_[i];
    return sum;
  }
  /// The first position whose prefix sum (itself included) exceeds `limit`, or size().
  size_t first_exceeding(T limit) const {
    size_t at = 0;  // the largest 1-based index with prefix(at) <= limit so far
    for (size_t step = std::bit_floor(size()); step > 0; step /= 2) {
      if (at + step < tree_.size() && tree_[at + step] <= limit) {
        at += step;
        limit -= tree_[at];
      }
    }
    return at;
  }

 private:
  std::vector<T> tree_;  // 1-based
};

/// The leftover samples of one step in upstream's list order: longest first, the placed ones
/// removed, each micro-batch's trimmed ones appended at the end. Counts and exact work over
/// positions make every query a micro-batch needs O(log n), so a step costs near n log n, not
/// the n^2 of re-bucketing the whole list for every micro-batch.
class LeftoverList {
 public:
  LeftoverList(std::vector<Sample> sorted, int64_t m, int min_cp)
      : samples_(std::move(sorted)),
        m_(m),
        min_cp_(min_cp),
        present_(samples_.size()),
        counts_(std::vector<int64_t>(samples_.size(), 1)),
        work_(works_of(samples_)) {
    for (const Sample& s : samples_) {
      ++sizes_[size_index(s.length)];
      total_ += scaled_work(s.length, need(s.length));
    }
  }

  size_t size() const { return present_; }
  bool empty() const { return present_ == 0; }
  /// The number of positions, present or not (one past the last).
  size_t end() const { return samples_.size(); }
  const Sample& at(size_t position) const { return samples_[position]; }
  /// The first present position >= `position`, or end().
  size_t next_present(size_t position) const { return nth_present(rank_of(position)); }
  /// The position of the present sample with `rank` present samples before it, or end().
  size_t nth_present(size_t rank) const {
    return rank >= present_ ? end() : counts_.first_exceeding(static_cast<int64_t>(rank));
  }
  /// The number of present samples before `position`.
  size_t rank_of(size_t position) const { return static_cast<size_t>(counts_.prefix(position)); }

  /// The number of distinct CP sizes among the present samples.
  int64_t distinct_sizes() const {
    return std::count_if(sizes_.begin(), sizes_.end(), [](int64_t n) { return n > 0; });
  }
  Work total_work() const { return total_; }
  /// Exact work of the present samples before `position`.
  Work work_before(size_t position) const { return work_.prefix(position); }
  /// The first position whose work prefix exceeds `limit` (a present one), or end().
  size_t first_work_exceeding(Work limit) const { return work_.first_exceeding(limit); }

  void remove(size_t position) {
    const Sample& s = samples_[position];
    const Work w = scaled_work(s.length, need(s.length));
    counts_.add(position, -1);
    work_.add(position, Work{0} - w);
    total_ -= w;
    --sizes_[size_index(s.length)];
    --present_;
  }

  void append(const Sample& s) {
    const Work w = scaled_work(s.length, need(s.length));
    samples_.push_back(s);
    counts_.push_back(1);
    work_.push_back(w);
    total_ += w;
    ++sizes_[size_index(s.length)];
    ++present_;
  }

  int need(int64_t length) const { return cp_size_needed(length, m_, min_cp_); }
  int64_t m() const { return m_; }

 private:
  std::vector<Work> works_of(const std::vector<Sample>& samples) const {
    std::vector<Work> out;
    out.reserve(samples.size());
    for (const Sample& s : samples)
      out.push_back(scaled_work(s.length, need(s.length)));
    return out;
  }
  size_t size_index(int64_t length) const {
    return static_cast<size_t>(std::countr_zero(static_cast<unsigned>(need(length))));
  }

  std::vector<Sample> samples_;
  int64_t m_;
  int min_cp_;
  size_t present_;
  GrowingFenwick<int64_t> counts_;
  GrowingFenwick<Work> work_;
  Work total_ = 0;
  std::array<int64_t, 32> sizes_{};  // present samples per log2(CP size)
};

/// One bucket: the present samples of positions [begin, end) of the leftover list.
struct Bucket {
  size_t begin = 0;
  size_t end = 0;
};

/// dcp_make_buckets_equal over the leftover list: one bucket per distinct CP size, by roughly
/// equal work. A bucket closes before the sample that takes its work over 1.1x the target, or
/// when only as many samples remain as buckets are still owed; both boundaries are found by search,
/// so the cost is O(buckets x log n), not a pass over the list.
std::vector<Bucket> make_buckets(const LeftoverList& list) {
  const int64_t k = list.distinct_sizes();
  const double target = unscaled(list.total_work()) / static_cast<double>(k);
  const Work limit = static_cast<Work>(std::ldexp(target * kBucketOverfill, kWorkScaleLog2));
  const int64_t n = static_cast<int64_t>(list.size());
  std::vector<Bucket> buckets;
  int64_t remaining_k = k;
  int64_t first = 0;  // rank of the bucket's first sample
  while (first < n) {
    const size_t begin = list.nth_present(static_cast<size_t>(first));
    // Over the target: the first sample (after the first) at which the bucket's work exceeds it.
    size_t over = list.first_work_exceeding(list.work_before(begin) + limit);
    int64_t close = over >= list.end()
                        ? n
                        : std::max<int64_t>(first + 1, static_cast<int64_t>(list.rank_of(over)));
    // Upstream quirk kept: remaining_k shrinks *and* the bucket count grows on every close, and
    // a bucket closes once n - i <= remaining_k - buckets.
    const int64_t owed = remaining_k - static_cast<int64_t>(buckets.size());
    if (owed >= 1) close = std::min(close, std::max(first + 1, n - owed));
    buckets.push_back(Bucket{begin, list.nth_present(static_cast<size_t>(close))});
    --remaining_k;
    first = close;
  }
  return buckets;
}

class LegacyGrouper {
 public:
  LegacyGrouper(LeftoverList& list, int ranks, bool packing_cap)
      : list_(list), ranks_(ranks), m_(list.m()), packing_cap_(packing_cap) {}

  /// One micro-batch: its samples leave the list, trimmed ones are appended to it.
  Result<MicroBatch> run() {
    std::vector<Bucket> buckets = make_buckets(list_);
    greedy(buckets);
    if (!packing_cap_) trim_overload();
    if (groups_.empty()) return nothing_placed();
    if (Status filled = fill_idle_ranks(); !filled.ok()) return filled.error();
    MicroBatch mb;
    for (const Group& g : groups_)
      mb.groups.push_back(CpGroup{g.first_rank, g.size, g.ids});
    return mb;
  }

 private:
  int need(int64_t length) const { return list_.need(length); }

  /// The first present position of bucket `b`, or its end when it is empty.
  size_t head(const Bucket& b) const { return std::min(list_.next_present(b.begin), b.end); }
  bool bucket_empty(const Bucket& b) const { return head(b) >= b.end; }

  bool has_group_of(int size) const { return by_size_[size_index(size)].size() > 0; }
  static size_t size_index(int size) {
    return static_cast<size_t>(std::countr_zero(static_cast<unsigned>(size)));
  }

  /// Index of the first bucket (in order) whose head can go somewhere, or -1.
  int pick_bucket(const std::vector<Bucket>& buckets) const {
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (bucket_empty(buckets[b])) continue;
      const int cp = need(list_.at(head(buckets[b])).length);
      if (has_group_of(cp) || ranks_ - covered_ >= cp) return static_cast<int>(b);
    }
    return -1;
  }

  /// The same-size group with room and the smallest load (first on ties), or -1.
  int best_existing_group(int64_t length, int cp) const {
    const double tokens = tokens_per_rank(length, cp);
    const auto has_room = [&](double packed) {
      return !packing_cap_ || !(packed + tokens > static_cast<double>(m_));
    };
    return by_size_[size_index(cp)].first_least(has_room, [](double work) { return work; });
  }

  /// Whether the most and least loaded groups are within 5% (idle ranks count as load 0).
  bool spread_ok() const {
    const double hi = std::max(0.0, all_.most_work());
    const double lo = std::min(covered_ < ranks_ ? 0.0 : std::numeric_limits<double>::infinity(),
                               all_.least_work());
    return hi - lo <= kBalanceDelta * hi;
  }

  void set_work(Group& g, double work) {
    g.work = work;
    by_size_[size_index(g.size)].set(g.slot, g.packed, g.work);
    all_.set(static_cast<size_t>(&g - groups_.data()), g.packed, g.work);
  }

  void greedy(std::vector<Bucket>& buckets) {
    int first_needed = 0;
    bool check_balance = false;
    while (!buckets.empty()) {
      const int b = pick_bucket(buckets);
      if (b < 0) break;
      const size_t position = head(buckets[b]);
      const Sample sample = list_.at(position);
      const int cp = need(sample.length);
      if (first_needed == 0) first_needed = cp;  // upstream quirk: never updated
      int target = -1;
      if (ranks_ - covered_ >= cp) {
        target = open_group(cp);  // free ranks carry no load, so they always win
      } else {
        target = best_existing_group(sample.length, cp);
        if (target < 0) break;  // PR #2000: no group with room and no free ranks: close it
      }
      Group& g = groups_[target];
      if (packing_cap_) g.packed += tokens_per_rank(sample.length, cp);
      set_work(g, g.work + workload(sample.length, cp));
      g.ids.push_back(sample.id);
      g.lengths.push_back(sample.length);
      list_.remove(position);
      while (!buckets.empty() && bucket_empty(buckets.front()))
        buckets.erase(buckets.begin());
      if (cp < first_needed) check_balance = true;
      if (check_balance && !buckets.empty() && spread_ok()) break;
    }
  }

  int open_group(int cp) {
    Group g;
    g.first_rank = covered_;
    g.size = cp;
    g.slot = by_size_[size_index(cp)].push_back(static_cast<int>(groups_.size()), 0, 0);
    all_.push_back(static_cast<int>(groups_.size()), 0, 0);
    groups_.push_back(std::move(g));
    covered_ += cp;
    return static_cast<int>(groups_.size()) - 1;
  }

  /// trim_overload (main only): pop the last sample of the most loaded group while that narrows
  /// the max-min spread.
  void trim_overload() {
    while (covered_ == ranks_ && !groups_.empty()) {
      // Upstream's scan starts from a maximum of -1 and keeps the first group above it.
      const double hi = std::max(-1.0, all_.most_work());
      const double lo = all_.least_work();
      const double slack = hi - lo;
      if (slack <= kBalanceDelta * hi || lo == 0) break;
      Group& g = groups_[hi > -1 ? all_.first_with_most_work() : 0];
      if (g.ids.size() <= 1) break;
      const int64_t length = g.lengths.back();
      const double cost = workload(length, need(length));
      const double before = g.work;
      set_work(g, before - cost);  // the spread as it would be without the sample
      if (!(all_.most_work() - all_.least_work() < slack)) {
        set_work(g, before);
        break;
      }
      list_.append(Sample{g.ids.back(), length});
      g.ids.pop_back();
      g.lengths.pop_back();
    }
  }

  /// fill_empty_gpus until no rank is idle (double_smallest_groups).
  Status fill_idle_ranks() {
    Status status = Ok{};
    double_smallest_groups(groups_, ranks_, covered_, [&](Group& g, int grown) {
      status = grow_group(g, grown);
      return status.ok();
    });
    return status;
  }

  /// One round of fill_empty_gpus: grow `g`, the first group of the smallest size, to `grown`.
  Status grow_group(Group& g, int grown) {
    const int extra = grown - g.size;
    const int end = g.first_rank + g.size - 1;
    if (covered_ - 1 + extra >= ranks_ || extra == 0) {
      return make_error("sample " + std::to_string(g.ids.front()) + ": cannot fill " +
                        std::to_string(ranks_ - covered_) + " idle rank(s) by growing the CP-" +
                        std::to_string(g.size) + " group at ranks " + std::to_string(g.first_rank) +
                        "-" + std::to_string(end) + " to " + std::to_string(grown) +
                        " (upstream IndexError in fill_empty_gpus; DP×CP = " +
                        std::to_string(ranks_) + " is not a power of two)");
    }
    g.size = grown;
    covered_ += extra;
    return Ok{};
  }

  Error nothing_placed() const {
    for (size_t p = list_.next_present(0); p < list_.end(); p = list_.next_present(p + 1)) {
      const Sample& s = list_.at(p);
      if (need(s.length) > ranks_) return too_long_error(s, need(s.length), ranks_);
    }
    return make_error(describe(list_.at(list_.next_present(0))) +
                      ": no sequence could be placed in a micro-batch; raise "
                      "--max-seqlen-per-dp-cp-rank");
  }

  LeftoverList& list_;
  int ranks_;
  int64_t m_;
  bool packing_cap_;
  int covered_ = 0;
  std::vector<Group> groups_;
  std::array<GroupTree, 32> by_size_;  // [log2 size] -> the groups of that size in opening order
  GroupTree all_;                      // every group, slot = index in groups_
};

}  // namespace

Result<std::vector<MicroBatch>> schedule_bucketed(std::span<const Sample> samples, int ranks,
                                                  int64_t max_seqlen_per_rank, int min_cp,
                                                  bool packing_cap) {
  LeftoverList list(sorted_longest_first(samples), max_seqlen_per_rank, min_cp);
  std::vector<MicroBatch> mbs;
  while (!list.empty()) {
    const size_t before = list.size();
    LegacyGrouper grouper(list, ranks, packing_cap);
    Result<MicroBatch> mb = grouper.run();
    if (!mb.ok()) return mb.error();
    if (list.size() >= before) {  // never loop: every micro-batch must place something
      return make_error(describe(list.at(list.next_present(0))) +
                        " cannot be placed in any micro-batch");
    }
    mbs.push_back(std::move(*mb));
  }
  return mbs;
}

}  // namespace hcp::dcp::internal
