// Static-CP packed baseline: Megatron-LM dev's DpBalancedScheduler (dynamic_cp.md §2.9).
#include "schedule_internal.h"

namespace hcp::dcp {

Result<std::vector<MicroBatch>> schedule_dp_balanced(std::span<const Sample> samples, int dp,
                                                     int cp, int64_t max_seqlen_per_rank,
                                                     int vpp_group, int max_num_seqs) {
  if (dp < 1 || cp < 1 || max_seqlen_per_rank < 1) {
    return make_error("dp_balanced needs dp, cp and --max-seqlen-per-dp-cp-rank >= 1");
  }
  // Next-fit packing in input order. Upstream emits an empty first bin when the first sequence
  // alone exceeds the capacity; we do not (an empty bin would idle a whole DP replica).
  // Checked: m comes from the command line or a recipe (validate_knobs bounds it, this does not
  // rely on that).
  int64_t capacity = 0;
  if (__builtin_mul_overflow(max_seqlen_per_rank, int64_t{cp}, &capacity)) {
    return make_error("dp_balanced: --max-seqlen-per-dp-cp-rank x CP overflows a 64-bit integer");
  }
  std::vector<std::vector<Sample>> bins;
  std::vector<Sample> current;
  int64_t tokens = 0;
  for (const Sample& s : samples) {
    const bool room = tokens + s.length <= capacity &&
                      (max_num_seqs <= 0 || static_cast<int>(current.size()) < max_num_seqs);
    if (!room && !current.empty()) {
      bins.push_back(std::move(current));
      current.clear();
      tokens = 0;
    }
    current.push_back(s);
    tokens += s.length;
  }
  if (!current.empty()) bins.push_back(std::move(current));

  // Make the bin count a multiple of dp * vpp_group by moving single sequences out of the last
  // bins that hold more than one.
  const size_t multiple = static_cast<size_t>(dp) * static_cast<size_t>(std::max(vpp_group, 1));
  if (bins.size() % multiple != 0) {
    size_t to_move = multiple - bins.size() % multiple;
    int64_t i = static_cast<int64_t>(bins.size()) - 1;
    while (to_move > 0) {
      if (i < 0) {
        return make_error(
            "dp_balanced: " + std::to_string(samples.size()) +
            " sequence(s) cannot fill a multiple of DP×VPP-group = " + std::to_string(multiple) +
            " bins (upstream 'Not enough samples to move')");
      }
      if (bins[i].size() > 1) {
        bins.push_back({bins[i].back()});
        bins[i].pop_back();
        --to_move;
      } else {
        --i;
      }
    }
  }

  std::vector<MicroBatch> mbs(bins.size() / static_cast<size_t>(dp));
  for (size_t m = 0; m < mbs.size(); ++m) {
    for (int d = 0; d < dp; ++d) {
      CpGroup g{d * cp, cp, {}};
      for (const Sample& s : bins[m * dp + d])
        g.ids.push_back(s.id);
      mbs[m].groups.push_back(std::move(g));
    }
  }
  return mbs;
}

}  // namespace hcp::dcp
