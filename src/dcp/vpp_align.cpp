// VPP alignment (align_sample_id_groups, identical on dev PR #2000 and dev head; dynamic_cp.md
// §2.8): split tail micro-batches at a CP-group boundary until their count is a multiple of the
// VPP micro-batch group size, re-filling each half by doubling CP blocks. Unlike upstream, the
// block scan checks the index before reading (review bug a), and a refill that cannot progress
// is an error instead of an endless loop.
#include <algorithm>

#include "schedule_internal.h"

namespace hcp::dcp {
namespace {

using RankLists = std::vector<std::vector<int64_t>>;

bool holds(const std::vector<int64_t>& ids, int64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

/// Copy the block [start, start+size) right after itself, shifting what follows right by `size`
/// into the idle tail. The caller guarantees size <= idle.
void duplicate_block(RankLists& g, int start, int size, int idle) {
  const int used = static_cast<int>(g.size()) - idle;
  for (int r = used - 1; r >= start + size; --r)
    g[r + size] = g[r];
  for (int r = 0; r < size; ++r)
    g[start + size + r] = g[start + r];
}

std::string block_text(int size, int64_t first_id) {
  return "the CP-" + std::to_string(size) + " block of sample " + std::to_string(first_id);
}

/// One fill_empty pass: scanning blocks from the right, double the first smaller block that
/// follows a larger one; if every block is equal, double the first block when it fits.
Result<bool> fill_empty_once(RankLists& g) {
  const int n = static_cast<int>(g.size());
  int idle = 0;
  while (idle < n && g[n - 1 - idle].empty())
    ++idle;
  int i = n - 1 - idle;
  int prev = 0;
  int64_t prev_id = -1;
  while (i >= 0) {
    const int64_t sid0 = g[i].front();
    int c = 0;
    while (i >= 0 && holds(g[i], sid0)) {
      ++c;
      --i;
    }
    if (c > prev && prev != 0) {
      if (prev > idle) {
        return make_error("VPP alignment: doubling " + block_text(prev, prev_id) + " needs " +
                          std::to_string(prev) + " idle ranks but only " + std::to_string(idle) +
                          " are left");
      }
      duplicate_block(g, i + 1 + c, prev, idle);
      return true;
    }
    if (c <= idle && i == -1) {
      duplicate_block(g, 0, c, idle);
      return true;
    }
    prev = c;
    prev_id = sid0;
  }
  return false;
}

/// Refill a half micro-batch until its last rank holds work.
Result<RankLists> expand(RankLists g) {
  while (!g.empty() && g.back().empty()) {
    auto changed = fill_empty_once(g);
    if (!changed.ok()) return changed.error();
    if (!*changed) {
      int idle = 0;
      while (idle < static_cast<int>(g.size()) && g[g.size() - 1 - idle].empty())
        ++idle;
      return make_error("VPP alignment cannot refill " + std::to_string(idle) +
                        " idle rank(s) after a split: no CP block can double into them (upstream "
                        "loops forever in fill_empty; DP×CP = " +
                        std::to_string(g.size()) + " is not a power of two)");
    }
  }
  return g;
}

struct SplitHalves {
  bool splittable = false;
  MicroBatch kept;      // replaces the original
  MicroBatch appended;  // goes to the end
};

Result<SplitHalves> split(const MicroBatch& mb, int ranks) {
  RankLists group = rank_ids(mb, ranks);
  std::vector<int> bounds = {0};
  int prev = 0;
  while (bounds.back() != ranks) {
    const int start = bounds.back();
    if (group[start].empty())
      return make_error("VPP alignment: rank " + std::to_string(start) + " is idle");
    const int64_t sid0 = group[start].front();
    int c = 0;
    for (int r = start; r < ranks && holds(group[r], sid0); ++r)
      ++c;
    if (prev != 0 && c > prev) {
      return make_error("VPP alignment: CP block sizes grow from " + std::to_string(prev) + " to " +
                        std::to_string(c) + " at sample " + std::to_string(sid0));
    }
    bounds.push_back(start + c);
    prev = c;
  }
  SplitHalves out;
  if (bounds.size() == 2) return out;
  size_t k = 0;
  while (bounds[k] < ranks / 2)
    ++k;
  const int cut = bounds[k];
  RankLists left(group.begin(), group.begin() + cut);
  left.resize(ranks);
  RankLists right(group.begin() + cut, group.end());
  right.resize(ranks);
  auto right_full = expand(std::move(right));
  if (!right_full.ok()) return right_full.error();
  auto left_full = expand(std::move(left));
  if (!left_full.ok()) return left_full.error();
  auto kept = microbatch_from_rank_ids(*right_full);
  if (!kept.ok()) return kept.error();
  auto appended = microbatch_from_rank_ids(*left_full);
  if (!appended.ok()) return appended.error();
  out.splittable = true;
  out.kept = std::move(*kept);
  out.appended = std::move(*appended);
  return out;
}

}  // namespace

Result<std::vector<MicroBatch>> align_to_vpp_group(std::vector<MicroBatch> mbs, int ranks,
                                                   int multiple) {
  if (multiple <= 1 || mbs.empty()) return mbs;
  const size_t original = mbs.size();
  int remainder = static_cast<int>((multiple - mbs.size() % multiple) % multiple);
  int i = static_cast<int>(mbs.size()) - 1;
  size_t failed_in_a_row = 0;
  while (remainder > 0) {
    if (i < 0) {
      if (failed_in_a_row >= mbs.size()) {
        return make_error("--vpp-group " + std::to_string(multiple) + ": cannot make the " +
                          std::to_string(original) + " micro-batch(es) a multiple of " +
                          std::to_string(multiple) +
                          ": no micro-batch has a second CP group to split off (upstream "
                          "AssertionError 'no tail microbatch has enough ids to split')");
      }
      i = static_cast<int>(mbs.size()) - 1;
    }
    auto halves = split(mbs[i], ranks);
    if (!halves.ok()) return halves.error();
    if (halves->splittable) {
      mbs[i] = std::move(halves->kept);
      mbs.push_back(std::move(halves->appended));
      --remainder;
      failed_in_a_row = 0;
    } else {
      ++failed_in_a_row;
    }
    --i;
  }
  return mbs;
}

}  // namespace hcp::dcp
