// Rendering of a SimulationReport: text for people, JSON for scripts (ARCHITECTURE.md §4).
// Only formats; every number comes from simulate().
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "hcp/dcp.h"
#include "hcp/json_io.h"
#include "hcp/text_util.h"

namespace hcp::dcp {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string percent(double fraction) {
  return fixed(100.0 * fraction, 1) + "%";
}

std::string seconds(double s) {
  if (s >= 1.0) return fixed(s, 2) + " s";
  return fixed(s * 1e3, 2) + " ms";
}

struct PerStep {
  int64_t min = 0;
  int64_t max = 0;
  double mean = 0;
  int64_t total = 0;
};

PerStep summarize_steps(const std::vector<int64_t>& counts) {
  PerStep out;
  if (counts.empty()) return out;
  out.min = *std::min_element(counts.begin(), counts.end());
  out.max = *std::max_element(counts.begin(), counts.end());
  out.total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  out.mean = static_cast<double>(out.total) / static_cast<double>(counts.size());
  return out;
}

/// "CP8x1 CP4x2 CP1x8": group sizes of a micro-batch, largest first.
std::string group_summary(const MicroBatch& mb) {
  std::map<int, int, std::greater<>> sizes;
  for (const CpGroup& g : mb.groups)
    ++sizes[g.size];
  std::string out;
  for (auto [size, count] : sizes) {
    if (!out.empty()) out += ' ';
    out += "CP" + std::to_string(size) + "x" + std::to_string(count);
  }
  return out;
}

void text_histogram(std::ostringstream& out, const SimulationReport& r) {
  int64_t largest = 0;
  for (auto [cp, n] : r.cp_size_histogram)
    largest = std::max(largest, n);
  // "CP " and the size in a column as wide as the largest size, plus a space.
  size_t cp_width = 4;
  for (auto [cp, n] : r.cp_size_histogram)
    cp_width = std::max(cp_width, std::to_string(cp).size() + 1);
  out << "CP size histogram (sequences, share of tokens):\n";
  for (auto [cp, n] : r.cp_size_histogram) {
    const int width = largest > 0 ? static_cast<int>((30 * n + largest - 1) / largest) : 0;
    std::string bar;
    for (int i = 0; i < width; ++i)
      bar += "\u2588";
    const double token_share =
        r.tokens > 0 ? static_cast<double>(r.cp_size_tokens.at(cp)) / r.tokens : 0.0;
    out << "  CP " << pad_column(std::to_string(cp), cp_width) << pad_column(bar, 31)
        << pad_column(std::to_string(n), 9) << percent(token_share) << "\n";
  }
}

void text_first_step(std::ostringstream& out, const SimulationReport& r) {
  constexpr size_t kShown = 12;
  out << "First step: " << r.first_step.size()
      << " micro-batch(es); per-rank load (tokens = sum L/c, work = sum L^2/c):\n";
  // The CP groups column is as wide as the longest summary shown (30 at least).
  const size_t shown = std::min(r.first_step.size(), kShown);
  std::vector<std::string> summaries;
  size_t groups_width = 30;
  for (size_t i = 0; i < shown; ++i) {
    summaries.push_back(group_summary(r.first_step[i]));
    groups_width = std::max(groups_width, summaries.back().size() + 2);
  }
  out << "  " << pad_column("mb", 5) << pad_column("CP groups", groups_width)
      << pad_column("tokens max/mean", 18) << pad_column("work balance", 14) << "time\n";
  for (size_t i = 0; i < shown; ++i) {
    const MicroBatchLoad& load = r.first_step_load[i];
    const double n = static_cast<double>(load.tokens.size());
    const double tok_max = *std::max_element(load.tokens.begin(), load.tokens.end());
    const double tok_mean = std::accumulate(load.tokens.begin(), load.tokens.end(), 0.0) / n;
    const double work_max = *std::max_element(load.work.begin(), load.work.end());
    const double work_mean = std::accumulate(load.work.begin(), load.work.end(), 0.0) / n;
    const double time_max = *std::max_element(load.time_s.begin(), load.time_s.end());
    out << "  " << pad_column(std::to_string(i), 5) << pad_column(summaries[i], groups_width)
        << pad_column(fixed(tok_max, 0) + "/" + fixed(tok_mean, 0), 18)
        << pad_column(percent(work_max > 0 ? work_mean / work_max : 0), 14) << seconds(time_max)
        << "\n";
  }
  if (r.first_step.size() > kShown) {
    out << "  ... " << r.first_step.size() - kShown << " more (see --format json)\n";
  }
}

void text_baselines(std::ostringstream& out, const SimulationReport& r) {
  const SchedulerKnobs& k = r.input.knobs;
  out << "Static CP " << k.cp << " at the same DP×CP (" << k.dp << "x" << k.cp << "):\n";
  out << "  padded bshd (seq " << r.bshd_seq_length << "):  " << r.static_bshd.microbatches
      << " micro-batches, " << seconds(r.static_bshd.time_s) << ", utilization "
      << percent(r.static_bshd.utilization) << "\n";
  if (r.static_thd) {
    out << "  packed thd (dp_balanced):  " << r.static_thd->microbatches << " micro-batches, "
        << seconds(r.static_thd->time_s) << ", utilization " << percent(r.static_thd->utilization)
        << "\n";
  } else {
    out << "  packed thd (dp_balanced):  fails upstream: " << r.static_thd_error << "\n";
  }
  out << "Dynamic CP (" << variant_name(k.variant) << "):  " << r.dynamic.microbatches
      << " micro-batches, " << seconds(r.dynamic.time_s) << ", utilization "
      << percent(r.dynamic.utilization) << "\n";
  out << "Estimated speed-up: ";
  if (r.static_thd) out << fixed(r.speedup_vs_thd, 2) << "x over packed thd, ";
  out << fixed(r.speedup_vs_bshd, 2) << "x over padded bshd\n";
  out << "  (a time model, not a measurement: on Megatron's published Dynamic CP benchmark, 4 to "
         "64 GPUs, its speed-up over packed thd came within "
      << format_percent(kPublishedSpeedupMaxError) << " of each measured one, "
      << format_percent(kPublishedSpeedupMeanError)
      << " on average; its times, which leave out the output layer, the optimizer step and DP "
         "gradient sync, were "
      << format_fixed(kPublishedStepTimeRatio.first, 1) << "x to "
      << format_fixed(kPublishedStepTimeRatio.second, 1) << "x below the measured step times)\n";
}

Json time_model_json(const TimeModel& t) {
  return Json{{"layers", t.n_layers},
              {"hidden", t.hidden},
              {"ffn_hidden", t.ffn_hidden},
              {"kv_hidden", t.kv_hidden},
              {"gated_linear_unit", t.gated_linear_unit},
              {"tp", t.tp},
              {"tflops", t.tflops},
              {"gpus_per_node", t.gpus_per_node},
              {"intra_node_gbps", t.intra_node_gbps},
              {"inter_node_gbps", t.inter_node_gbps},
              {"step_latency_us", t.step_latency_us},
              {"alpha_s_per_token2", t.alpha()},
              {"beta_s_per_token", t.beta()}};
}

Json cost_json(const ScheduleCost& c) {
  return Json{
      {"microbatches", c.microbatches}, {"time_s", c.time_s}, {"utilization", c.utilization}};
}

Json microbatch_json(const MicroBatch& mb, const MicroBatchLoad& load, int ranks, int64_t offset) {
  Json ranks_json = Json::array();
  for (const auto& ids : rank_ids(mb, ranks)) {
    Json list = Json::array();
    for (int64_t id : ids)
      list.push_back(id - offset);
    ranks_json.push_back(std::move(list));
  }
  std::map<int64_t, int> cp_of;
  for (const CpGroup& g : mb.groups) {
    for (int64_t id : g.ids)
      cp_of[id - offset] = g.size;
  }
  Json cp_json = Json::object();
  for (auto [id, cp] : cp_of)
    cp_json[std::to_string(id)] = cp;
  return Json{{"ranks", std::move(ranks_json)},
              {"cp_per_sample", std::move(cp_json)},
              {"local_cp_size_per_rank", load.local_cp_size},
              {"work_per_rank", load.work},
              {"tokens_per_rank", load.tokens},
              {"time_per_rank_s", load.time_s}};
}

}  // namespace

