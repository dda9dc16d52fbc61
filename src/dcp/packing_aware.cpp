// Megatron-LM dev head scheduler: next_hdp_group_packing_aware (PR #5154), dynamic_cp.md §2.4-2.5.
// Every group's member ranks receive the same samples, so a group carries one work value and the
// projected maximum of a candidate is max(current maximum, group work + cost): the same number the
// upstream per-rank scan computes, in O(1). The groups of each CP size sit in a GroupTree, so the
// best one is found without visiting every full group, and the idle ranks are filled one group size
// at a time, so a micro-batch of a million ranks costs its samples and groups times logarithms.
#include <algorithm>
#include <bit>
#include <limits>

#include "schedule_internal.h"

namespace hcp::dcp::internal {
namespace {

constexpr double kWorkloadCapDelta = 0.05;  // _DYNAMIC_CP_WORKLOAD_CAP_DELTA
constexpr int kMaxLog2 = 32;

struct Group {
  int first_rank = 0;
  int size = 0;
  double work = 0;    // sum L^2/size on each member rank
  double packed = 0;  // sum L/size on each member rank
  size_t slot = 0;    // position in the tree of its size
  std::vector<int64_t> ids;
  std::vector<int64_t> lengths;
};

int log2_of(int power_of_two) {
  return std::countr_zero(static_cast<unsigned>(power_of_two));
}

/// The candidate placement with the smallest projected maximum rank work.
struct Choice {
  bool found = false;
  double projected = 0;
  int cp = 0;
  int group = -1;  // existing group index, or -1 for a new group on the lowest free ranks
};

class PackingAwareGrouper {
 public:
  PackingAwareGrouper(int ranks, int64_t m, int min_cp)
      : ranks_(ranks), m_(m), min_cp_(min_cp), by_size_(kMaxLog2) {}

  /// Build one micro-batch from the pool's samples and remove the ones it places. Samples that fit
  /// nowhere are skipped in bulk: whether a sample fits is monotone in its length (a shorter one
  /// has more CP sizes to try and smaller costs at each), and placing only fills the groups, so
  /// the first fitting sample after a failing one is found by search, not by trying each.
  Result<MicroBatch> run(SamplePool& pool) {
    const size_t first = pool.next_present(0);
    const Sample& tallest = pool.at(first);
    cap_ =
        static_cast<double>(tallest.length) * static_cast<double>(m_) * (1.0 + kWorkloadCapDelta);
    int cp = cp_size_needed(tallest.length, m_, min_cp_);
    if (cp > ranks_) return too_long_error(tallest, cp, ranks_);
    open_group(tallest, cp);

    std::vector<size_t> placed = {first};
    const auto fits = [this](int64_t length) { return best_choice(length).found; };
    for (size_t at = pool.first_fitting(first + 1, fits); at != SamplePool::kNone;
         at = pool.first_fitting(at + 1, fits)) {
      place(pool.at(at), best_choice(pool.at(at).length));
      placed.push_back(at);
    }
    Result<bool> filled = fill_idle_ranks();
    if (!filled.ok()) return filled.error();
    if (!*filled) {
      if (Status full = fill_with_full_group(pool, placed); !full.ok()) return full.error();
    }
    for (size_t at : placed)
      pool.remove(at);
    MicroBatch microbatch;
    microbatch.groups.reserve(groups_.size());
    for (Group& g : groups_) {
      microbatch.groups.push_back(CpGroup{g.first_rank, g.size, std::move(g.ids)});
    }
    std::sort(microbatch.groups.begin(), microbatch.groups.end(),
              [](const CpGroup& a, const CpGroup& b) { return a.first_rank < b.first_rank; });
    return microbatch;
  }

 private:
  /// Upstream scans the groups of each CP size in opening order, then a new group, keeping the
  /// first candidate with the smallest projected maximum; each size's tree yields the group that
  /// scan keeps. Every projected maximum is >= the current maximum rank work and ties never
  /// replace the incumbent (strict <), so the search stops as soon as a candidate reaches that
  /// floor; the choice is the one upstream's exhaustive scan makes.
  Choice best_choice(int64_t length) const {
    Choice best;
    auto consider = [&](double projected, int cp, int group) {
      if (projected <= cap_ && (!best.found || projected < best.projected)) {
        best = Choice{true, projected, cp, group};
      }
      return best.found && best.projected <= max_work_;
    };
    for (int cp = cp_size_needed(length, m_, min_cp_); cp <= ranks_; cp *= 2) {
      const double cost = workload(length, cp);
      const double tokens = tokens_per_rank(length, cp);
      const auto has_room = [&](double packed) {
        return !(packed + tokens > static_cast<double>(m_));
      };
      const auto projected = [&](double work) { return std::max(max_work_, work + cost); };
      const int index = by_size_[log2_of(cp)].first_least(has_room, projected, max_work_);
      if (index >= 0 && consider(projected(groups_[index].work), cp, index)) return best;
      if (ranks_ - covered_ >= cp && consider(std::max(max_work_, cost), cp, -1)) return best;
    }
    return best;
  }

