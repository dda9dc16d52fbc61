// Speed of the group construction and placement (hcp-plan groups, and the planner's inner loop).
#include <benchmark/benchmark.h>

#include "hcp/layout.h"

namespace {

hcp::GroupOptions large_layout(int64_t world) {
  hcp::GroupOptions c;
  c.world_size = world;
  c.layout.tp = 8;
  c.layout.cp = 16;
  c.layout.pp = 4;
  c.layout.ep = 8;
  c.layout.etp = 1;
  c.layout.hcp = {2, 8};
  return c;
}

// Every group of a 16,384-rank layout (target < 50 ms).
void BM_BuildAllGroups16k(benchmark::State& state) {
  const hcp::GroupOptions c = large_layout(16384);
  for (auto _ : state) {
    auto g = hcp::build_groups(c);
    benchmark::DoNotOptimize(g.ok());
  }
}
BENCHMARK(BM_BuildAllGroups16k)->Unit(benchmark::kMillisecond);

// The same world with a placement summary of every group kind (what `hcp-plan groups` does).
void BM_BuildAndPlace16k(benchmark::State& state) {
  const hcp::GroupOptions c = large_layout(16384);
  const hcp::NodeShape shape{4, 72};
  for (auto _ : state) {
    auto g = hcp::build_groups(c);
    int64_t crossing = 0;
    for (const auto& k : g->kinds)
      crossing += hcp::place(k.groups, shape).cross_node_groups;
    for (const auto& level : g->hcp)
      crossing += hcp::place(level, shape).cross_node_groups;
    benchmark::DoNotOptimize(crossing);
  }
}
BENCHMARK(BM_BuildAndPlace16k)->Unit(benchmark::kMillisecond);

// The planner's question for one candidate: TP/CP/DP/EP/HCP locality, without building groups.
void BM_LayoutLocalityClosedForm16k(benchmark::State& state) {
  const hcp::GroupOptions c = large_layout(16384);
  const hcp::NodeShape shape{4, 72};
  for (auto _ : state) {
    auto loc = hcp::layout_locality(c, shape);
    benchmark::DoNotOptimize(loc.ok());
  }
}
BENCHMARK(BM_LayoutLocalityClosedForm16k)->Unit(benchmark::kMicrosecond);

}  // namespace
