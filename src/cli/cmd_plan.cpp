// hcp-plan plan RECIPE [OVERRIDE...] --nodes N --gpus-per-node G: ranked layout options.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/bench_report.h"
#include "hcp/checked.h"
#include "hcp/plan_report.h"
#include "hcp/planner.h"
#include "hcp/sim.h"
#include "html_output.h"
#include "output.h"
#include "plan_subject.h"

namespace hcp::cli {
namespace {

struct PlanCliOptions {
  PlanInputs inputs;
  RecipeSources sources;  ///< RECIPE, --mlm-args, --hf-config.
  ConfigOptions config;   ///< --config FILE, --no-config.
  size_t top = 8;
  std::optional<size_t> confirm;
  std::string html;  ///< --html FILE: also write the self-contained HTML report.
  OutputOptions output;
};

/// Benchmark the top `k` options on this node and re-price them with what was measured. Return
/// the report line, or an error whose message says what is missing (exit 3).
Result<std::string> confirm_top(const PlanResult& result, const PlanRequest& request, size_t k) {
  std::string missing = gpu_bench_unavailable_reason();
  if (!missing.empty()) {
    Error e;
    e.message = "--confirm needs a GPU node: " + missing;
    return e;
  }
  std::string out;
  for (size_t i = 0; i < k && i < result.options.size(); ++i) {
    const PlanOption& o = result.options[i];
    CpVolumeInput layout;
    layout.batch = result.model.micro_batch;
    layout.seq_length = result.model.seq_length;
    layout.heads = result.model.heads;
    layout.kv_heads = result.model.kv_heads;
    layout.head_dim = result.model.head_dim;
    layout.tp = o.layout.tp;
    layout.cp = o.layout.cp;
    layout.comm_type = o.layout.comm;
    layout.hcp_a2a = o.layout.hcp_a2a();
    layout.hcp_p2p = o.layout.hcp_p2p();
    auto measured = benchmark_layout(layout);
    if (!measured) return measured.error();
    Hardware hw = request.hardware;
    const std::string name = "bench of " + o.layout.label();
    const std::string mismatch = calibration_device_mismatch(hw, *measured, name).value_or("");
    apply_calibration(hw, *measured, name);
    auto again = estimate(result.model, o.layout, hw, request.setup);
    if (!again) return again.error();
    out += "\n  " + option_letter(i) + " " + o.layout.label() + ": " +
           format_confirm_line(*measured, o.estimate.time.step_s, again->time.step_s, mismatch);
  }
  return out;
}

int run_plan(PlanCliOptions opts, std::vector<std::string> overrides) {
  if (!load_plan_subject(opts.sources, std::move(overrides), opts.inputs)) return kExitBadInput;
  if (!opts.inputs.nodes) {
    print_error("plan needs --nodes N (and --gpus-per-node G, default: the cluster's)");
    return kExitBadInput;
  }
  auto prepared = prepare_plan(opts.inputs);
  if (!prepared) {
    print_error(prepared.error().str());
    return kExitBadInput;
  }
  for (const std::string& note :
       substitutions_used(prepared->request.hardware, prepared->request.setup))
    print_warning(note);
  auto result = plan(prepared->request);
  if (!result) {
    print_error(result.error().str());
    return kExitBadInput;
  }
  PlanReportContext context;
  context.recipe = prepared->recipe_label;
  context.cluster = prepared->cluster_label;
  context.nodes = *opts.inputs.nodes;
  context.gpus_per_node = prepared->profile.gpus_per_node;
  context.top = opts.top;
  context.show_rejected = opts.inputs.show_rejected;
  context.calibration = opts.inputs.calibration;
  context.width = opts.output.width;
  context.color = color_enabled(opts.output);
  if (opts.confirm) {
    auto confirmed = confirm_top(*result, prepared->request, *opts.confirm);
    if (!confirmed) {
      print_error(confirmed.error().str());
      return kExitEnvironment;
    }
    context.confirm = *confirmed;
  }
  std::optional<HtmlProvenance> provenance;
  if (!opts.html.empty() || opts.output.format == "html") {
    provenance = html_provenance_or_report();
    if (!provenance) return kExitBadInput;
  }
  if (!opts.html.empty()) {
    OutputOptions html_file;
    html_file.path = opts.html;
    if (!emit(html_file, format_plan_html(*result, context, *provenance))) {
      return kExitBadInput;
    }
  }
  std::string text = opts.output.format == "json" ? format_plan_json(*result, context)
                     : opts.output.format == "html"
                         ? format_plan_html(*result, context, *provenance)
                         : format_plan_text(*result, context);
  if (!emit(opts.output, text)) return kExitBadInput;
  // Nothing usable: no layout passes the rules, or none fits in memory (no recommendation).
  bool found = std::any_of(result->options.begin(), result->options.end(),
                           [](const PlanOption& o) { return o.recommended; });
  return found ? kExitOk : kExitFindings;
}

std::function<int()> setup_plan(CLI::App& sub) {
  auto opts = std::make_shared<PlanCliOptions>();
  PlanInputs& in = opts->inputs;
  add_recipe_sources(sub, opts->sources,
                     "Recipe path, shipped recipe name, Megatron-LM model_config.yaml or -");
  sub.footer(
      "Arguments after RECIPE that are not options are overrides (k=v, +k=v, ~k, -cp 4, ...). "
      "Every candidate layout goes through the same rules as `validate`.");
  sub.add_option("--nodes", in.nodes, "Number of nodes");
  sub.add_option("--gpus-per-node", in.gpus_per_node, "GPUs per node (default: the cluster's)");
  sub.add_option("--cluster", in.cluster, "Cluster profile name or file (default dgx-h100)");
  sub.add_option("--topology", in.topology, "Cluster-profile YAML, e.g. from `probe --save`");
  sub.add_option("--top", opts->top, "Options to list (0: all; default 8)");
  sub.add_option("--recompute", in.recompute, "none, selective or full (default: the recipe's)");
  sub.add_option("--global-batch", in.global_batch, "Sequences per step (default: the recipe's)");
  sub.add_option("--memory-limit", in.memory_limit_gib, "GiB per GPU (default: the GPU's)")
      ->check(physical_number(kMemoryGib));
  sub.add_option("--te-version", in.te_version, "Transformer Engine version the job runs with");
  sub.add_option("--max-pp", in.max_pp, "Largest pipeline-parallel size searched (default 1)");
  sub.add_flag("--show-rejected", in.show_rejected, "List rejected layouts with the rule ID");
  sub.add_option("--calibration", in.calibration, "Calibration JSON written by `hcp-plan bench`");
  add_plan_environment_options(sub, in, opts->config);
  sub.add_option("--confirm", opts->confirm,
                 "Benchmark the top K options on this GPU node (exit 3 without a GPU)");
  sub.add_option("--html", opts->html,
                 "Also write a self-contained HTML report (tables, inline SVG charts) to FILE");
  add_output_options(sub, opts->output, {"text", "json", "html"});
  return [opts, &sub]() -> int {
    if (!apply_config_or_report(sub, opts->config, opts->sources.recipe)) return kExitBadInput;
    return run_plan(*opts, sub.remaining(false));
  };
}

const CommandRegistration kPlan{"plan",
                                "Rank TP / CP / cp_comm_type / HCP layouts for a recipe on a "
                                "cluster, with step time, memory and reasons",
                                setup_plan};

}  // namespace
}  // namespace hcp::cli
