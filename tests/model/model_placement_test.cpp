// place_links() against the placements it summarises, computed kind by kind with
// layout_locality() / place_group_kind() (the planner's shortcut must not change any answer).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hcp/layout.h"
#include "hcp/model.h"

namespace hcp {
namespace {

double reference_fraction(const GroupPlacement& g) {
  if (g.intra_domain() || g.max_domains_spanned <= 1) return 0;
  return 1.0 - 1.0 / static_cast<double>(g.max_domains_spanned);
}

TEST(PlaceLinks, MatchesThePlacementOfEachGroupKind) {
  int checked = 0;
  for (int64_t world : {64, 512, 2304}) {
    for (int64_t tp : {1, 2, 4, 8}) {
      for (int64_t pp : {1, 2, 4}) {
        for (int64_t cp : {1, 2, 4, 8, 16, 32}) {
          if (world % (tp * pp * cp) != 0) continue;
          for (int64_t a2a : {0, 2, 4}) {
            if (a2a > 0 && (cp <= a2a || cp % a2a != 0)) continue;
            Layout l;
            l.tp = tp;
            l.pp = pp;
            l.cp = cp;
            l.dp = world / (tp * pp * cp);
            if (a2a > 0) {
              l.comm = CommType::kA2aP2p;
              l.hcp = {a2a, cp / a2a};
            }
            for (auto [gpn, domain] : {std::pair{8, 8}, std::pair{4, 72}, std::pair{4, 36}}) {
              auto got = place_links(l, gpn, domain);
              ASSERT_TRUE(got.ok()) << l.label();
              GroupOptions c;
              c.world_size = world;
              c.layout.tp = tp;
              c.layout.cp = cp;
              c.layout.pp = pp;
              c.layout.hcp = l.hcp_sizes();
              NodeShape shape{gpn, std::max(gpn, domain)};
              auto loc = layout_locality(c, shape);
              ASSERT_TRUE(loc.ok());
              auto ppg = place_group_kind(c, "pp", shape);
              ASSERT_TRUE(ppg.ok());
              std::string what = l.label() + " on " + std::to_string(domain);
              EXPECT_EQ(got->tp_inside_domain, loc->tp.intra_domain()) << what;
              EXPECT_EQ(got->cp_inside_domain, loc->cp.intra_domain()) << what;
              EXPECT_DOUBLE_EQ(got->cp_offdomain_fraction, reference_fraction(loc->cp)) << what;
              EXPECT_EQ(got->dp_inside_domain, loc->dp.intra_domain() && loc->cp.intra_domain())
                  << what;
              EXPECT_EQ(got->pp_inside_domain, ppg->intra_domain()) << what;
              if (loc->hcp_a2a) {
                EXPECT_EQ(got->hcp_a2a_inside_domain, loc->hcp_a2a->intra_domain()) << what;
                EXPECT_DOUBLE_EQ(got->hcp_a2a_offdomain_fraction, reference_fraction(*loc->hcp_a2a))
                    << what;
              }
              if (loc->hcp_p2p) {
                EXPECT_EQ(got->hcp_ring_inside_domain, loc->hcp_p2p->intra_domain()) << what;
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(PlaceLinks, InvalidLayoutsStayErrors) {
  Layout l;
  l.tp = 3;
  l.cp = 1;
  l.dp = 2;
  l.ep = 4;  // experts cannot be laid out: 6 ranks, EP 4
  EXPECT_FALSE(place_links(l, 8, 8).ok());
}

}  // namespace
}  // namespace hcp
