// Helpers shared by the scheduler variants of the dcp module (not part of the public API).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "hcp/dcp.h"

namespace hcp::dcp {

/// Return an unlocated error carrying `message`.
inline Error make_error(std::string message) {
  Error e;
  e.message = std::move(message);
  return e;
}

}  // namespace hcp::dcp

namespace hcp::dcp::internal {

/// Upstream's cost model for one sequence at CP size c: L^2 / c, rounded as Python's int / int.
inline double workload(int64_t length, int cp) {
  return static_cast<double>(length * length) / static_cast<double>(cp);
}

/// Tokens of one sequence per rank at CP size c: L / c.
inline double tokens_per_rank(int64_t length, int cp) {
  return static_cast<double>(length) / static_cast<double>(cp);
}

/// Return the samples sorted by length, longest first, ties in input order (Python's stable sort).
std::vector<Sample> sorted_longest_first(std::span<const Sample> samples);

/// Return "sample ID (length L)" for error messages.
std::string describe(const Sample& sample);

/// The error upstream raises when the longest sequence needs more ranks than the pool holds.
Error too_long_error(const Sample& sample, int needed, int ranks);

/// The samples of one step not yet scheduled, as positions in the step's longest-first order.
/// Removal is near O(1) (union-find over "next present position"), and a monotone predicate over
/// the lengths finds the first matching sample after a position in O(log distance) tests, so a
/// micro-batch costs its own size times a logarithm, not the size of the whole step.
class SamplePool {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  /// `sorted`: the step's samples, longest first.
  explicit SamplePool(std::vector<Sample> sorted);

  /// Return the sample at `position`.
  const Sample& at(size_t position) const { return sorted_[position]; }
  /// Return the number of samples still present.
  size_t size() const { return present_; }
  bool empty() const { return present_ == 0; }
  /// Return the first present position >= `position`, or kNone.
  size_t next_present(size_t position);
  /// Remove the sample at `position` (which must be present).
  void remove(size_t position);
  /// Return the first present position >= `from` whose sample satisfies `fits`, or kNone. `fits`
  /// must be monotone along the longest-first order (false, then true): a shorter sample fits
  /// wherever a longer one does.
  size_t first_fitting(size_t from, const std::function<bool(int64_t length)>& fits);

 private:
  /// Return the first position >= `from` (present or not) whose length fits, or sorted_.size().
  size_t first_fitting_length(size_t from, const std::function<bool(int64_t length)>& fits) const;

  std::vector<Sample> sorted_;
  std::vector<size_t> next_;  // union-find: a removed position points further right
  size_t present_ = 0;
};

/// The groups of one micro-batch (or those of one CP size) in the order they were opened, with the
/// least packed tokens, the least work and the most work over each range of them. A scheduler
/// finds the group a sample joins by descending only into ranges that can hold it and can beat the
/// best group found so far: a pool of a million ranks holds up to a million groups, most of them
/// full, and scanning them all for every sample made a micro-batch cost its samples times its
/// groups. A search follows one path when the least loaded groups have room (full groups are cut
/// off by their range's least packed tokens); light full groups interleaved with heavy open ones
/// make it visit more, at worst every group, as the scan did.
class GroupTree {
 public:
  /// Add group `group` after the others; return its slot (its position in opening order).
  size_t push_back(int group, double packed, double work);
  /// Set the packed tokens and work of the group at `slot`.
  void set(size_t slot, double packed, double work);
  size_t size() const { return groups_.size(); }
  /// The least work of any group (+inf when there is none).
  double least_work() const;
  /// The most work of any group (-inf when there is none).
  double most_work() const;
  /// The first group (in opening order) whose work is the most, or -1 when there is none.
  int first_with_most_work() const;
  /// The first group (in opening order) with the least `key(work)` among those with room
  /// (`has_room(packed)`), or -1: the group a scan keeping the first strictly better one picks.
  /// `has_room` must hold for every packed value below one it holds for, and `key` must not
  /// decrease as work grows (true of rounded sums), so the least packed tokens and least work of a
  /// range bound every group in it. No key is below `floor`, so the first group reaching it wins.
  template <typename HasRoom, typename Key>
  int first_least(const HasRoom& has_room, const Key& key,
                  double floor = -std::numeric_limits<double>::infinity()) const;