std::string report_text(const SimulationReport& r) {
  const SchedulerKnobs& k = r.input.knobs;
  std::ostringstream out;
  const int64_t per_step = r.steps > 0 ? r.samples / r.steps : 0;
  out << "Dynamic CP simulation (" << variant_name(k.variant) << "): " << r.samples
      << " sequences, " << r.tokens << " tokens, " << r.steps << " step(s) of " << per_step << "\n";
  out << "  DP×CP = " << k.dp << "x" << k.cp << " = " << k.ranks()
      << " ranks, --max-seqlen-per-dp-cp-rank " << k.max_seqlen_per_rank << ", --min-cp "
      << k.min_cp;
  if (k.vpp_group > 1) out << ", --vpp-group " << k.vpp_group;
  out << "\n";
  for (const std::string& w : r.warnings)
    out << "warning: " << w << "\n";
  out << "\n";
  text_histogram(out, r);
  const PerStep mbs = summarize_steps(r.microbatches_per_step);
  out << "\nMicro-batches per step: min " << mbs.min << ", mean " << fixed(mbs.mean, 2) << ", max "
      << mbs.max << " (total " << mbs.total << ")\n";
  text_first_step(out, r);
  out << "Load balance (sum L^2/c over ranks x slowest rank): " << percent(r.load_balance)
      << "; most tokens on a rank: " << fixed(r.max_tokens_per_rank, 0) << "\n\n";
  text_baselines(out, r);
  const TimeModel& t = r.input.time;
  out << "  time model: " << t.n_layers << " layers, hidden " << t.hidden << ", ffn "
      << t.ffn_hidden << ", tp " << t.tp << ", " << format_rate(t.tflops)
      << " TFLOP/s, ring CP comm at " << format_rate(t.intra_node_gbps) << "/"
      << format_rate(t.inter_node_gbps) << " GB/s (intra/inter node), barrier per micro-batch\n";
  return out.str();
}

