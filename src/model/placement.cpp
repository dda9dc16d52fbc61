// Which link each group of a layout uses, from the closed-form placement of layout.h.
#include <algorithm>

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

GroupConfig group_config_of(const LayoutChoice& layout) {
  GroupConfig config;
  config.world_size = layout.world();
  config.tp = layout.tp;
  config.cp = layout.cp;
  config.pp = layout.pp;
  config.ep = layout.ep;
  if (layout.etp > 0) config.etp = layout.etp;
  if (layout.vpp > 1) config.vpp = layout.vpp;
  config.hcp = layout.hcp_sizes();
  return config;
}

}  // namespace

Result<LinkPlacement> place_links(const LayoutChoice& layout, int gpus_per_node,
                                  int nvlink_domain) {
  GroupConfig config = group_config_of(layout);
  NodeShape shape{gpus_per_node, std::max(gpus_per_node, nvlink_domain)};
  auto locality = layout_locality(config, shape);
  if (!locality) return locality.error();
  bool pp_inside = true;
  if (layout.pp > 1) {
    auto pp = place_group_kind(config, "pp", shape);
    if (!pp) return pp.error();
    pp_inside = pp->intra_domain();
  }

  LinkPlacement out;
  out.tp_inside_domain = locality->tp.intra_domain();
  out.cp_inside_domain = locality->cp.intra_domain();
  out.cp_offdomain_fraction = offdomain_fraction(locality->cp);
  if (locality->hcp_a2a) {
    out.hcp_a2a_inside_domain = locality->hcp_a2a->intra_domain();
    out.hcp_a2a_offdomain_fraction = offdomain_fraction(*locality->hcp_a2a);
  }
  if (locality->hcp_p2p) out.hcp_ring_inside_domain = locality->hcp_p2p->intra_domain();
  // A DP x CP group is the CP groups of one DP group's members: it stays inside a domain exactly
  // when the DP group and the CP group do (the domain holding the DP group's last member holds
  // that member's CP group too). Cheaper than placing the dp_cp kind, whose size is DP*CP.
  out.dp_inside_domain = locality->dp.intra_domain() && locality->cp.intra_domain();
  out.pp_inside_domain = pp_inside;
  return out;
}

}  // namespace hcp
