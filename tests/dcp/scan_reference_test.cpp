// The indexed schedulers against a plain transcription of upstream's loops: every sample scans
// every group, the idle ranks are filled one doubling at a time, the leftovers are re-bucketed
// from a list. The library finds the same groups through GroupTree, fills a group size per pass and
// keeps the leftovers in a pool; on random pools of a few hundred samples both must build the same
// micro-batches (and fail on the same inputs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <set>

#include "../../src/dcp/schedule_internal.h"
#include "hcp/dcp.h"

namespace hcp::dcp {
namespace {

using internal::tokens_per_rank;
using internal::workload;

/// One CP group while a micro-batch is built, in opening order (which is rank order).
struct ScanGroup {
  int size = 0;
  double work = 0;
  double packed = 0;
  std::vector<Sample> samples;
};

/// A micro-batch from groups in opening order: first ranks are the running sums of the sizes.
MicroBatch as_microbatch(const std::vector<ScanGroup>& groups) {
  MicroBatch mb;
  int first_rank = 0;
  for (const ScanGroup& g : groups) {
    CpGroup out{first_rank, g.size, {}};
    for (const Sample& s : g.samples)
      out.ids.push_back(s.id);
    mb.groups.push_back(std::move(out));
    first_rank += g.size;
  }
  return mb;
}

int covered(const std::vector<ScanGroup>& groups) {
  int n = 0;
  for (const ScanGroup& g : groups)
    n += g.size;
  return n;
}

int smallest_size(const std::vector<ScanGroup>& groups, int ranks) {
  int n = ranks;
  for (const ScanGroup& g : groups)
    n = std::min(n, g.size);
  return n;
}

// --- dev head: next_hdp_group_packing_aware ----------------------------------------------------

struct ScanChoice {
  double projected = 0;
  int cp = 0;
  int group = -1;  // -1: a new group
};

/// Every candidate of every CP size, the first with the smallest projected maximum kept.
std::optional<ScanChoice> scan_choice(const std::vector<ScanGroup>& groups, int64_t length,
                                      int ranks, int64_t m, int min_cp, double cap) {
  double max_work = 0;
  for (const ScanGroup& g : groups)
    max_work = std::max(max_work, g.work);
  std::optional<ScanChoice> best;
  auto consider = [&](double projected, int cp, int group) {
    if (projected <= cap && (!best || projected < best->projected)) {
      best = ScanChoice{projected, cp, group};
    }
  };
  for (int cp = cp_size_needed(length, m, min_cp); cp <= ranks; cp *= 2) {
    const double cost = workload(length, cp);
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].size != cp) continue;
      if (groups[g].packed + tokens_per_rank(length, cp) > static_cast<double>(m)) continue;
      consider(std::max(max_work, groups[g].work + cost), cp, static_cast<int>(g));
    }
    if (ranks - covered(groups) >= cp) consider(std::max(max_work, cost), cp, -1);
  }
  return best;
}

void add_sample(ScanGroup& g, const Sample& s) {
  g.work += workload(s.length, g.size);
  g.packed += tokens_per_rank(s.length, g.size);
  g.samples.push_back(s);
}

/// fill_empty_gpus_once: double the first smallest group that fits. Empty: none does. Error:
/// growing it pushes later groups past the last rank.
Result<bool> scan_fill_once(std::vector<ScanGroup>& groups, int ranks) {
  const int min_size = smallest_size(groups, ranks);
  const int grown = std::min(2 * min_size, ranks);
  const int used = covered(groups);
  int first_rank = 0;
  for (ScanGroup& g : groups) {
    const int end = first_rank + g.size - 1;
    first_rank += g.size;
    if (g.size != min_size || end + grown - min_size >= ranks) continue;
    if (end + 1 < used && used - 1 + grown - min_size >= ranks) {
      return make_error("fill pushes groups past the last rank");
    }
    g.size = grown;
    g.work = 0;
    for (const Sample& s : g.samples)
      g.work += workload(s.length, grown);
    return true;
  }
  return false;
}