std::string report_json(const SimulationReport& r) {
  const SchedulerKnobs& k = r.input.knobs;
  Json histogram = Json::object();
  Json token_histogram = Json::object();
  for (auto [cp, n] : r.cp_size_histogram)
    histogram[std::to_string(cp)] = n;
  for (auto [cp, n] : r.cp_size_tokens)
    token_histogram[std::to_string(cp)] = n;
  Json microbatches = Json::array();
  for (size_t i = 0; i < r.first_step.size(); ++i) {
    microbatches.push_back(
        microbatch_json(r.first_step[i], r.first_step_load[i], k.ranks(), r.first_step_offset));
  }
  const PerStep mbs = summarize_steps(r.microbatches_per_step);
  Json baseline = Json{{"cp", k.cp},
                       {"bshd", cost_json(r.static_bshd)},
                       {"thd_dp_balanced", r.static_thd ? cost_json(*r.static_thd)
                                                        : Json{{"error", r.static_thd_error}}}};
  baseline["bshd"]["seq_length"] = r.bshd_seq_length;
  Json doc =
      Json{{"variant", variant_name(k.variant)},
           {"samples", r.samples},
           {"tokens", r.tokens},
           {"steps", r.steps},
           {"dp", k.dp},
           {"cp", k.cp},
           {"ranks", k.ranks()},
           {"max_seqlen_per_dp_cp_rank", k.max_seqlen_per_rank},
           {"min_cp", k.min_cp},
           {"global_batch", r.steps > 0 ? r.samples / r.steps : 0},
           {"vpp_group", json_if(k.vpp_group > 0, k.vpp_group)},  // null: not set
           {"cp_size_histogram", std::move(histogram)},
           {"cp_size_tokens", std::move(token_histogram)},
           {"microbatches_per_step",
            Json{{"min", mbs.min}, {"mean", mbs.mean}, {"max", mbs.max}, {"total", mbs.total}}},
           {"num_microbatches", r.first_step.size()},
           {"microbatches", std::move(microbatches)},
           {"utilization", r.dynamic.utilization},
           {"load_balance", r.load_balance},
           {"max_tokens_per_rank", r.max_tokens_per_rank},
           {"time_s", r.dynamic.time_s},
           {"step_time_s", r.steps > 0 ? r.dynamic.time_s / static_cast<double>(r.steps) : 0.0},
           {"static_baseline", std::move(baseline)},
           {"estimated_speedup", r.static_thd ? Json(r.speedup_vs_thd) : Json(nullptr)},
           {"estimated_speedup_vs_bshd", r.speedup_vs_bshd},
           {"time_model", time_model_json(r.input.time)},
           {"warnings", r.warnings}};
  return json_dump(doc, 1) + "\n";
}

}  // namespace hcp::dcp
