// Speed of the Dynamic CP simulator: the target is 1M sequences, --global-batch 256,
// DP×CP = 64, in under 1 s (scheduler, both static baselines and the time model included).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "hcp/dcp.h"

namespace {

const std::vector<int64_t>& million_lengths() {
  // The Megatron dev Dynamic-CP example's distribution: log-normal, mean 1024, sigma 1.5, <= 8192.
  static const std::vector<int64_t> lengths =
      hcp::dcp::synthetic_lengths(hcp::dcp::SyntheticSpec{1024, 1.5, 1'000'000, 8192}, /*seed=*/1);
  return lengths;
}

hcp::dcp::SimulationInput million_input(hcp::dcp::Variant variant) {
  hcp::dcp::SimulationInput in;
  in.lengths = million_lengths();
  in.knobs.dp = 16;
  in.knobs.cp = 4;
  in.knobs.max_seqlen_per_rank = 2048;
  in.knobs.variant = variant;
  in.global_batch = 256;
  return in;
}

void BM_SimulateMillion(benchmark::State& state) {
  const auto variant = static_cast<hcp::dcp::Variant>(state.range(0));
  const hcp::dcp::SimulationInput in = million_input(variant);
  for (auto _ : state) {
    auto report = hcp::dcp::simulate(in);
    if (!report.ok()) state.SkipWithError(report.error().message.c_str());
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(in.lengths.size()));
  state.SetLabel(hcp::dcp::variant_name(variant));
}
BENCHMARK(BM_SimulateMillion)
    ->Arg(static_cast<int>(hcp::dcp::Variant::kDevHead))
    ->Arg(static_cast<int>(hcp::dcp::Variant::kDevPr2000))
    ->Arg(static_cast<int>(hcp::dcp::Variant::kMainHybrid))
    ->Unit(benchmark::kMillisecond);

void BM_ScheduleOneStep(benchmark::State& state) {
  const auto& lengths = million_lengths();
  std::vector<hcp::dcp::Sample> samples;
  for (int64_t i = 0; i < state.range(0); ++i)
    samples.push_back({i, lengths[i]});
  hcp::dcp::SchedulerKnobs knobs;
  knobs.dp = 16;
  knobs.cp = 4;
  knobs.max_seqlen_per_rank = 2048;
  for (auto _ : state) {
    auto mbs = hcp::dcp::schedule_step(samples, knobs);
    benchmark::DoNotOptimize(mbs);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ScheduleOneStep)->Arg(256)->Arg(4096)->Unit(benchmark::kMicrosecond);
// The whole input as one step (dcp without --global-batch), issue #28: n log n, so doubling n
// about doubles the time (it was quadratic: 100k sequences took 34 s).
BENCHMARK(BM_ScheduleOneStep)
    ->Arg(1 << 16)
    ->Arg(1 << 17)
    ->Arg(1 << 18)
    ->Unit(benchmark::kMillisecond);

/// 100,000 sequences in one step on a pool of DP×CP = 1024 x 1024 ranks, each variant: range(0)
/// is the variant, range(1) the lengths: 0 the log-normal example, 1 all equal to m (every group
/// is full after one sequence). The pool outnumbers the sequences ten to one, so each micro-batch
/// holds up to 100,000 groups and fills about a million idle ranks. Every sequence used to scan
/// every group of its size and every idle rank cost a pass over the groups: this case ran for
/// minutes; searching the groups by tree and filling one group size per pass makes it n log n.
void BM_ScheduleLargePool(benchmark::State& state) {
  constexpr int64_t kSequences = 100'000;
  constexpr int64_t kMaxSeqlen = 2048;
  std::vector<hcp::dcp::Sample> samples;
  for (int64_t i = 0; i < kSequences; ++i)
    samples.push_back({i, state.range(1) == 0 ? million_lengths()[i] : kMaxSeqlen});
  hcp::dcp::SchedulerKnobs knobs;
  knobs.dp = 1024;
  knobs.cp = 1024;
  knobs.max_seqlen_per_rank = kMaxSeqlen;
  knobs.variant = static_cast<hcp::dcp::Variant>(state.range(0));
  for (auto _ : state) {
    auto mbs = hcp::dcp::schedule_step(samples, knobs);
    if (!mbs.ok()) state.SkipWithError(mbs.error().message.c_str());
    benchmark::DoNotOptimize(mbs);
  }
  state.SetItemsProcessed(state.iterations() * kSequences);
  state.SetLabel(std::string(hcp::dcp::variant_name(knobs.variant)) +
                 (state.range(1) == 0 ? " log-normal" : " all m"));
}
BENCHMARK(BM_ScheduleLargePool)
    ->ArgsProduct({{static_cast<int>(hcp::dcp::Variant::kDevHead),
                    static_cast<int>(hcp::dcp::Variant::kDevPr2000),
                    static_cast<int>(hcp::dcp::Variant::kMainHybrid)},
                   {0, 1}})
    ->Unit(benchmark::kMillisecond);

void BM_SyntheticMillion(benchmark::State& state) {
  for (auto _ : state) {
    auto lengths =
        hcp::dcp::synthetic_lengths(hcp::dcp::SyntheticSpec{1024, 1.5, 1'000'000, 8192}, 1);
    benchmark::DoNotOptimize(lengths);
  }
}
BENCHMARK(BM_SyntheticMillion)->Unit(benchmark::kMillisecond);

}  // namespace