/// fill_with_full_dpxcp_group: every sample of the call, in order, that still fits in one group
/// of all ranks.
std::vector<ScanGroup> scan_full_group(const std::vector<Sample>& sorted, int ranks, int64_t m) {
  ScanGroup full{ranks, 0, 0, {}};
  for (const Sample& s : sorted) {
    if (full.packed + tokens_per_rank(s.length, ranks) <= static_cast<double>(m)) {
      full.packed += tokens_per_rank(s.length, ranks);
      full.samples.push_back(s);
    }
  }
  return {full};
}

/// One micro-batch from `sorted` (longest first); the samples it leaves stay in `sorted`.
Result<MicroBatch> scan_packing_aware_once(std::vector<Sample>& sorted, int ranks, int64_t m,
                                           int min_cp) {
  const Sample tallest = sorted.front();
  const double cap = static_cast<double>(tallest.length) * static_cast<double>(m) * 1.05;
  const int first_cp = cp_size_needed(tallest.length, m, min_cp);
  if (first_cp > ranks) return make_error("too long");
  std::vector<ScanGroup> groups{ScanGroup{first_cp, 0, 0, {}}};
  add_sample(groups[0], tallest);
  for (size_t i = 1; i < sorted.size(); ++i) {
    auto choice = scan_choice(groups, sorted[i].length, ranks, m, min_cp, cap);
    if (!choice) continue;
    if (choice->group < 0) groups.push_back(ScanGroup{choice->cp, 0, 0, {}});
    add_sample(choice->group < 0 ? groups.back() : groups[choice->group], sorted[i]);
  }
  while (covered(groups) < ranks) {
    Result<bool> grown = scan_fill_once(groups, ranks);
    if (!grown.ok()) return grown.error();
    if (*grown) continue;
    groups = scan_full_group(sorted, ranks, m);
    if (groups[0].samples.empty()) return make_error("nothing fits in the full group");
    break;
  }
  std::set<int64_t> placed;
  for (const ScanGroup& g : groups) {
    for (const Sample& s : g.samples)
      placed.insert(s.id);
  }
  std::erase_if(sorted, [&](const Sample& s) { return placed.count(s.id) > 0; });
  return as_microbatch(groups);
}

// --- dev PR #2000 and main: the bucketed greedy ------------------------------------------------

/// The library's exact bucket work: L^2 / c scaled by 2^30.
unsigned __int128 exact_work(int64_t length, int cp) {
  const auto square =
      static_cast<unsigned __int128>(length) * static_cast<unsigned __int128>(length);
  return (square << 30) / static_cast<unsigned __int128>(cp);
}

