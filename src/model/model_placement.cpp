// Which link each group of a layout uses, from the closed-form placement of layout.h.
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "hcp/layout.h"
#include "hcp/model.h"

namespace hcp {

namespace {

/// Share of a rank's all-to-all peers outside its NVLink domain when the group spreads evenly over
/// `domains` domains.
double offdomain_fraction(const GroupPlacement& g) {
  if (g.intra_domain() || g.max_domains_spanned <= 1) return 0;
  return 1.0 - 1.0 / static_cast<double>(g.max_domains_spanned);
}

}  // namespace

GroupOptions group_options_of(const Layout& layout) {
  GroupOptions config;
  config.world_size = layout.world();
  config.layout = layout;
  config.layout.order = kDefaultRankOrder;
  if (!(layout.etp > 0)) config.layout.etp.reset();
  if (!(layout.vpp > 1)) config.layout.vpp.reset();
  config.layout.hcp = layout.hcp_sizes();
  return config;
}

Result<LinkPlacement> place_links(const Layout& layout, int gpus_per_node, int nvlink_domain) {
  GroupOptions config = group_options_of(layout);
  NodeShape shape{gpus_per_node, std::max(gpus_per_node, nvlink_domain)};
  const int64_t domain = std::max<int64_t>(1, shape.nvlink_domain);
  std::vector<int64_t> hcp = layout.hcp_sizes();
  // Only these kinds matter to the model. A group of more ranks than a domain holds cannot stay
  // inside one, so the groups of which only that is asked (TP, DP, PP, the HCP ring) are placed
  // only when they are small; CP and the HCP a2a level also need how many domains they span.
  enum Slot { kTp, kCp, kDp, kPp, kA2a, kRing, kSlots };
  std::vector<std::string_view> kinds;
  std::array<int, kSlots> index;
  index.fill(-1);
  auto want = [&](Slot slot, std::string_view kind, int64_t size, bool span_needed) {
    if (size <= 1 || (!span_needed && size > domain)) return;
    index[slot] = static_cast<int>(kinds.size());
    kinds.push_back(kind);
  };
  want(kTp, "tp", layout.tp, false);
  want(kCp, "cp", layout.cp, true);
  want(kDp, "dp", layout.dp, false);
  want(kPp, "pp", layout.pp, false);
  if (!hcp.empty()) want(kA2a, "hcp_L0", hcp[0], true);
  if (hcp.size() >= 2) want(kRing, "hcp_L1", hcp[1], false);
  // Resolving validates the config (as layout_locality() does) even when no kind is placed.
  auto placed = place_group_kinds(config, kinds, shape);
  if (!placed) return placed.error();
  auto inside = [&](Slot slot, int64_t size) {
    if (size <= 1) return true;
    if (index[slot] < 0) return false;  // more ranks than a domain
    return (*placed)[static_cast<size_t>(index[slot])].intra_domain();
  };
  auto fraction = [&](Slot slot) {
    return index[slot] < 0 ? 0.0 : offdomain_fraction((*placed)[static_cast<size_t>(index[slot])]);
  };
  LinkPlacement out;
  out.tp_inside_domain = inside(kTp, layout.tp);
  out.cp_inside_domain = inside(kCp, layout.cp);
  out.cp_offdomain_fraction = fraction(kCp);
  if (!hcp.empty()) {
    out.hcp_a2a_inside_domain = inside(kA2a, hcp[0]);
    out.hcp_a2a_offdomain_fraction = fraction(kA2a);
  }
  if (hcp.size() >= 2) out.hcp_ring_inside_domain = inside(kRing, hcp[1]);
  // A DP x CP group is the CP groups of one DP group's members: it stays inside a domain exactly
  // when the DP group and the CP group do (the domain holding the DP group's last member holds
  // that member's CP group too). Cheaper than placing the dp_cp kind, whose size is DP*CP.
  out.dp_inside_domain = inside(kDp, layout.dp) && out.cp_inside_domain;
  out.pp_inside_domain = inside(kPp, layout.pp);
  return out;
}

}  // namespace hcp
