// Properties every schedule must have, over many seeded random inputs with power-of-two pools:
// each sample exactly once per step, every rank in exactly one group, CP sizes powers of two and
// >= min_cp, groups aligned to their size, and (dev head) at most m tokens per rank.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <set>

#include "hcp/dcp.h"

namespace hcp::dcp {
namespace {

struct RandomCase {
  SchedulerKnobs knobs;
  std::vector<Sample> samples;
};

RandomCase random_case(std::mt19937_64& rng, Variant variant) {
  auto pick = [&](std::initializer_list<int> values) {
    std::vector<int> v(values);
    return v[rng() % v.size()];
  };
  RandomCase c;
  c.knobs.dp = pick({1, 2, 4, 8, 16});
  c.knobs.cp = pick({2, 4});
  c.knobs.max_seqlen_per_rank = pick({64, 256, 1000, 2048, 4096});
  c.knobs.variant = variant;
  if (variant != Variant::kMainHybrid) {
    c.knobs.min_cp = std::min(pick({1, 1, 2, 4}), c.knobs.ranks());
  }
  const int n = 1 + static_cast<int>(rng() % 200);
  std::lognormal_distribution<double> dist(0.0, 1.3);
  const double max_len = static_cast<double>(c.knobs.max_seqlen_per_rank) * c.knobs.ranks();
  for (int i = 0; i < n; ++i) {
    const double x = dist(rng) * static_cast<double>(c.knobs.max_seqlen_per_rank) / 2;
    c.samples.push_back({i, static_cast<int64_t>(std::clamp(x, 1.0, max_len))});
  }
  return c;
}

void check_properties(const RandomCase& c, const std::vector<MicroBatch>& mbs) {
  const int ranks = c.knobs.ranks();
  std::vector<int> seen(c.samples.size(), 0);  // times each sample id is placed
  size_t placed = 0;
  for (const MicroBatch& mb : mbs) {
    int next_rank = 0;
    double max_tokens = 0;
    for (const CpGroup& g : mb.groups) {
      ASSERT_EQ(g.first_rank, next_rank) << "rank slots double-booked or skipped";
      ASSERT_TRUE(std::has_single_bit(static_cast<unsigned>(g.size))) << g.size;
      ASSERT_GE(g.size, c.knobs.min_cp);
      ASSERT_EQ(g.first_rank % g.size, 0) << "group not aligned to its size";
      ASSERT_FALSE(g.ids.empty());
      double tokens = 0;
      for (int64_t id : g.ids) {
        ASSERT_TRUE(id >= 0 && static_cast<size_t>(id) < seen.size()) << "unknown sample " << id;
        ++seen[static_cast<size_t>(id)];
        ++placed;
        tokens += static_cast<double>(c.samples[static_cast<size_t>(id)].length) / g.size;
      }
      max_tokens = std::max(max_tokens, tokens);
      next_rank += g.size;
    }
    ASSERT_EQ(next_rank, ranks);
    if (c.knobs.variant == Variant::kDevHead) {
      EXPECT_LE(max_tokens, static_cast<double>(c.knobs.max_seqlen_per_rank));
    }
  }
  ASSERT_EQ(placed, c.samples.size());
  for (const Sample& s : c.samples)
    ASSERT_EQ(seen[static_cast<size_t>(s.id)], 1) << "sample " << s.id;
}

void run_properties(Variant variant, int cases, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < cases; ++i) {
    RandomCase c = random_case(rng, variant);
    SCOPED_TRACE("case " + std::to_string(i));
    auto r = schedule_step(c.samples, c.knobs);
    ASSERT_TRUE(r.ok()) << r.error().message;  // power-of-two pools never fail upstream
    check_properties(c, *r);
  }
}

TEST(Properties, DevHead) {
  run_properties(Variant::kDevHead, 400, 1);
}
TEST(Properties, DevPr2000) {
  run_properties(Variant::kDevPr2000, 200, 2);
}
TEST(Properties, MainHybrid) {
  run_properties(Variant::kMainHybrid, 200, 3);
}

TEST(Properties, VppAlignedCountsAreMultiplesWhenTheyExist) {
  std::mt19937_64 rng(4);
  int aligned = 0;
  for (int i = 0; i < 300; ++i) {
    RandomCase c = random_case(rng, Variant::kDevHead);
    c.knobs.vpp_group = 2 + static_cast<int>(rng() % 3);
    auto r = schedule_step(c.samples, c.knobs);
    if (!r.ok()) {
      // The one failure a power-of-two pool can have: nothing left to split.
      EXPECT_NE(r.error().message.find("--vpp-group"), std::string::npos) << r.error().message;
      continue;
    }
    ++aligned;
    EXPECT_EQ(r->size() % static_cast<size_t>(c.knobs.vpp_group), 0u);
    check_properties(c, *r);
  }
  EXPECT_GT(aligned, 150);
}

TEST(Properties, DpBalancedKeepsEverySampleOnce) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    RandomCase c = random_case(rng, Variant::kDevHead);
    auto r = schedule_dp_balanced(c.samples, c.knobs.dp, c.knobs.cp, c.knobs.max_seqlen_per_rank);
    if (!r.ok()) continue;  // fewer samples than DP replicas
    std::multiset<int64_t> seen;
    for (const MicroBatch& mb : *r) {
      ASSERT_EQ(mb.groups.size(), static_cast<size_t>(c.knobs.dp));
      for (const CpGroup& g : mb.groups) {
        EXPECT_EQ(g.size, c.knobs.cp);
        seen.insert(g.ids.begin(), g.ids.end());
      }
    }
    EXPECT_EQ(seen.size(), c.samples.size());
    EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), c.samples.size());
  }
}

}  // namespace
}  // namespace hcp::dcp
