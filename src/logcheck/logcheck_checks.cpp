// The log checks: what the job did against what its configuration needs and the plan predicts.
// Each LOGnnn is computed here, once; the configuration goes through the rule registry itself.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/cluster.h"
#include "hcp/gpu_specs.h"
#include "hcp/logcheck.h"
#include "hcp/planner.h"
#include "hcp/text_util.h"
#include "text_scan.h"

namespace hcp {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// The finding `id` (case `as` of its catalog entry, src/rules/rules_launch.cpp) at `at`.
Diagnostic diag(std::string_view id, std::string message, Location at, std::string key = {},
                const FindingCase& as = {}) {
  Diagnostic d = finding(id, std::move(key), std::move(message), as);
  d.location = std::move(at);
  return d;
}

/// The finding `id` of a failure at `at`, with the fix of the catalog rule that explains it.
Diagnostic explained_diag(std::string_view id, const Rule* cause, std::string message,
                          Location at) {
  Diagnostic d = cause != nullptr ? finding_explained_by(*cause, id, {}, std::move(message))
                                  : finding(id, {}, std::move(message));
  d.location = std::move(at);
  return d;
}

const LogGroup* find_group(const ParsedLog& log, std::string_view name) {
  for (const LogGroup& g : log.groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::string group_list(const ParsedLog& log, std::string_view contains) {
  std::string out;
  for (const LogGroup& g : log.groups) {
    if (!logscan::contains(g.name, contains)) continue;
    if (!out.empty()) out += ", ";
    out += g.name + (g.size > 0 ? " (size " + std::to_string(g.size) + ")" : "");
  }
  return out;
}

void overlay(Value& base, const Value& top) {
  if (!base.is_map() || !top.is_map()) {
    base = top;
    return;
  }
  for (const auto& [key, child] : top.entries()) {
    Value* existing = base.get(key);
    if (existing != nullptr && existing->is_map() && child.is_map()) {
      overlay(*existing, child);
    } else {
      base.set(key, child);
    }
  }
}

/// The process-group checks (LOG001-LOG003, LOG008).
void check_groups(const ParsedLog& log, const Recipe& config, std::vector<Diagnostic>& out) {
  Layout p = layout_of(config);
  if (p.cp <= 1) return;
  const std::vector<std::string> comm_types = cp_comm_type_texts(config);
  bool a2a_p2p = std::find(comm_types.begin(), comm_types.end(), "a2a+p2p") != comm_types.end();
  if (!log.pg_logging) {
    out.push_back(diag("LOG008",
                       "the log has no ProcessGroupNCCL lines, so the CP groups the job created "
                       "cannot be checked (CP " +
                           std::to_string(p.cp) + (a2a_p2p ? ", a2a+p2p" : "") + " configured)",
                       config.where("model.context_parallel_size"), "model.context_parallel_size"));
    return;
  }
  const LogGroup* cp = find_group(log, "CONTEXT_PARALLEL_GROUP");
  if (cp == nullptr) {
    out.push_back(diag("LOG003",
                       "context_parallel_size is " + std::to_string(p.cp) +
                           " but no CONTEXT_PARALLEL_GROUP was created: the job ran without "
                           "context parallelism",
                       config.where("model.context_parallel_size"), "model.context_parallel_size"));
  } else if (cp->size > 0 && cp->size != p.cp) {
    out.push_back(diag("LOG003",
                       "CONTEXT_PARALLEL_GROUP was created with size " + std::to_string(cp->size) +
                           " (" + cp->first.str() + ") but context_parallel_size is " +
                           std::to_string(p.cp),
                       config.where("model.context_parallel_size"), "model.context_parallel_size"));
  }
  if (!a2a_p2p) return;
  const LogGroup* l0 = find_group(log, "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0");
  const LogGroup* l1 = find_group(log, "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L1");
  if (l0 == nullptr && l1 == nullptr) {
    std::string created = group_list(log, "CONTEXT_PARALLEL_GROUP");
    out.push_back(
        diag("LOG001",
             "cp_comm_type a2a+p2p is configured but no HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0/_L1 "
             "was created (" +
                 (created.empty() ? std::string("no CP group at all") : "only " + created) +
                 "): hierarchical CP is not active; on stacks without the a2a+p2p assert CP "
                 "communication is silently off, each rank attends only to its local chunk, "
                 "throughput looks high and the gradients are wrong",
             config.where("model.cp_comm_type"), "model.cp_comm_type"));
    return;
  }
  if (p.hcp.size() == 2) {
    auto wrong = [&](const LogGroup* g, int64_t want) {
      return g == nullptr || (g->size > 0 && g->size != want);
    };
    if (wrong(l0, p.hcp[0]) || wrong(l1, p.hcp[1])) {
      auto size_text = [](const LogGroup* g) {
        return g == nullptr ? std::string("none") : std::to_string(g->size);
      };
      out.push_back(diag("LOG002",
                         "hierarchical CP groups were created with sizes L0 " + size_text(l0) +
                             ", L1 " + size_text(l1) +
                             " but hierarchical_context_parallel_sizes is [" +
                             std::to_string(p.hcp[0]) + ", " + std::to_string(p.hcp[1]) + "]",
                         config.where("model.hierarchical_context_parallel_sizes"),
                         "model.hierarchical_context_parallel_sizes"));
    }
  }
}

/// LOG031: the keys whose printed value differs from the recipe's.
void compare_with_recipe(const LogConfig& logged, const Recipe& recipe,
                         std::vector<Diagnostic>& out) {
  static const char* kKeys[] = {"model.tensor_model_parallel_size",
                                "model.pipeline_model_parallel_size",
                                "model.context_parallel_size",
                                "model.cp_comm_type",
                                "model.hierarchical_context_parallel_sizes",
                                "model.seq_length",
                                "model.num_layers",
                                "model.hidden_size",
                                "train.micro_batch_size",
                                "train.global_batch_size"};
  for (const char* key : kKeys) {
    const Value* a = logged.recipe.find(key);
    const Value* b = recipe.find(key);
    if (a == nullptr || b == nullptr || a->is_null() || b->is_null()) continue;
    if (a->str() == b->str()) continue;
    out.push_back(diag("LOG031",
                       std::string(key) + " is " + a->str() + " in the job but " + b->str() +
                           " in the recipe (" + recipe.where(key).str() +
                           "): the job's value is checked",
                       logged.recipe.where(key), key));
  }
}

void check_failures(const ParsedLog& log, const LogCheckInputs& in, std::vector<Diagnostic>& out) {
  for (const LogFailure& f : log.failures) {
    std::string where = f.frame.empty() ? "" : " at " + f.frame;
    std::string ranks =
        f.occurrences > 1 ? " (" + std::to_string(f.occurrences) + " occurrences)" : "";
    std::string text = f.message.empty() ? f.source_line : f.message;
    std::string what = (f.exception.empty() ? "" : f.exception + ": ") + text;
    const Rule* rule = f.rule_id.empty() ? nullptr : find_rule(f.rule_id);
    std::string explained =
        rule ? "; explained by " + std::string(rule->id) + ": " + std::string(rule->title) : "";
    switch (f.kind) {
      case LogFailureKind::kAssertion:
        out.push_back(explained_diag("LOG020", rule,
                                     "the job failed: " + what + where + ranks + explained, f.at));
        break;
      case LogFailureKind::kOutOfMemory: {
        std::string msg = "CUDA out of memory" + ranks;
        if (f.tried_gib) msg += ": tried to allocate " + format_fixed(*f.tried_gib, 2) + " GiB";
        if (f.total_gib) msg += " of a " + format_fixed(*f.total_gib, 2) + " GiB GPU";
        if (in.prediction) {
          const MemoryBreakdown& m = in.prediction->estimate.memory;
          std::pair<const char*, double> terms[] = {
              {"weights", m.weights},       {"gradients", m.gradients},
              {"optimizer", m.optimizer},   {"activations", m.activations},
              {"CP buffers", m.cp_buffers}, {"logits", m.logits}};
          auto largest = *std::max_element(std::begin(terms), std::end(terms),
                                           [](auto& a, auto& b) { return a.second < b.second; });
          msg += "; the plan predicts " + format_fixed(m.total / kGiB, 1) + " GiB per GPU for " +
                 in.prediction->layout.label() + " (largest: " + largest.first + " " +
                 format_fixed(largest.second / kGiB, 1) + " GiB)";
          if (!in.prediction->estimate.fits_memory) msg += ", more than the GPU holds";
        }
        msg += explained;
        out.push_back(explained_diag("LOG021", rule, msg, f.at));
        break;
      }
      case LogFailureKind::kNcclTimeout:
        out.push_back(diag("LOG022", "NCCL collective timed out" + ranks + ": " + text, f.at));
        break;
      case LogFailureKind::kNcclError:
      case LogFailureKind::kCudaError:
        out.push_back(explained_diag("LOG023", rule,
                                     "the job failed: " + what + where + ranks + explained, f.at));
        break;
      case LogFailureKind::kOther:
        out.push_back(explained_diag("LOG024", rule,
                                     "the job failed: " + what + where + ranks + explained, f.at));
        break;
    }
  }
}

/// LOG025: with two or more distinct failures, the first in reading order (the files as given,
/// each top to bottom) and what followed it.
void check_failure_order(const ParsedLog& log, std::vector<Diagnostic>& out) {
  if (log.failures.size() < 2) return;
  const LogFailure& first = log.failures.front();
  std::string later;
  for (size_t i = 1; i < log.failures.size(); ++i) {
    const LogFailure& f = log.failures[i];
    std::string where =
        f.at.file == first.at.file ? "line " + std::to_string(f.at.line) : f.at.str();
    later += (i == 1 ? "" : ", ") + std::string(log_failure_kind_name(f.kind)) + " at " + where;
  }
  std::string text = first.message.empty() ? first.source_line : first.message;
  out.push_back(diag("LOG025",
                     "the first failure is the " + std::string(log_failure_kind_name(first.kind)) +
                         " (" + (first.exception.empty() ? "" : first.exception + ": ") +
                         text.substr(0, 160) + "); later: " + later,
                     first.at));
}

void check_speed_and_memory(const ParsedLog& log, const LogCheckInputs& in,
                            std::vector<Diagnostic>& out) {
  Location last_iteration = log.iterations.empty()
                                ? Location{log.files.empty() ? "" : log.files[0], 0, 0}
                                : log.iterations.back().at;
  if (!in.speed || !in.prediction) {
    std::string why = !in.speed ? "the log has no iteration lines after warm-up"
                                : "the cost model could not price the run: " + in.prediction_error;
    out.push_back(diag("LOG033", "speed not checked: " + why, last_iteration));
  } else {
    const LogPrediction& p = *in.prediction;
    SpeedCheck sc =
        check_speed(in.speed->median_step_ms / 1000.0, p.estimate.time, p.cp_off_step_s, p.band);
    std::string numbers = "median step " + format_fixed(sc.measured_s * 1000, 1) + " ms over " +
                          std::to_string(in.speed->samples) + " iteration lines vs predicted " +
                          format_fixed(sc.predicted_s * 1000, 1) + " ms for " + p.layout.label() +
                          " on " + p.cluster + " (band " + format_fixed(sc.low_s * 1000, 1) + "-" +
                          format_fixed(sc.high_s * 1000, 1) + " ms, " + p.band.source + ")";
    if (sc.verdict == SpeedVerdict::kFaster && p.layout.cp > 1) {
      std::string cause =
          "; likely cause: CP communication off (attention over local chunks only costs 1/CP of "
          "the work): with attention / " +
          std::to_string(p.layout.cp) + " and no CP communication the model predicts " +
          format_fixed(sc.cp_off_s * 1000, 1) + " ms";
      cause += sc.matches_cp_off ? ", and the measured time matches it"
                                 : ", which the measured time does not match either";
      out.push_back(
          diag("LOG004", "faster than the plan allows: " + numbers + cause, last_iteration));
    } else if (sc.verdict == SpeedVerdict::kSlower) {
      out.push_back(diag("LOG005",
                         "slower than the plan: " + numbers + "; the largest predicted term is " +
                             sc.largest_term + " (" + format_fixed(sc.largest_term_s * 1000, 1) +
                             " ms)",
                         last_iteration));
    } else {
      std::string verdict = sc.verdict == SpeedVerdict::kFaster
                                ? "faster than the plan (CP 1: the model is pessimistic here; "
                                  "--save-calibration records this run): "
                                : "speed as planned: ";
      out.push_back(diag("LOG006", verdict + numbers, last_iteration));
    }
  }
  // Memory: the highest report_memory peak against the allocator part of the prediction.
  if (in.prediction && !log.memory.empty()) {
    const LogMemory* peak = &log.memory.front();
    for (const LogMemory& m : log.memory) {
      if (m.max_allocated_mb > peak->max_allocated_mb) peak = &m;
    }
    const MemoryBreakdown& m = in.prediction->estimate.memory;
    double predicted = (m.total - m.reserved) / kGiB;
    double measured = peak->max_allocated_mb / 1024.0;
    std::string text = "peak allocated " + format_fixed(measured, 1) + " GiB (rank " +
                       (peak->rank >= 0 ? std::to_string(peak->rank) : "not named") +
                       ") vs predicted " + format_fixed(predicted, 1) +
                       " GiB per GPU without the reserved " + format_fixed(m.reserved / kGiB, 1) +
                       " GiB (tolerance " + format_percent(in.memory_tolerance) + ")";
    if (measured > predicted * (1 + in.memory_tolerance)) {
      out.push_back(diag("LOG007", "memory above the plan: " + text, peak->at));
    } else {
      out.push_back(diag("LOG007", "memory within the plan: " + text, peak->at, {}, "within_plan"));
    }
  }
}

}  // namespace

std::string rule_for_failure(std::string_view message, std::string_view source_line) {
  // Upstream messages (and bare-assert source lines) -> the catalog rule of that check. Sources
  // are those of each rule in ../reference/rules.md and src/rules/.
  struct Signature {
    std::string_view text;
    std::string_view rule;
  };
  static const Signature kSignatures[] = {
      // Megatron-LM arguments.py:583-585, Bridge config.py:1681-1689, MCore TransformerConfig.
      {"hierarchical-context-parallel-sizes must be set when a2a+p2p", "CP012"},
      {"hierarchical_context_parallel_sizes must be set when cp_comm_type", "CP012"},
      // arguments.py:580-582 and parallel_state.py:1127-1128 are bare asserts on the product.
      {"prod(args.hierarchical_context_parallel_sizes)", "CP013"},
      {"prod(hierarchical_context_parallel_sizes) == context_parallel_size", "CP013"},
      {"Product of hierarchical_context_parallel_sizes", "CP013"},
      // TE context_parallel.py (>= 2.8 / 1.12-2.7).
      {"requires cp_group = [a2a_cp_group, p2p_cp_group]", "CP014"},
      {"Hierarchical CP implementation needs multi-level CP groups", "CP014"},
      {"Current implementation only supports two-level CP groups", "CP014"},
      {"do not support hierarchical_context_parallel_sizes", "CP017"},
      {"to supporthierarchical cp commucation", "CP018"},
      {"Unsupported communication type", "CP010"},
      {"Length of cp_comm_type", "CP011"},
      {"must be a multiple of tensor_model_parallel_size", "CP030"},
      {"must be a multiple or divisor of tensor_model_parallel_size", "CP031"},
      {"requires num_heads % cp_size == 0", "CP032"},
      {"number of attention heads needs to be divisible by CP size", "CP032"},
      {"seq-length should be a multiple of 2 * context-parallel-size", "CP040"},
      {"Sequence length must be divisible by 2 * context parallel size", "CP040"},
      {"Sequence length per GPU needs to be divisible by 2", "CP040"},
      {"cu_seqlens_padded can not be None for context parallelism", "CP044"},
      {"Padding mask not supported with context parallelism", "CP050"},
      {"Context parallelism is only supported by TEDotProductAttention", "CP060"},
      {"Context parallelism only supports", "CP065"},
      {"Context parallelism does not support MLA", "CP066"},
      {"The context parallel running configs cannot support MLA", "CP066"},
      {"Batch invariant mode does not support context parallelism", "CP103"},
      {"is not divisible by micro batch size", "CP003"},
  };
  for (const Signature& s : kSignatures) {
    if (logscan::contains(message, s.text) || logscan::contains(source_line, s.text))
      return std::string(s.rule);
  }
  return {};
}

PredictionBand default_prediction_band(double tolerance, const std::string& origin) {
  PredictionBand band;
  band.low_factor = 1.0 / (1.0 + tolerance);
  band.high_factor = 1.0 + tolerance;
  band.source = origin + " +-" + format_percent(tolerance);
  return band;
}

std::optional<MeasuredSpeed> measured_speed(const ParsedLog& log, int64_t warmup) {
  const auto& it = log.iterations;
  if (it.empty()) return std::nullopt;
  std::vector<double> times;
  std::vector<double> tflops;
  for (size_t i = 0; i < it.size(); ++i) {
    if (it.size() > 1 && i == 0) continue;
    if (it[i].iteration <= warmup) continue;
    times.push_back(it[i].step_ms);
    if (it[i].tflops_per_gpu) tflops.push_back(*it[i].tflops_per_gpu);
  }
  if (times.empty()) return std::nullopt;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  MeasuredSpeed s;
  s.samples = static_cast<int64_t>(times.size());
  s.skipped_warmup = static_cast<int64_t>(it.size() - times.size());
  s.median_step_ms = median(times);
  if (!tflops.empty()) s.median_tflops_per_gpu = median(tflops);
  return s;
}

double cp_off_step_time(const TimeBreakdown& t, int64_t cp) {
  double cp_comm = t.cp_a2a_s + t.cp_allgather_s + t.cp_ring_exposed_s;
  return t.step_s - cp_comm - t.attention_s +
         t.attention_s / static_cast<double>(std::max<int64_t>(cp, 1));
}

SpeedCheck check_speed(double measured_s, const TimeBreakdown& predicted, double cp_off_s,
                       const PredictionBand& band) {
  SpeedCheck sc;
  sc.measured_s = measured_s;
  sc.predicted_s = predicted.step_s;
  sc.low_s = predicted.step_s * band.low_factor;
  sc.high_s = predicted.step_s * band.high_factor;
  sc.cp_off_s = cp_off_s;
  if (measured_s < sc.low_s) {
    sc.verdict = SpeedVerdict::kFaster;
  } else if (measured_s > sc.high_s) {
    sc.verdict = SpeedVerdict::kSlower;
  }
  sc.matches_cp_off =
      measured_s >= cp_off_s * band.low_factor && measured_s <= cp_off_s * band.high_factor;
  std::pair<const char*, double> terms[] = {
      {"GEMM compute", predicted.gemm_s},
      {"attention compute", predicted.attention_s},
      {"activation recompute", predicted.recompute_s},
      {"TP communication", predicted.tp_comm_s},
      {"CP all-to-all", predicted.cp_a2a_s},
      {"CP all-gather", predicted.cp_allgather_s},
      {"exposed CP ring transfer", predicted.cp_ring_exposed_s},
      {"DP gradient communication", predicted.dp_comm_s},
      {"pipeline bubble", predicted.pp_bubble_s},
      {"pipeline communication", predicted.pp_comm_s},
  };
  auto largest = *std::max_element(std::begin(terms), std::end(terms),
                                   [](auto& a, auto& b) { return a.second < b.second; });
  sc.largest_term = largest.first;
  sc.largest_term_s = largest.second;
  return sc;
}

std::optional<Recipe> effective_recipe(const ParsedLog& log, const std::optional<Recipe>& recipe) {
  if (!log.config) return recipe;
  Recipe out;
  if (recipe) out = *recipe;
  overlay(out.root, log.config->recipe.root);
  out.framework = log.config->recipe.framework;
  out.path = log.config->recipe.path;
  out.name = log.config->recipe.name;
  return out;
}

Environment log_environment(const ParsedLog& log, const Environment& given, Framework framework) {
  Environment env = given;
  env.framework = framework;
  if (!env.world_size && log.world_size) env.world_size = log.world_size;
  auto take = [&](const char* name, std::optional<Version>& field) {
    auto it = log.versions.find(name);
    if (!field && it != log.versions.end()) field = it->second.version;
  };
  take("te", env.te_version);
  take("mcore", env.mcore_version);
  take("bridge", env.bridge_version);
  take("torch", env.torch_version);
  take("nccl", env.nccl_version);
  return env;
}

Result<LogHardware> hardware_for_log(const ParsedLog& log, const std::string& cluster,
                                     const std::string& topology, const std::string& calibration) {
  LogHardware out;
  std::string choice;
  if (!topology.empty()) {
    choice = topology;
  } else if (!cluster.empty()) {
    choice = cluster;
  } else {
    std::optional<double> capacity;
    for (const LogFailure& f : log.failures) {
      if (f.total_gib) capacity = f.total_gib;
    }
    const GpuSpec* gpu = log.gpu_name ? find_gpu_spec(*log.gpu_name) : nullptr;
    if (gpu != nullptr && *gpu->log_cluster != '\0') {
      choice = gpu->log_cluster;
      out.notes.push_back("cluster " + choice + " from the GPU the log names (" + gpu_model(*gpu) +
                          ")");
    }
    if (choice.empty() && capacity && *capacity > 130 && *capacity < 145) {
      choice = "dgx-h200";
      out.notes.push_back("cluster dgx-h200 from the " + format_fixed(*capacity, 1) +
                          " GiB GPU capacity the out-of-memory message gives");
    }
    if (choice.empty()) {
      choice = "dgx-h100";
      out.notes.push_back("cluster dgx-h100 assumed (pass --cluster or --topology)");
    }
  }
  auto profile = find_cluster_profile(choice);
  if (!profile) return profile.error();
  out.hardware = hardware_from_profile(*profile, accuracy::shipped_constants());
  out.gpus_per_node = profile->gpus_per_node;
  out.label = profile->name.empty() ? choice : profile->name;
  if (!calibration.empty()) {
    auto cal = load_calibration(calibration);
    if (!cal) return cal.error();
    apply_calibration(out.hardware, *cal, calibration);
  }
  return out;
}

std::optional<PredictionBand> fitted_prediction_band(const ModelDims& model, const Layout& layout,
                                                     const Estimate& estimate) {
  if (estimate.time.step_s <= 0) return std::nullopt;
  accuracy::Band b = accuracy::shipped_band(model, layout, estimate);
  // Zero width: no fit shipped.
  if (b.step_s_low <= 0 || b.step_s_high <= b.step_s_low) return std::nullopt;
  PredictionBand band;
  band.low_factor = b.step_s_low / estimate.time.step_s;
  band.high_factor = b.step_s_high / estimate.time.step_s;
  band.source = "fitted band of " + b.regime;
  return band;
}

Result<LogPrediction> predict_run(const Recipe& config, int64_t world, const LogHardware& hardware,
                                  const std::optional<PredictionBand>& band) {
  auto dims = model_dims_of(config);
  if (!dims) return dims.error();
  auto layout = layout_on(config, world);
  if (!layout) return layout.error();
  LogPrediction p;
  p.layout = *layout;
  if (p.layout.uses(CommType::kA2aP2p) && p.layout.hcp_a2a() * p.layout.hcp_p2p() != p.layout.cp) {
    p.layout.comm = CommType::kP2p;
    p.layout.windowed_comm.reset();
    p.layout.hcp = {1, 1};
    p.notes.push_back(
        "a2a+p2p without hierarchical sizes has no layout to price: predicted as p2p");
  }
  auto est = estimate(*dims, p.layout, hardware.hardware, training_setup_of(config));
  if (!est) return est.error();
  p.estimate = *est;
  p.cp_off_step_s = cp_off_step_time(est->time, p.layout.cp);
  if (band) {
    p.band = *band;
  } else if (auto fitted = fitted_prediction_band(*dims, p.layout, *est)) {
    p.band = *fitted;
  } else {
    p.band = default_prediction_band(0.25);
  }
  p.cluster = hardware.label;
  p.notes.insert(p.notes.end(), hardware.notes.begin(), hardware.notes.end());
  return p;
}

std::vector<Diagnostic> check_log(const ParsedLog& log, const LogCheckInputs& in) {
  std::vector<Diagnostic> out;
  Location log_start{log.files.empty() ? "" : log.files.front(), 1, 0};
  std::optional<Recipe> config = effective_recipe(log, in.recipe);
  if (log.config) {
    out.push_back(diag("LOG030",
                       "the job's effective configuration (" + log.config->format + ", lines " +
                           std::to_string(log.config->begin.line) + "-" +
                           std::to_string(log.config->end_line) + ") is checked" +
                           (in.recipe ? "; the recipe fills only what it does not print" : "") +
                           (log.config->ignored.empty()
                                ? ""
                                : "; what it prints that hcp-plan cannot read is left at its "
                                  "defaults: " +
                                      join(log.config->ignored, ", ")),
                       log.config->begin));
    if (in.recipe) compare_with_recipe(*log.config, *in.recipe, out);
  } else if (config) {
    out.push_back(diag(
        "LOG030", "the log prints no configuration: the recipe " + config->path + " is checked",
        log_start));
  } else {
    out.push_back(diag("LOG030",
                       "the log prints no configuration and no recipe was given: rules and group "
                       "checks skipped",
                       log_start));
  }
  if (!log.versions.empty()) {
    std::string text;
    for (const auto& [name, v] : log.versions)
      text += (text.empty() ? "" : ", ") + name + " " + v.version.str();
    out.push_back(
        diag("LOG032", "versions printed by the job: " + text, log.versions.begin()->second.at));
  }
  if (config) {
    Environment env = log_environment(log, in.env, config->framework);
    std::vector<Diagnostic> rules = check_rules(*config, env);
    out.insert(out.end(), rules.begin(), rules.end());
    check_groups(log, *config, out);
  }
  check_speed_and_memory(log, in, out);
  check_failures(log, in, out);
  check_failure_order(log, out);
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return static_cast<int>(a.severity()) > static_cast<int>(b.severity());
  });
  return out;
}

}  // namespace hcp