 private:
  static constexpr size_t kNoSlot = static_cast<size_t>(-1);
  static constexpr double kEmpty = std::numeric_limits<double>::infinity();
  // Up to this many groups the leaves are scanned and the inner nodes are left stale: in a small
  // pool (DP×CP = 64 holds at most 64 groups) a scan that stops at the floor costs less than
  // keeping the tree. The first growth past it rebuilds the inner nodes.
  static constexpr size_t kScanAtMost = 64;
  /// The bounds of one range of slots (an empty slot: +inf packed and work, -inf most work).
  struct Node {
    double min_packed = kEmpty;
    double min_work = kEmpty;
    double max_work = -kEmpty;
  };
  struct Best {
    size_t slot = kNoSlot;
    double key = 0;
  };
  /// Whether the groups are few enough to scan (the inner nodes are then stale).
  bool scanned() const { return groups_.size() <= kScanAtMost; }
  /// The bounds of node `node` and its children, from the children.
  void pull(size_t node);
  /// Double the leaf count (the tree is a complete binary tree over a power of two of slots).
  void grow();
  template <typename HasRoom, typename Key>
  void descend(size_t node, size_t first_slot, size_t width, const HasRoom& has_room,
               const Key& key, Best& best) const;

  // 1-based heap order: node n has children 2n and 2n+1; the leaves are [leaves_, 2 leaves_).
  // Nothing is allocated before the first group: a scheduler keeps a tree per CP size, most of
  // them never used.
  size_t leaves_ = 0;
  std::vector<Node> nodes_;
  std::vector<int> groups_;  // slot -> group index
};

template <typename HasRoom, typename Key>
int GroupTree::first_least(const HasRoom& has_room, const Key& key, double floor) const {
  Best best;
  if (!scanned()) {
    descend(1, 0, leaves_, has_room, key, best);
  } else {
    for (size_t slot = 0; slot < groups_.size() && !(best.slot != kNoSlot && best.key <= floor);
         ++slot) {
      const Node& leaf = nodes_[leaves_ + slot];
      if (!has_room(leaf.min_packed)) continue;
      const double k = key(leaf.min_work);
      if (best.slot == kNoSlot || k < best.key) best = Best{slot, k};
    }
  }
  return best.slot == kNoSlot ? -1 : groups_[best.slot];
}

template <typename HasRoom, typename Key>
void GroupTree::descend(size_t node, size_t first_slot, size_t width, const HasRoom& has_room,
                        const Key& key, Best& best) const {
  if (first_slot >= groups_.size() || !has_room(nodes_[node].min_packed)) return;
  // No group of this range has a smaller key than this bound, and all of them come after
  // `first_slot`: the range can only win with a smaller key, or an equal one opened earlier.
  const double bound = key(nodes_[node].min_work);
  if (best.slot != kNoSlot && (bound > best.key || (bound == best.key && first_slot > best.slot))) {
    return;
  }
  if (width == 1) {  // a leaf's bounds are its own values
    best = Best{first_slot, bound};
    return;
  }
  // The half with the smaller bound first: without full groups in the way, the other half is then
  // cut at its root, so a search costs one path from the root to a leaf.
  const size_t half = width / 2;
  const size_t left = 2 * node;
  const size_t right = left + 1;
  if (key(nodes_[right].min_work) < key(nodes_[left].min_work)) {
    descend(right, first_slot + half, half, has_room, key, best);
    descend(left, first_slot, half, has_room, key, best);
  } else {
    descend(left, first_slot, half, has_room, key, best);
    descend(right, first_slot + half, half, has_room, key, best);
  }
}

/// next_hdp_group_packing_aware: one micro-batch from the samples present in `pool` (longest
/// first); the samples it places are removed from the pool, the rest stay for the next one.
Result<MicroBatch> next_group_packing_aware(SamplePool& pool, int ranks,
                                            int64_t max_seqlen_per_rank, int min_cp);

/// The legacy bucketed greedy (main BalancedCPScheduler, or dev PR #2000 when `packing_cap`) over
/// one step: every micro-batch re-buckets the leftover samples, as upstream does, but from counts
/// and exact work kept over the leftover list, so a step costs about n log n, not n^2.
Result<std::vector<MicroBatch>> schedule_bucketed(std::span<const Sample> samples, int ranks,
                                                  int64_t max_seqlen_per_rank, int min_cp,
                                                  bool packing_cap);

/// Upstream's fill of idle ranks (fill_empty_gpus, fill_empty_gpus_once), shared by the
/// schedulers: each round doubles the first smallest group, moving the later groups right. The
/// rounds of one smallest size take that size's groups in rank order, so one pass over the
/// groups makes them all: filling costs the groups times the number of sizes, not times the idle
/// ranks (a round each, up to a million). `grow(group, size)` doubles one group and raises
/// `covered`; the fill stops when it returns false.
template <typename Group, typename Grow>
void double_smallest_groups(std::vector<Group>& groups, int ranks, const int& covered,
                            Grow&& grow) {
  while (covered < ranks) {
    int min_size = ranks;
    for (const Group& g : groups)
      min_size = std::min(min_size, g.size);
    const int grown = std::min(2 * min_size, ranks);
    int first_rank = 0;  // the groups tile ranks [0, covered) in opening order
    for (Group& g : groups) {
      g.first_rank = first_rank;
      if (g.size == min_size && covered < ranks && !grow(g, grown)) return;
      first_rank += g.size;
    }
  }
}

}  // namespace hcp::dcp::internal
