// `hcp-plan simulate`: CPU simulation of context-parallel attention over virtual ranks, checked
// against plain full attention, with the bytes every rank sends.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "common_options.h"
#include "hcp/checked.h"
#include "hcp/json_io.h"
#include "hcp/layout_option.h"
#include "hcp/layout_report.h"
#include "hcp/sim.h"
#include "output.h"

namespace hcp::cli {
namespace {

/// --tolerance: 0 (exact) or a normal positive number up to 1e6 (an attention output is a convex
/// combination of rows of V, whose entries the simulation draws from a standard normal).
constexpr PhysicalRange kAbsoluteErrorRange{"(an absolute error)", 1e-30, 1e6, true};

struct SimulateArgs {
  OutputOptions out;
  int64_t seq_length = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: same as heads
  int64_t head_dim = 0;
  int64_t cp = 1;
  std::string comm_type;
  std::string hcp;
  bool causal = false;
  uint64_t seed = 1234;
  bool local_only = false;
  int64_t tile = 64;
  int64_t bytes_per_element = 2;
  double tolerance = 1e-3;
};

Result<CpSimOptions> to_options(const SimulateArgs& a) {
  CpSimOptions o;
  o.shape = {a.seq_length, a.heads, a.kv_heads > 0 ? a.kv_heads : a.heads, a.head_dim, a.causal};
  o.cp = a.cp;
  auto type = parse_cp_comm_type(a.comm_type);
  if (!type) return option_value_error("--cp-comm-type", type.error());
  o.comm_type = *type;
  if (!a.hcp.empty()) {
    auto parsed = parse_layout_option(
        "hcp=" +
        (a.hcp.find(',') != std::string::npos && a.hcp[0] != '[' ? "[" + a.hcp + "]" : a.hcp));
    if (!parsed) return option_value_error("--hcp", parsed.error());
    o.hcp = parsed->layout.hcp;
  }
  o.seed = a.seed;
  o.local_only = a.local_only;
  o.tile = a.tile;
  o.bytes_per_element = a.bytes_per_element;
  return o;
}

bool passed(const CpSimResult& r, const CpSimOptions& o, double tolerance) {
  return r.max_abs_error < tolerance && (o.local_only || r.bytes_match_formula);
}

/// Multiply-adds per second of the simulation's scalar double-precision loops: `simulate
/// --seq-length 1024 --heads 8 --head-dim 64 --cp 4 --cp-comm-type p2p` (3.2e9 multiply-adds)
/// took 2.3 s of CPU time on the development machine (Release build), 1.4e9/s; rounded down so
/// the estimate errs long. Only for the estimate printed before a long run.
constexpr double kMultiplyAddsPerSecond = 1.0e9;
/// Runs estimated longer than this get a warning before they start.
constexpr double kLongRunSeconds = 30;

std::string duration_text(double seconds) {
  char buffer[48];
  if (seconds < 120) {
    std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
  } else if (seconds < 7200) {
    std::snprintf(buffer, sizeof buffer, "%.0f min", seconds / 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f h", seconds / 3600);
  }
  return buffer;
}

/// Warn on stderr before a long run; on a terminal, show each pass as it starts with the time
/// left, re-estimated from the passes already done (all three cost the same).
void add_progress(CpSimOptions& options, bool show_progress) {
  const double estimate = simulation_multiply_adds(options.shape) / kMultiplyAddsPerSecond;
  if (estimate > kLongRunSeconds) {
    std::cerr << "hcp-plan: warning: simulate will take about " << duration_text(estimate)
              << " (three exact attention passes over S = " << options.shape.seq_length
              << " tokens; time grows with S^2); a smaller --seq-length checks the same layout\n";
  }
  if (!show_progress) return;
  auto start = std::make_shared<std::chrono::steady_clock::time_point>();
  options.progress = [start, estimate](int done, int total) {
    static const char* const kPasses[] = {"reference attention", "blocked single-device pass",
                                          "CP pass over the virtual ranks"};
    const auto now = std::chrono::steady_clock::now();
    if (done == 0) *start = now;
    const double elapsed = std::chrono::duration<double>(now - *start).count();
    const double left =
        done == 0 ? estimate : elapsed / done * (total - done);  // Passes cost the same.
    if (done < total) {
      std::cerr << "\rsimulate: pass " << done + 1 << "/" << total << " (" << kPasses[done]
                << "), about " << duration_text(left) << " left   " << std::flush;
    } else {
      std::cerr << "\rsimulate: done in " << duration_text(elapsed) << std::string(40, ' ') << "\n";
    }
  };
}

int run_simulate(const SimulateArgs& args) {
  auto options = to_options(args);
  if (!options) {
    print_error(options.error().str());
    return kExitBadInput;
  }
  if (Status valid = check_simulation(*options); !valid) {
    print_error(valid.error().message);
    return kExitBadInput;
  }
  add_progress(*options, isatty(STDERR_FILENO) == 1);
  auto result = simulate_cp_attention(*options);
  if (!result) {
    print_error(result.error().message);
    return kExitBadInput;
  }
  const std::string text = args.out.format == "json"
                               ? format_simulate_json(*result, *options, args.tolerance,
                                                      passed(*result, *options, args.tolerance))
                               : format_simulate_text(*result, *options, args.tolerance);
  if (!emit(args.out, text)) return kExitBadInput;
  return passed(*result, *options, args.tolerance) ? kExitOk : kExitFindings;
}

const CommandRegistration kSimulate{
    "simulate", "CPU simulation of CP attention over virtual ranks, checked against full attention",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<SimulateArgs>();
      sub.add_option("--seq-length", args->seq_length, "Sequence length S (tokens)")->required();
      sub.add_option("--heads", args->heads, "Query heads")->required();
      sub.add_option("--kv-heads", args->kv_heads, "Key/value heads (GQA); default: --heads");
      sub.add_option("--head-dim", args->head_dim, "Head dimension")->required();
      sub.add_option("--cp", args->cp, "Context-parallel size (virtual ranks)")->required();
      sub.add_option("--cp-comm-type", args->comm_type, "p2p, all_gather, a2a or a2a+p2p")
          ->required();
      sub.add_option("--hcp", args->hcp, "Hierarchical CP sizes for a2a+p2p: A,P or AxP");
      sub.add_flag("--causal", args->causal, "Causal mask");
      sub.add_option("--seed", args->seed, "Seed of the random Q, K, V")->capture_default_str();
      sub.add_flag("--local-only", args->local_only,
                   "Turn CP communication off: each rank attends only its own chunks");
      sub.add_option("--tile", args->tile, "Keys per online-softmax tile")->capture_default_str();
      sub.add_option("--bytes-per-element", args->bytes_per_element,
                     "Wire bytes per element for the byte counts (bf16 = 2)")
          ->capture_default_str();
      sub.add_option("--tolerance", args->tolerance, "Largest acceptable max abs error")
          ->check(physical_number(kAbsoluteErrorRange))
          ->capture_default_str();
      add_output_options(sub, args->out);
      return [args] { return run_simulate(*args); };
    }};

}  // namespace
}  // namespace hcp::cli
