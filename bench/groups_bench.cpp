// Speed of the group construction and placement (hcp-plan groups, and the planner's inner loop),
// and of the text wrapping and finding folding every text report goes through.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/layout.h"
#include "hcp/text_util.h"

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

// One node (and NVLink domain) holding the whole world, as `plan --nodes 1 --gpus-per-node N`
// asks (issue #28): the closed form costs at most the world size, whatever the node size.
void BM_LayoutLocalityOneNode(benchmark::State& state) {
  const hcp::GroupOptions c = large_layout(state.range(0));
  const hcp::NodeShape shape{state.range(0), state.range(0)};
  for (auto _ : state) {
    auto loc = hcp::layout_locality(c, shape);
    benchmark::DoNotOptimize(loc.ok());
  }
}
BENCHMARK(BM_LayoutLocalityOneNode)
    ->Arg(1 << 14)
    ->Arg(1 << 16)
    ->Arg(1 << 18)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond);

// Wrapping one text row of n groups (groups --show n), issue #28: linear in the row's length.
void BM_WrapLongRow(benchmark::State& state) {
  std::string row = "tp                        2   8192           0          1              0  ";
  for (int64_t i = 0; i < state.range(0); ++i)
    row += "[" + std::to_string(2 * i) + " " + std::to_string(2 * i + 1) + "] ";
  for (auto _ : state) {
    std::string wrapped = hcp::wrap_text(row);
    benchmark::DoNotOptimize(wrapped.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(row.size()));
}
BENCHMARK(BM_WrapLongRow)->Arg(1 << 12)->Arg(1 << 14)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

// Folding n identical findings (every report format does it), issue #28.
void BM_FoldRepeats(benchmark::State& state) {
  std::vector<hcp::Diagnostic> ds;
  for (int64_t i = 0; i < state.range(0); ++i)
    ds.push_back(hcp::Diagnostic::note(hcp::Severity::kError, "unknown key", "k",
                                       hcp::Location{"a.yaml", static_cast<int>(i + 1), 1}));
  for (auto _ : state) {
    auto folded = hcp::fold_repeats(ds);
    benchmark::DoNotOptimize(folded.data());
  }
}
BENCHMARK(BM_FoldRepeats)->Arg(1 << 14)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

}  // namespace