/// dcp_make_buckets_equal over the leftover list, sample by sample.
std::vector<std::deque<Sample>> scan_buckets(const std::vector<Sample>& list, int64_t m,
                                             int min_cp) {
  std::set<int> sizes;
  unsigned __int128 total = 0;
  for (const Sample& s : list) {
    sizes.insert(cp_size_needed(s.length, m, min_cp));
    total += exact_work(s.length, cp_size_needed(s.length, m, min_cp));
  }
  const int64_t k = static_cast<int64_t>(sizes.size());
  const double target = std::ldexp(static_cast<double>(total), -30) / static_cast<double>(k);
  const auto limit = static_cast<unsigned __int128>(std::ldexp(target * 1.1, 30));
  std::vector<std::deque<Sample>> buckets;
  std::deque<Sample> current;
  unsigned __int128 current_work = 0;
  int64_t remaining_k = k;
  const int64_t n = static_cast<int64_t>(list.size());
  for (int64_t i = 0; i < n; ++i) {
    const Sample& s = list[static_cast<size_t>(i)];
    const unsigned __int128 w = exact_work(s.length, cp_size_needed(s.length, m, min_cp));
    const int64_t owed = remaining_k - static_cast<int64_t>(buckets.size());
    if (!current.empty() && (current_work + w > limit || n - i <= owed)) {
      buckets.push_back(std::move(current));
      current.clear();
      current_work = 0;
      --remaining_k;
    }
    current.push_back(s);
    current_work += w;
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  return buckets;
}

struct BucketedScan {
  int ranks = 0;
  int64_t m = 0;
  int min_cp = 1;
  bool packing_cap = false;
  std::vector<ScanGroup> groups;

  int need(int64_t length) const { return cp_size_needed(length, m, min_cp); }
  bool has_group_of(int cp) const {
    return std::any_of(groups.begin(), groups.end(),
                       [&](const ScanGroup& g) { return g.size == cp; });
  }
  int pick_bucket(const std::vector<std::deque<Sample>>& buckets) const {
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (buckets[b].empty()) continue;
      const int cp = need(buckets[b].front().length);
      if (has_group_of(cp) || ranks - covered(groups) >= cp) return static_cast<int>(b);
    }
    return -1;
  }
  int least_loaded(int64_t length, int cp) const {
    int best = -1;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].size != cp) continue;
      if (packing_cap && groups[g].packed + tokens_per_rank(length, cp) > static_cast<double>(m)) {
        continue;
      }
      if (best < 0 || groups[g].work < groups[best].work) best = static_cast<int>(g);
    }
    return best;
  }
  bool spread_ok() const {
    double hi = 0;
    double lo = covered(groups) < ranks ? 0.0 : std::numeric_limits<double>::infinity();
    for (const ScanGroup& g : groups) {
      hi = std::max(hi, g.work);
      lo = std::min(lo, g.work);
    }
    return hi - lo <= 0.05 * hi;
  }
};

/// next_hdp_group's greedy loop over the buckets.
void scan_greedy(BucketedScan& scan, std::vector<std::deque<Sample>>& buckets) {
  int first_needed = 0;
  bool check_balance = false;
  for (int b = scan.pick_bucket(buckets); b >= 0; b = scan.pick_bucket(buckets)) {
    const Sample s = buckets[b].front();
    const int cp = scan.need(s.length);
    if (first_needed == 0) first_needed = cp;
    int target = scan.least_loaded(s.length, cp);
    if (scan.ranks - covered(scan.groups) >= cp) {
      scan.groups.push_back(ScanGroup{cp, 0, 0, {}});
      target = static_cast<int>(scan.groups.size()) - 1;
    } else if (target < 0) {
      break;
    }
    ScanGroup& g = scan.groups[target];
    g.work += workload(s.length, cp);
    if (scan.packing_cap) g.packed += tokens_per_rank(s.length, cp);
    g.samples.push_back(s);
    buckets[b].pop_front();
    while (!buckets.empty() && buckets.front().empty())
      buckets.erase(buckets.begin());
    if (cp < first_needed) check_balance = true;
    if (check_balance && !buckets.empty() && scan.spread_ok()) break;
  }
}

/// trim_overload: move the last sample of the most loaded group back to `leftovers` while that
/// narrows the spread.
void scan_trim(BucketedScan& scan, std::vector<Sample>& leftovers) {
  std::vector<ScanGroup>& groups = scan.groups;
  while (covered(groups) == scan.ranks && !groups.empty()) {
    double hi = -1;
    double lo = std::numeric_limits<double>::infinity();
    size_t top = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].work > hi) {
        hi = groups[g].work;
        top = g;
      }
      lo = std::min(lo, groups[g].work);
    }
    if (hi - lo <= 0.05 * hi || lo == 0 || groups[top].samples.size() <= 1) break;
    const Sample last = groups[top].samples.back();
    const double cost = workload(last.length, scan.need(last.length));
    double new_hi = -std::numeric_limits<double>::infinity();
    double new_lo = std::numeric_limits<double>::infinity();
    for (size_t g = 0; g < groups.size(); ++g) {
      const double w = g == top ? groups[g].work - cost : groups[g].work;
      new_hi = std::max(new_hi, w);
      new_lo = std::min(new_lo, w);
    }
    if (!(new_hi - new_lo < hi - lo)) break;
    leftovers.push_back(last);
    groups[top].samples.pop_back();
    groups[top].work -= cost;
  }
}

