// Scheduler entry points: knob checks, the per-step loop over micro-batches, and conversions
// between the group form and the per-rank form of a micro-batch.
#include <algorithm>
#include <bit>
#include <limits>
#include <utility>

#include "schedule_internal.h"

namespace hcp::dcp {

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kDevHead:
      return "dev_head";
    case Variant::kDevPr2000:
      return "dev_pr2000";
    case Variant::kMainHybrid:
      return "main_hybrid";
  }
  return "dev_head";
}

std::optional<Variant> parse_variant(std::string_view name) {
  for (Variant v : {Variant::kDevHead, Variant::kDevPr2000, Variant::kMainHybrid}) {
    if (name == variant_name(v)) return v;
  }
  return std::nullopt;
}

int cp_size_needed(int64_t length, int64_t max_seqlen_per_rank, int min_cp) {
  int64_t cp = 1;
  while (cp * max_seqlen_per_rank < length)
    cp *= 2;
  // Clamped to 2^30 so the int never wraps; every caller compares it with DP*CP <= 2^20.
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(cp, min_cp), int64_t{1} << 30));
}

Status validate_knobs(const SchedulerKnobs& knobs) {
  if (knobs.dp < 1) return make_error("--dp must be >= 1 (got " + std::to_string(knobs.dp) + ")");
  if (knobs.cp < 1) return make_error("--cp must be >= 1 (got " + std::to_string(knobs.cp) + ")");
  if (static_cast<int64_t>(knobs.dp) * knobs.cp > (1 << 20)) {
    return make_error("DP×CP = " + std::to_string(static_cast<int64_t>(knobs.dp) * knobs.cp) +
                      " is larger than 1048576 ranks");
  }
  const int ranks = knobs.ranks();
  if (ranks % 2 != 0) {
    return make_error("DP×CP = " + std::to_string(ranks) +
                      " is odd; Megatron's Dynamic CP groups need an even DP×CP size "
                      "(parallel_state asserts it)");
  }
  if (knobs.max_seqlen_per_rank < 1) {
    return make_error("--max-seqlen-per-dp-cp-rank must be >= 1");
  }
  // No sequence is longer than 2^31-1 tokens (the lengths loaders' bound); a larger m only
  // overflows m * CP.
  if (knobs.max_seqlen_per_rank > std::numeric_limits<int32_t>::max()) {
    return make_error("--max-seqlen-per-dp-cp-rank " + std::to_string(knobs.max_seqlen_per_rank) +
                      " is larger than 2147483647 tokens, the longest sequence accepted");
  }
  if (knobs.min_cp < 1 || !std::has_single_bit(static_cast<unsigned>(knobs.min_cp))) {
    return make_error("--min-cp " + std::to_string(knobs.min_cp) +
                      " must be a power of two >= 1 (Dynamic CP only builds groups of 2^k ranks)");
  }
  if (knobs.min_cp > ranks) {
    return make_error("--min-cp " + std::to_string(knobs.min_cp) +
                      " exceeds DP×CP = " + std::to_string(ranks));
  }
  if (knobs.vpp_group < 0) return make_error("--vpp-group must be >= 0");
  if (knobs.variant == Variant::kMainHybrid && knobs.min_cp != 1) {
    return make_error("--variant main_hybrid has no minimum CP size (--min-cp must be 1)");
  }
  if (knobs.variant == Variant::kMainHybrid && knobs.vpp_group > 1) {
    return make_error(
        "--variant main_hybrid requires PP = 1, so it has no VPP alignment (--vpp-group)");
  }
  return Ok{};
}

std::vector<std::vector<int64_t>> rank_ids(const MicroBatch& mb, int ranks) {
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(ranks));
  for (const CpGroup& g : mb.groups) {
    for (int r = g.first_rank; r < g.first_rank + g.size && r < ranks; ++r)
      out[r] = g.ids;
  }
  return out;
}