  void open_group(const Sample& sample, int cp) {
    Group g;
    g.first_rank = covered_;
    g.size = cp;
    g.slot = by_size_[log2_of(cp)].push_back(static_cast<int>(groups_.size()), 0, 0);
    groups_.push_back(std::move(g));
    covered_ += cp;
    add_to(groups_.back(), sample, cp);
  }

  void add_to(Group& g, const Sample& sample, int cp) {
    g.work += workload(sample.length, cp);
    g.packed += tokens_per_rank(sample.length, cp);
    g.ids.push_back(sample.id);
    g.lengths.push_back(sample.length);
    max_work_ = std::max(max_work_, g.work);
    by_size_[log2_of(g.size)].set(g.slot, g.packed, g.work);
  }

  void place(const Sample& sample, const Choice& choice) {
    if (choice.group < 0) {
      open_group(sample, choice.cp);
    } else {
      add_to(groups_[choice.group], sample, choice.cp);
    }
  }

  /// fill_empty_gpus_once until no rank is idle (double_smallest_groups). Return false when a
  /// smallest group does not fit before the last rank: upstream then rebuilds the micro-batch as
  /// one full group.
  Result<bool> fill_idle_ranks() {
    Result<bool> fitted = true;
    double_smallest_groups(groups_, ranks_, covered_, [&](Group& g, int grown) {
      fitted = grow_group(g, grown);
      return fitted.ok() && *fitted;
    });
    return fitted;
  }

  /// One round of fill_empty_gpus_once: grow `g`, the first group of the smallest size, to
  /// `grown` ranks. Return false when it would run past the last rank (every later group of its
  /// size starts further right, so none qualifies).
  Result<bool> grow_group(Group& g, int grown) {
    const int extra = grown - g.size;
    const int end = g.first_rank + g.size - 1;
    if (end + extra >= ranks_) return false;
    const bool pushes = end + 1 < covered_;
    if (pushes && covered_ - 1 + extra >= ranks_) {
      return make_error(
          "sample " + std::to_string(g.ids.front()) + ": cannot fill " +
          std::to_string(ranks_ - covered_) + " idle rank(s): growing the CP-" +
          std::to_string(g.size) + " group at ranks " + std::to_string(g.first_rank) + "-" +
          std::to_string(end) + " to " + std::to_string(grown) + " pushes later groups past rank " +
          std::to_string(ranks_ - 1) + " (upstream IndexError in " +
          "fill_empty_gpus_once; DP×CP = " + std::to_string(ranks_) + " is not a power of two)");
    }
    g.size = grown;
    g.work = 0;
    for (int64_t length : g.lengths)
      g.work += workload(length, grown);
    covered_ += extra;
    return true;
  }

  /// fill_with_full_dpxcp_group: rebuild the micro-batch as one group of every rank, taking
  /// samples (of the whole call, placed or not) while sum L/N <= m. `placed` becomes the
  /// positions taken.
  Status fill_with_full_group(SamplePool& pool, std::vector<size_t>& placed) {
    Group full;
    full.size = ranks_;
    placed.clear();
    double tokens = 0;
    const auto fits = [&](int64_t length) {
      return tokens + tokens_per_rank(length, ranks_) <= static_cast<double>(m_);
    };
    for (size_t at = pool.first_fitting(0, fits); at != SamplePool::kNone;
         at = pool.first_fitting(at + 1, fits)) {
      const Sample& s = pool.at(at);
      tokens += tokens_per_rank(s.length, ranks_);
      full.ids.push_back(s.id);
      full.lengths.push_back(s.length);
      placed.push_back(at);
    }
    if (full.ids.empty()) {
      return make_error(describe(pool.at(pool.next_present(0))) +
                        " does not fit in the full DP×CP group of " + std::to_string(ranks_) +
                        " ranks");
    }
    groups_.clear();
    groups_.push_back(std::move(full));
    covered_ = ranks_;
    return Ok{};
  }

  int ranks_;
  int64_t m_;
  int min_cp_;
  double cap_ = 0;
  double max_work_ = 0;
  int covered_ = 0;  // ranks [0, covered_) belong to a group; the rest are free
  std::vector<Group> groups_;
  std::vector<GroupTree> by_size_;  // [log2 size] -> the groups of that size in opening order
};

}  // namespace

Result<MicroBatch> next_group_packing_aware(SamplePool& pool, int ranks,
                                            int64_t max_seqlen_per_rank, int min_cp) {
  if (pool.empty()) return MicroBatch{};
  PackingAwareGrouper grouper(ranks, max_seqlen_per_rank, min_cp);
  return grouper.run(pool);
}

}  // namespace hcp::dcp::internal