/// One micro-batch of the bucketed greedy; `list` becomes the leftovers.
Result<MicroBatch> scan_bucketed_once(std::vector<Sample>& list, BucketedScan scan) {
  std::vector<std::deque<Sample>> buckets = scan_buckets(list, scan.m, scan.min_cp);
  scan_greedy(scan, buckets);
  list.clear();
  for (const auto& b : buckets)
    list.insert(list.end(), b.begin(), b.end());
  if (!scan.packing_cap) scan_trim(scan, list);
  if (scan.groups.empty()) return make_error("nothing placed");
  while (covered(scan.groups) < scan.ranks) {  // fill_empty_gpus: double the first smallest
    const int min_size = smallest_size(scan.groups, scan.ranks);
    const int grown = std::min(2 * min_size, scan.ranks);
    if (covered(scan.groups) - 1 + grown - min_size >= scan.ranks || grown == min_size) {
      return make_error("fill does not fit");
    }
    for (ScanGroup& g : scan.groups) {
      if (g.size == min_size) {
        g.size = grown;
        break;
      }
    }
  }
  return as_microbatch(scan.groups);
}

/// The whole step with the plain scans, as schedule_step runs it (no VPP alignment).
Result<std::vector<MicroBatch>> scan_schedule(std::vector<Sample> samples,
                                              const SchedulerKnobs& knobs) {
  std::vector<Sample> left = internal::sorted_longest_first(samples);
  std::vector<MicroBatch> mbs;
  while (!left.empty()) {
    const size_t before = left.size();
    BucketedScan scan{knobs.ranks(),
                      knobs.max_seqlen_per_rank,
                      knobs.min_cp,
                      knobs.variant == Variant::kDevPr2000,
                      {}};
    Result<MicroBatch> mb =
        knobs.variant == Variant::kDevHead
            ? scan_packing_aware_once(left, knobs.ranks(), knobs.max_seqlen_per_rank, knobs.min_cp)
            : scan_bucketed_once(left, scan);
    if (!mb.ok()) return mb.error();
    if (left.size() >= before) return make_error("nothing placed");
    mbs.push_back(std::move(*mb));
  }
  return mbs;
}

// --- random pools ------------------------------------------------------------------------------

SchedulerKnobs random_knobs(std::mt19937_64& rng, Variant variant) {
  auto pick = [&](std::initializer_list<int> values) {
    return *(values.begin() + static_cast<long>(rng() % values.size()));
  };
  SchedulerKnobs knobs;
  knobs.variant = variant;
  knobs.dp = pick({1, 2, 3, 4, 8, 16, 64, 256});
  knobs.cp = pick({2, 4, 8});
  knobs.max_seqlen_per_rank = pick({1, 3, 64, 100, 1000, 4096});
  if (variant != Variant::kMainHybrid) knobs.min_cp = std::min(pick({1, 1, 2, 4}), knobs.ranks());
  return knobs;
}

/// A few hundred lengths: equal ones (every group full after one sample), short ones (many per
/// group), or a log-normal mix up to a few times m.
std::vector<Sample> random_samples(std::mt19937_64& rng, const SchedulerKnobs& knobs) {
  const int n = 100 + static_cast<int>(rng() % 300);
  const int64_t m = knobs.max_seqlen_per_rank;
  const int shape = static_cast<int>(rng() % 3);
  std::lognormal_distribution<double> lognormal(0.0, 1.3);
  std::vector<Sample> samples;
  for (int i = 0; i < n; ++i) {
    int64_t length = m;
    if (shape == 1) length = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(m));
    if (shape == 2) {
      const double x = lognormal(rng) * static_cast<double>(m) / 2;
      length = static_cast<int64_t>(std::clamp(x, 1.0, 4.0 * static_cast<double>(m)));
    }
    samples.push_back(Sample{i, length});
  }
  return samples;
}

