// Helpers shared by the scheduler variants of the dcp module (not part of the public API).
#pragma once

#include <cstdint>
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

/// One micro-batch of the dev-head packing-aware scheduler plus what it deferred.
struct GroupingResult {
  MicroBatch microbatch;
  std::vector<Sample> leftovers;  ///< Still sorted longest first.
};

/// next_hdp_group_packing_aware: one micro-batch from `sorted` (longest first).
Result<GroupingResult> next_group_packing_aware(std::span<const Sample> sorted, int ranks,
                                                int64_t max_seqlen_per_rank, int min_cp);

/// Legacy bucketed greedy (main BalancedCPScheduler, or dev PR #2000 when `packing_cap`).
Result<GroupingResult> next_group_legacy(std::span<const Sample> sorted, int ranks,
                                         int64_t max_seqlen_per_rank, int min_cp, bool packing_cap);

}  // namespace hcp::dcp::internal
