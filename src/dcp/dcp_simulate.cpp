// The time model of dynamic_cp.md §8 and the whole-input simulation: steps of --global-batch
// sequences, the dynamic schedule of each, and the two static-CP baselines.
#include <algorithm>
#include <bit>
#include <cmath>

#include "schedule_internal.h"

namespace hcp::dcp {

// ---------------------------------------------------------------------------------------------
// Time model
// ---------------------------------------------------------------------------------------------

namespace {
constexpr double kForwardAndBackward = 3.0;  // backward costs about twice the forward pass
}  // namespace

double TimeModel::alpha() const {
  // Causal attention: QK^T and PV are 2*L^2*h FLOPs per layer in the forward pass.
  const double flops = kForwardAndBackward * 2.0 * hidden * n_layers;
  return flops / (tflops * 1e12 * std::max(tp, 1));
}

double TimeModel::beta() const {
  // Linear layers: 2 FLOPs per parameter and token (Q, O: h*h; K, V: h*kv; MLP: 2 or 3 h*ffn).
  const double mlp_matrices = gated_linear_unit ? 3.0 : 2.0;
  const double params =
      2.0 * hidden * hidden + 2.0 * hidden * kv_hidden + mlp_matrices * hidden * ffn_hidden;
  return kForwardAndBackward * 2.0 * params * n_layers / (tflops * 1e12 * std::max(tp, 1));
}

double TimeModel::useful_time(int64_t length) const {
  const double l = static_cast<double>(length);
  return alpha() * l * l + beta() * l;
}

double TimeModel::rank_time(std::span<const int64_t> lengths, int cp) const {
  const double a = alpha();
  const double b = beta();
  double attention = 0;
  double tokens = 0;
  for (int64_t length : lengths) {
    const double l = static_cast<double>(length);
    attention += a * l * l / cp;
    tokens += l / cp;
  }
  const double compute = attention + b * tokens;
  if (cp <= 1 || n_layers <= 0) return compute;
  // Ring attention: forward sends K,V c-1 times; backward sends K,V and dK,dV c-1 times each.
  const int ring_steps = 3 * (cp - 1);
  const double bytes = ring_steps * 2.0 * tokens * kv_hidden / std::max(tp, 1) * bytes_per_element;
  const bool intra = static_cast<int64_t>(cp) * std::max(tp, 1) <= gpus_per_node;
  const double bandwidth = (intra ? intra_node_gbps : inter_node_gbps) * 1e9;
  const double comm = bytes / bandwidth;
  const double overlap_with = attention / n_layers;  // one layer's attention hides its exchange
  const double exposed = std::max(0.0, comm - overlap_with) + ring_steps * step_latency_us * 1e-6;
  return compute + n_layers * exposed;
}

// ---------------------------------------------------------------------------------------------
// Simulation
// ---------------------------------------------------------------------------------------------

namespace {

/// Lengths of a group's samples (ids are global positions into `lengths`), in a buffer reused
/// across calls so the million-sequence simulation does not allocate per group.
std::span<const int64_t> group_lengths(const CpGroup& g, const std::vector<int64_t>& lengths) {
  thread_local std::vector<int64_t> buffer;
  buffer.clear();
  for (int64_t id : g.ids)
    buffer.push_back(lengths[static_cast<size_t>(id)]);
  return buffer;
}

/// Modelled time of one micro-batch: its slowest group.
double microbatch_time(const MicroBatch& mb, const std::vector<int64_t>& lengths,
                       const TimeModel& model) {
  double slowest = 0;
  for (const CpGroup& g : mb.groups) {
    slowest = std::max(slowest, model.rank_time(group_lengths(g, lengths), g.size));
  }
  return slowest;
}

MicroBatchLoad load_of(const MicroBatch& mb, int ranks, const std::vector<int64_t>& lengths,
                       const TimeModel& model) {
  MicroBatchLoad load;
  load.local_cp_size.assign(ranks, 0);
  load.work.assign(ranks, 0.0);
  load.tokens.assign(ranks, 0.0);
  load.time_s.assign(ranks, 0.0);
  for (const CpGroup& g : mb.groups) {
    double work = 0;
    double tokens = 0;
    for (int64_t id : g.ids) {
      work += internal::workload(lengths[id], g.size);
      tokens += internal::tokens_per_rank(lengths[id], g.size);
    }
    const double time = model.rank_time(group_lengths(g, lengths), g.size);
    for (int r = g.first_rank; r < g.first_rank + g.size && r < ranks; ++r) {
      load.local_cp_size[r] = g.size;
      load.work[r] = work;
      load.tokens[r] = tokens;
      load.time_s[r] = time;
    }
  }
  return load;
}

std::vector<Sample> step_samples(const std::vector<int64_t>& lengths, int64_t first,
                                 int64_t count) {
  std::vector<Sample> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    out[i] = Sample{first + i, lengths[first + i]};
  return out;
}

Error in_step(int64_t step, int64_t steps, const Error& error) {
  if (steps <= 1) return error;
  return Error{"step " + std::to_string(step) + ": " + error.message, error.location, error.key};
}

/// Running totals for the upstream L^2/c balance metric.
struct BalanceTotals {
  double work = 0;
  double slowest = 0;
};

void add_balance(BalanceTotals& totals, const MicroBatch& mb, const std::vector<int64_t>& lengths,
                 double& max_tokens) {
  double slowest = 0;
  for (const CpGroup& g : mb.groups) {
    double work = 0;
    double tokens = 0;
    for (int64_t id : g.ids) {
      work += internal::workload(lengths[id], g.size);
      tokens += internal::tokens_per_rank(lengths[id], g.size);
    }
    totals.work += work * g.size;
    slowest = std::max(slowest, work);
    max_tokens = std::max(max_tokens, tokens);
  }
  totals.slowest += slowest;
}

int64_t bshd_length(const SimulationInput& input, int64_t longest) {
  const int64_t base = input.seq_length > 0 ? input.seq_length : longest;
  const int64_t multiple = input.knobs.cp > 1 ? 2 * input.knobs.cp : 1;
  return (base + multiple - 1) / multiple * multiple;
}

void finish_cost(ScheduleCost& cost, double useful, int ranks) {
  cost.utilization = cost.time_s > 0 ? useful / (ranks * cost.time_s) : 0;
}

}  // namespace

Result<SimulationReport> simulate(const SimulationInput& input) {
  const SchedulerKnobs& knobs = input.knobs;
  if (Status ok = validate_knobs(knobs); !ok.ok()) return ok.error();
  if (input.lengths.empty()) return make_error("no sequence lengths in the input");
  if (input.global_batch < 0) return make_error("--global-batch must be >= 1");
  const int64_t total = static_cast<int64_t>(input.lengths.size());
  const int64_t per_step = input.global_batch > 0 ? input.global_batch : total;
  const int64_t steps = total / per_step;
  if (steps == 0) {
    return make_error("--global-batch " + std::to_string(per_step) + " is larger than the " +
                      std::to_string(total) + " sequence(s) of the input");
  }
  const int64_t longest = *std::max_element(input.lengths.begin(), input.lengths.end());
  if (input.seq_length > 0 && input.seq_length < longest) {
    return make_error("--seq-length " + std::to_string(input.seq_length) +
                      " is shorter than the longest sequence (" + std::to_string(longest) + ")");
  }

  SimulationReport report;
  report.input = input;
  report.input.lengths.clear();
  report.steps = steps;
  report.samples = steps * per_step;
  report.bshd_seq_length = bshd_length(input, longest);
  const int ranks = knobs.ranks();
  if (!std::has_single_bit(static_cast<unsigned>(ranks))) {
    report.warnings.push_back("DP×CP = " + std::to_string(ranks) +
                              " is not a power of two: upstream only asserts an even size, but "
                              "its scheduler often fails or loops on such pools");
  }
  if (steps * per_step < total) {
    report.warnings.push_back(
        std::to_string(total - steps * per_step) + " trailing sequence(s) do not fill a step of " +
        std::to_string(per_step) + " and are dropped, as Megatron's sampler drops the last batch");
  }

  const TimeModel& model = input.time;
  const double bshd_time_per_mb =
      model.rank_time(std::span<const int64_t>(&report.bshd_seq_length, 1), knobs.cp);
  const int64_t bshd_mbs_per_step = (per_step + knobs.dp - 1) / knobs.dp;
  BalanceTotals balance;
  double useful = 0;
  ScheduleCost thd;
  for (int64_t step = 0; step < steps; ++step) {
    const int64_t first = step * per_step;
    std::vector<Sample> samples = step_samples(input.lengths, first, per_step);
    auto scheduled = schedule_step(samples, knobs);
    if (!scheduled.ok()) return in_step(step, steps, scheduled.error());
    report.microbatches_per_step.push_back(static_cast<int64_t>(scheduled->size()));
    for (const MicroBatch& mb : *scheduled) {
      report.dynamic.time_s += microbatch_time(mb, input.lengths, model);
      add_balance(balance, mb, input.lengths, report.max_tokens_per_rank);
      for (const CpGroup& g : mb.groups) {
        report.cp_size_histogram[g.size] += static_cast<int64_t>(g.ids.size());
        for (int64_t id : g.ids)
          report.cp_size_tokens[g.size] += input.lengths[id];
      }
    }
    report.dynamic.microbatches += static_cast<int64_t>(scheduled->size());
    for (const Sample& s : samples) {
      useful += model.useful_time(s.length);
      report.tokens += s.length;
    }
    report.static_bshd.microbatches += bshd_mbs_per_step;
    report.static_bshd.time_s += static_cast<double>(bshd_mbs_per_step) * bshd_time_per_mb;
    if (report.static_thd_error.empty()) {
      auto baseline = schedule_dp_balanced(samples, knobs.dp, knobs.cp, knobs.max_seqlen_per_rank,
                                           knobs.vpp_group);
      if (baseline.ok()) {
        thd.microbatches += static_cast<int64_t>(baseline->size());
        for (const MicroBatch& mb : *baseline)
          thd.time_s += microbatch_time(mb, input.lengths, model);
      } else {
        report.static_thd_error = in_step(step, steps, baseline.error()).message;
      }
    }
    if (step == 0) {
      report.first_step_offset = first;
      report.first_step_lengths.assign(input.lengths.begin() + first,
                                       input.lengths.begin() + first + per_step);
      for (const MicroBatch& mb : *scheduled) {
        report.first_step_load.push_back(load_of(mb, ranks, input.lengths, model));
      }
      report.first_step = std::move(*scheduled);
    }
  }
  report.load_balance = balance.slowest > 0 ? balance.work / (ranks * balance.slowest) : 0;
  finish_cost(report.dynamic, useful, ranks);
  finish_cost(report.static_bshd, useful, ranks);
  if (report.static_thd_error.empty()) {
    finish_cost(thd, useful, ranks);
    report.static_thd = thd;
    report.speedup_vs_thd = report.dynamic.time_s > 0 ? thd.time_s / report.dynamic.time_s : 0;
  }
  report.speedup_vs_bshd =
      report.dynamic.time_s > 0 ? report.static_bshd.time_s / report.dynamic.time_s : 0;
  return report;
}

}  // namespace hcp::dcp