void expect_same_as_scan(Variant variant, int cases, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int compared = 0;
  for (int i = 0; i < cases; ++i) {
    const SchedulerKnobs knobs = random_knobs(rng, variant);
    const std::vector<Sample> samples = random_samples(rng, knobs);
    SCOPED_TRACE("case " + std::to_string(i) + ": DP×CP " + std::to_string(knobs.ranks()) + ", m " +
                 std::to_string(knobs.max_seqlen_per_rank) + ", " + std::to_string(samples.size()) +
                 " samples");
    auto fast = schedule_step(samples, knobs);
    auto scan = scan_schedule(samples, knobs);
    ASSERT_EQ(fast.ok(), scan.ok()) << (fast.ok() ? scan.error() : fast.error()).message;
    if (!fast.ok()) continue;
    ASSERT_EQ(fast->size(), scan->size());
    for (size_t mb = 0; mb < fast->size(); ++mb) {
      ASSERT_EQ(rank_ids((*fast)[mb], knobs.ranks()), rank_ids((*scan)[mb], knobs.ranks()))
          << "micro-batch " << mb;
    }
    ++compared;
  }
  EXPECT_GT(compared, cases / 2);  // most pools schedule; the rest fail in both
}

TEST(ScanReference, DevHeadBuildsTheSameMicroBatches) {
  expect_same_as_scan(Variant::kDevHead, 150, 7);
}
TEST(ScanReference, DevPr2000BuildsTheSameMicroBatches) {
  expect_same_as_scan(Variant::kDevPr2000, 150, 8);
}
TEST(ScanReference, MainHybridBuildsTheSameMicroBatches) {
  expect_same_as_scan(Variant::kMainHybrid, 150, 9);
}

// --- GroupTree alone ---------------------------------------------------------------------------

TEST(GroupTree, FirstLeastIsTheFirstBestOfAScan) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 50; ++round) {
    internal::GroupTree tree;
    std::vector<double> packed;
    std::vector<double> work;
    for (int op = 0; op < 300; ++op) {
      const double p = static_cast<double>(rng() % 16);  // few values: many ties
      const double w = static_cast<double>(rng() % 16);
      if (packed.empty() || rng() % 3 != 0) {
        EXPECT_EQ(tree.push_back(static_cast<int>(packed.size()), p, w), packed.size());
        packed.push_back(p);
        work.push_back(w);
      } else {
        const size_t slot = rng() % packed.size();
        tree.set(slot, p, w);
        packed[slot] = p;
        work[slot] = w;
      }
      const double room = static_cast<double>(rng() % 18);
      const double floor = static_cast<double>(rng() % 18);
      const auto has_room = [&](double x) { return x <= room; };
      const auto key = [&](double x) { return std::max(floor, x); };
      int expected = -1;
      for (size_t i = 0; i < packed.size(); ++i) {
        if (has_room(packed[i]) && (expected < 0 || key(work[i]) < key(work[expected]))) {
          expected = static_cast<int>(i);
        }
      }
      ASSERT_EQ(tree.first_least(has_room, key), expected) << "round " << round << " op " << op;
      ASSERT_EQ(tree.first_least(has_room, key, floor), expected) << "stopping at the floor";
      const auto most = std::max_element(work.begin(), work.end());
      ASSERT_EQ(tree.most_work(), *most);
      ASSERT_EQ(tree.first_with_most_work(), most - work.begin());
      ASSERT_EQ(tree.least_work(), *std::min_element(work.begin(), work.end()));
    }
  }
}

}  // namespace
}  // namespace hcp::dcp
