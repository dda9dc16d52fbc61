// Helpers shared by the scheduler variants of the dcp module (not part of the public API).
#pragma once

#include <cstdint>
#include <functional>
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

}  // namespace hcp::dcp::internal
