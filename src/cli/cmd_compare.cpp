// hcp-plan compare RECIPE --option "tp=2,cp=4,cp_comm_type=a2a" --option ...: the given layouts
// side by side with every cost term and their rule findings.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/checked.h"
#include "hcp/plan_report.h"
#include "hcp/planner.h"
#include "html_output.h"
#include "output.h"
#include "plan_subject.h"

namespace hcp::cli {
namespace {

struct CompareCliOptions {
  PlanInputs inputs;
  RecipeSources sources;  ///< RECIPE, --mlm-args, --hf-config.
  ConfigOptions config;   ///< --config FILE, --no-config.
  std::vector<std::string> options;
  std::string html;  ///< --html FILE: also write the self-contained HTML report.
  OutputOptions output;
};

int run_compare(CompareCliOptions opts, std::vector<std::string> overrides) {
  if (opts.options.empty()) {
    print_error("compare needs at least one --option \"tp=..,cp=..,cp_comm_type=..\"");
    return kExitBadInput;
  }
  if (!load_plan_subject(opts.sources, std::move(overrides), opts.inputs)) return kExitBadInput;
  auto prepared = prepare_plan(opts.inputs);
  if (!prepared) {
    print_error(prepared.error().str());
    return kExitBadInput;
  }
  for (const std::string& note :
       substitutions_used(prepared->request.hardware, prepared->request.setup))
    print_warning(note);
  const PlanRequest& request = prepared->request;
  std::vector<Layout> layouts;
  for (const std::string& text : opts.options) {
    auto layout = layout_from_option(request.recipe, text, request.env.world_size);
    if (!layout) {
      print_error(layout.error().str());
      return kExitBadInput;
    }
    layouts.push_back(*layout);
  }
  auto entries = compare_layouts(request, layouts);
  if (!entries) {
    print_error(entries.error().str());
    return kExitBadInput;
  }
  PlanReportContext context;
  context.recipe = prepared->recipe_label;
  context.cluster = prepared->cluster_label;
  context.nodes = opts.inputs.nodes.value_or(layouts.front().world() /
                                             std::max(1, prepared->profile.gpus_per_node));
  context.gpus_per_node = prepared->profile.gpus_per_node;
  context.calibration = opts.inputs.calibration;
  context.width = opts.output.width;
  context.color = color_enabled(opts.output);
  std::optional<HtmlProvenance> provenance;
  if (!opts.html.empty() || opts.output.format == "html") {
    provenance = html_provenance_or_report();
    if (!provenance) return kExitBadInput;
  }
  if (!opts.html.empty()) {
    OutputOptions html_file;
    html_file.path = opts.html;
    if (!emit(html_file, format_compare_html(*entries, context, *provenance))) {
      return kExitBadInput;
    }
  }
  std::string text =
      opts.output.format == "json"   ? format_compare_json(*entries, request.hardware, context)
      : opts.output.format == "html" ? format_compare_html(*entries, context, *provenance)
                                     : format_compare_text(*entries, request.hardware, context);
  if (!emit(opts.output, text)) return kExitBadInput;
  for (const CompareEntry& e : *entries) {
    if (!e.valid) return kExitFindings;
  }
  return kExitOk;
}

std::function<int()> setup_compare(CLI::App& sub) {
  auto opts = std::make_shared<CompareCliOptions>();
  PlanInputs& in = opts->inputs;
  add_recipe_sources(sub, opts->sources,
                     "Recipe path, shipped recipe name, Megatron-LM model_config.yaml or -");
  sub.footer(
      "Each --option sets tp, cp, pp, ep, dp, cp_comm_type and hcp=AxP on top of the recipe. "
      "Exit 1 when a rule rejects one of the options.");
  sub.add_option("--option", opts->options,
                 "A layout, e.g. \"tp=2,cp=4,cp_comm_type=a2a\" (repeat for more)");
  sub.add_option("--nodes", in.nodes, "Number of nodes");
  sub.add_option("--gpus-per-node", in.gpus_per_node, "GPUs per node (default: the cluster's)");
  sub.add_option("--cluster", in.cluster, "Cluster profile name or file (default dgx-h100)");
  sub.add_option("--topology", in.topology, "Cluster-profile YAML, e.g. from `probe --save`");
  sub.add_option("--recompute", in.recompute, "none, selective or full (default: the recipe's)");
  sub.add_option("--global-batch", in.global_batch, "Sequences per step (default: the recipe's)");
  sub.add_option("--memory-limit", in.memory_limit_gib, "GiB per GPU (default: the GPU's)")
      ->check(physical_number(kMemoryGib));
  sub.add_option("--te-version", in.te_version, "Transformer Engine version the job runs with");
  sub.add_option("--calibration", in.calibration, "Calibration JSON written by `hcp-plan bench`");
  sub.add_option("--html", opts->html,
                 "Also write a self-contained HTML report (tables, inline SVG charts) to FILE");
  add_plan_environment_options(sub, in, opts->config);
  add_output_options(sub, opts->output, {"text", "json", "html"});
  return [opts, &sub]() -> int {
    if (!apply_config_or_report(sub, opts->config, opts->sources.recipe)) return kExitBadInput;
    return run_compare(*opts, sub.remaining(false));
  };
}

const CommandRegistration kCompare{
    "compare", "Price and validate given layouts side by side (every cost term)", setup_compare};

}  // namespace
}  // namespace hcp::cli