Result<MicroBatch> microbatch_from_rank_ids(const std::vector<std::vector<int64_t>>& ranks) {
  MicroBatch mb;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].empty()) {
      return make_error("rank " + std::to_string(r) + " of the micro-batch holds no sample");
    }
    if (!mb.groups.empty() && mb.groups.back().ids == ranks[r]) {
      ++mb.groups.back().size;
    } else {
      mb.groups.push_back(CpGroup{static_cast<int>(r), 1, ranks[r]});
    }
  }
  return mb;
}

namespace internal {

std::vector<Sample> sorted_longest_first(std::span<const Sample> samples) {
  // Equal to a stable sort by length: ties keep their input position (no merge buffer needed).
  std::vector<std::pair<Sample, size_t>> keyed(samples.size());
  for (size_t i = 0; i < samples.size(); ++i)
    keyed[i] = {samples[i], i};
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return a.first.length != b.first.length ? a.first.length > b.first.length : a.second < b.second;
  });
  std::vector<Sample> out(samples.size());
  for (size_t i = 0; i < keyed.size(); ++i)
    out[i] = keyed[i].first;
  return out;
}

std::string describe(const Sample& sample) {
  return "sample " + std::to_string(sample.id) + " (length " + std::to_string(sample.length) + ")";
}

SamplePool::SamplePool(std::vector<Sample> sorted)
    : sorted_(std::move(sorted)), next_(sorted_.size() + 1), present_(sorted_.size()) {
  for (size_t i = 0; i < next_.size(); ++i)
    next_[i] = i;
}

size_t SamplePool::next_present(size_t position) {
  if (position >= sorted_.size()) return kNone;
  size_t root = position;
  while (next_[root] != root)
    root = next_[root];
  while (next_[position] != root) {  // path compression
    size_t up = next_[position];
    next_[position] = root;
    position = up;
  }
  return root == sorted_.size() ? kNone : root;
}

void SamplePool::remove(size_t position) {
  next_[position] = position + 1;
  --present_;
}

size_t SamplePool::first_fitting_length(size_t from,
                                        const std::function<bool(int64_t length)>& fits) const {
  // Gallop to a fitting position, then bisect back to the first one.
  const size_t n = sorted_.size();
  size_t below = from;  // every position in [from, below) fails
  size_t step = 1;
  size_t probe = from;
  while (probe < n && !fits(sorted_[probe].length)) {
    below = probe + 1;
    probe = from + step;
    step *= 2;
  }
  size_t above = std::min(probe, n);  // fits (or n)
  while (below < above) {
    const size_t mid = below + (above - below) / 2;
    if (fits(sorted_[mid].length)) {
      above = mid;
    } else {
      below = mid + 1;
    }
  }
  return above;
}

size_t SamplePool::first_fitting(size_t from, const std::function<bool(int64_t length)>& fits) {
  const size_t start = next_present(from);
  if (start == kNone) return kNone;
  // Lengths are sorted, so every position between a failing one and the first fitting one fails,
  // removed or not; the first present position from there on fits.
  return next_present(first_fitting_length(start, fits));
}

size_t GroupTree::push_back(int group, double packed, double work) {
  if (groups_.size() == leaves_) grow();
  groups_.push_back(group);
  set(groups_.size() - 1, packed, work);
  return groups_.size() - 1;
}

void GroupTree::set(size_t slot, double packed, double work) {
  size_t node = leaves_ + slot;
  nodes_[node] = Node{packed, work, work};
  if (scanned()) return;
  for (node /= 2; node >= 1; node /= 2) {
    const Node before = nodes_[node];
    pull(node);
    const Node& after = nodes_[node];
    if (after.min_packed == before.min_packed && after.min_work == before.min_work &&
        after.max_work == before.max_work) {
      break;  // the ranges above keep their bounds too
    }
  }
}

double GroupTree::least_work() const {
  if (!scanned()) return nodes_[1].min_work;
  double least = kEmpty;
  for (size_t slot = 0; slot < groups_.size(); ++slot)
    least = std::min(least, nodes_[leaves_ + slot].min_work);
  return least;
}

double GroupTree::most_work() const {
  if (!scanned()) return nodes_[1].max_work;
  double most = -kEmpty;
  for (size_t slot = 0; slot < groups_.size(); ++slot)
    most = std::max(most, nodes_[leaves_ + slot].max_work);
  return most;
}

int GroupTree::first_with_most_work() const {
  if (groups_.empty()) return -1;
  if (scanned()) {
    size_t first = 0;
    for (size_t slot = 1; slot < groups_.size(); ++slot) {
      if (nodes_[leaves_ + slot].max_work > nodes_[leaves_ + first].max_work) first = slot;
    }
    return groups_[first];
  }
  size_t node = 1;
  while (node < leaves_)  // the most work is exact, so one child holds it (the left one on ties)
    node = nodes_[2 * node].max_work == nodes_[node].max_work ? 2 * node : 2 * node + 1;
  return groups_[node - leaves_];
}

void GroupTree::pull(size_t node) {
  const Node& left = nodes_[2 * node];
  const Node& right = nodes_[2 * node + 1];
  nodes_[node] =
      Node{std::min(left.min_packed, right.min_packed), std::min(left.min_work, right.min_work),
           std::max(left.max_work, right.max_work)};
}

void GroupTree::grow() {
  // The leaves move to a tree twice as wide and the inner nodes are rebuilt: O(groups) once per
  // doubling, so O(1) per group added on average.
  const size_t old_leaves = leaves_;
  leaves_ = std::max(kScanAtMost, 2 * leaves_);  // the first allocation serves every scan
  std::vector<Node> nodes(2 * leaves_);
  for (size_t slot = 0; slot < old_leaves; ++slot)
    nodes[leaves_ + slot] = nodes_[old_leaves + slot];
  nodes_ = std::move(nodes);
  for (size_t node = leaves_ - 1; node >= 1; --node)
    pull(node);
}

Error too_long_error(const Sample& sample, int needed, int ranks) {
  return make_error(describe(sample) + " needs CP size " + std::to_string(needed) + " but only " +
                    std::to_string(ranks) +
                    " DP×CP ranks are available; raise --max-seqlen-per-dp-cp-rank or DP×CP");
}

}  // namespace internal

namespace {

/// The dev-head scheduler over a pool: each micro-batch costs its own samples times a logarithm.
Result<std::vector<MicroBatch>> schedule_packing_aware(std::span<const Sample> samples,
                                                       const SchedulerKnobs& knobs) {
  internal::SamplePool pool(internal::sorted_longest_first(samples));
  std::vector<MicroBatch> mbs;
  while (!pool.empty()) {
    const size_t before = pool.size();
    Result<MicroBatch> mb = internal::next_group_packing_aware(
        pool, knobs.ranks(), knobs.max_seqlen_per_rank, knobs.min_cp);
    if (!mb.ok()) return mb.error();
    if (pool.size() >= before) {  // never loop: every call must place something
      return make_error(internal::describe(pool.at(pool.next_present(0))) +
                        " cannot be placed in any micro-batch");
    }
    mbs.push_back(std::move(*mb));
  }
  return mbs;
}

}  // namespace

Result<std::vector<MicroBatch>> schedule_step(std::span<const Sample> samples,
                                              const SchedulerKnobs& knobs) {
  if (Status ok = validate_knobs(knobs); !ok.ok()) return ok.error();
  for (const Sample& s : samples) {
    if (s.length <= 0) {
      return make_error("sample " + std::to_string(s.id) + " has length " +
                        std::to_string(s.length) + "; lengths must be > 0");
    }
  }
  Result<std::vector<MicroBatch>> scheduled =
      knobs.variant == Variant::kDevHead
          ? schedule_packing_aware(samples, knobs)
          : internal::schedule_bucketed(samples, knobs.ranks(), knobs.max_seqlen_per_rank,
                                        knobs.min_cp, knobs.variant == Variant::kDevPr2000);
  if (!scheduled.ok()) return scheduled.error();
  std::vector<MicroBatch> mbs = std::move(*scheduled);
  if (knobs.vpp_group > 1)
    return align_to_vpp_group(std::move(mbs), knobs.ranks(), knobs.vpp_group);
  return mbs;
}

}  // namespace hcp::dcp
