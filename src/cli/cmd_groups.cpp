// hcp-plan groups [RECIPE [OVERRIDE...]] --world-size N: Megatron's rank groups and where they land
// on nodes and NVLink domains.
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/cluster.h"
#include "hcp/edit_distance.h"
#include "hcp/json_io.h"
#include "hcp/layout.h"
#include "hcp/layout_report.h"
#include "hcp/recipe.h"
#include "hcp/rules.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct GroupsOptions {
  RecipeSources sources;  ///< RECIPE, --mlm-args, --hf-config (all optional).
  int64_t world_size = 0;
  int64_t nodes = 0;
  int64_t gpus_per_node = 8;
  int64_t nvlink_domain = 0;
  std::string cluster;
  int64_t tp = 1, cp = 1, pp = 1, ep = 1, etp = 1, vpp = 1, distopt = 1, min_dynamic = 1;
  std::string hcp;
  std::string order;
  bool dp_last = false;
  bool hybrid = false;
  bool dynamic = false;
  bool all_kinds = false;
  int show = 3;
  ConfigOptions config;  ///< --config FILE, --no-config.
  OutputOptions output;
};

/// A failure with the exit code it maps to.
struct Failure {
  int exit_code;
  std::string message;
};

/// The layout to show, the machine it runs on, and where its settings came from.
struct Subject {
  GroupOptions config;
  NodeShape shape;
  std::string cluster;
  std::optional<Recipe> recipe;
  std::vector<std::string> flag_keys;  ///< Config keys set by command-line flags.
};

bool given(const CLI::App& sub, const char* name) {
  return sub.count(name) > 0;
}

/// Apply --tp, --cp, ... on top of the recipe (or the defaults); explicit flags win.
std::optional<Failure> apply_flags(const CLI::App& sub, const GroupsOptions& o, Subject& s) {
  GroupOptions& c = s.config;
  const std::pair<const char*, std::pair<int64_t*, const char*>> ints[] = {
      {"--tp", {&c.layout.tp, "model.tensor_model_parallel_size"}},
      {"--cp", {&c.layout.cp, "model.context_parallel_size"}},
      {"--pp", {&c.layout.pp, "model.pipeline_model_parallel_size"}},
      {"--ep", {&c.layout.ep, "model.expert_model_parallel_size"}},
      {"--distopt-instances",
       {&c.num_distributed_optimizer_instances, "ddp.num_distributed_optimizer_instances"}},
      {"--min-dynamic-cp",
       {&c.min_dynamic_context_parallel_size, "model.min_dynamic_context_parallel_size"}},
  };
  const int64_t values[] = {o.tp, o.cp, o.pp, o.ep, o.distopt, o.min_dynamic};
  for (size_t i = 0; i < std::size(ints); ++i) {
    if (!given(sub, ints[i].first)) continue;
    *ints[i].second.first = values[i];
    s.flag_keys.emplace_back(ints[i].second.second);
  }
  if (given(sub, "--etp")) {
    c.layout.etp = o.etp;
    s.flag_keys.emplace_back("model.expert_tensor_parallel_size");
  }
  if (given(sub, "--vpp")) {
    c.layout.vpp = o.vpp;
    s.flag_keys.emplace_back("model.virtual_pipeline_model_parallel_size");
  }
  if (given(sub, "--hcp")) {
    auto sizes = parse_hcp_sizes(o.hcp);
    if (!sizes) return Failure{kExitBadInput, "--hcp: " + sizes.error().message};
    c.layout.hcp = *sizes;
    s.flag_keys.emplace_back("model.hierarchical_context_parallel_sizes");
  }
  if (given(sub, "--order") && o.dp_last) {
    return Failure{kExitBadInput, "give either --order or --use-tp-pp-dp-mapping, not both"};
  }
  if (given(sub, "--order")) c.layout.order = o.order;
  if (o.dp_last) c.layout.order = kTpPpDpRankOrder;
  if (given(sub, "--order") || o.dp_last) s.flag_keys.emplace_back("dist.use_tp_pp_dp_mapping");
  if (o.hybrid) c.hybrid_context_parallel = true;
  if (o.dynamic) c.dynamic_context_parallel = true;
  return std::nullopt;
}

/// Nodes and NVLink domains: flags, then the cluster profile, then 8-GPU nodes.
std::optional<Failure> resolve_shape(const CLI::App& sub, const GroupsOptions& o, Subject& s) {
  if (!o.cluster.empty()) {
    auto profile = find_cluster_profile(o.cluster);
    if (!profile) return Failure{kExitBadInput, profile.error().str()};
    s.cluster = profile->name;
    s.shape = {profile->gpus_per_node, profile->nvlink_domain};
  } else {
    s.shape = {8, 8};
  }
  if (given(sub, "--gpus-per-node")) {
    if (o.gpus_per_node < 1) return Failure{kExitBadInput, "--gpus-per-node must be >= 1"};
    s.shape.gpus_per_node = o.gpus_per_node;
    if (o.cluster.empty()) s.shape.nvlink_domain = o.gpus_per_node;
  }
  if (given(sub, "--nvlink-domain")) {
    if (o.nvlink_domain < 1) return Failure{kExitBadInput, "--nvlink-domain must be >= 1"};
    s.shape.nvlink_domain = o.nvlink_domain;
  }
  if (given(sub, "--world-size") && given(sub, "--nodes")) {
    return Failure{kExitBadInput, "give either --world-size or --nodes, not both"};
  }
  if (given(sub, "--nodes")) {
    if (o.nodes < 1) return Failure{kExitBadInput, "--nodes must be >= 1"};
    s.config.world_size = o.nodes * s.shape.gpus_per_node;
  } else if (given(sub, "--world-size")) {
    s.config.world_size = o.world_size;
  } else {
    return Failure{kExitBadInput, "give the number of GPUs: --world-size N or --nodes N"};
  }
  return std::nullopt;
}

/// Return the long option names of the subcommand ("--world-size", ...).
std::vector<std::string> option_names(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const std::string& n : opt->get_lnames())
      names.push_back("--" + n);
  }
  return names;
}

std::variant<Subject, Failure> make_subject(const CLI::App& sub, const GroupsOptions& o,
                                            const std::vector<std::string>& overrides) {
  Subject s;
  for (const std::string& arg : overrides) {
    // Overrides are k=v or single-dash shorthand flags; "--x" is a mistyped option.
    if (arg.rfind("--", 0) == 0) {
      std::string message = "unknown option '" + arg + "'";
      return Failure{kExitBadInput,
                     message + did_you_mean(arg, closest_match(arg, option_names(sub)))};
    }
  }
  const RecipeSources& in = o.sources;
  if (!in.recipe.empty() || !in.mlm_args.empty() || !in.hf_config.empty()) {
    auto subject = load_one_recipe_subject(in, overrides);
    if (!subject) return Failure{kExitBadInput, subject.error().str()};
    s.recipe = std::move(subject->recipe);
    // A model upstream rejects whatever the layout (CP116) has no groups to show.
    if (auto invalid = model_error(*s.recipe)) return Failure{kExitFindings, invalid->str()};
    s.config = group_options_of(*s.recipe, 1);
  } else if (!overrides.empty()) {
    return Failure{kExitBadInput, "unexpected argument '" + overrides.front() +
                                      "': overrides need a RECIPE (or use --tp/--cp/--pp/...)"};
  }
  if (auto f = resolve_shape(sub, o, s)) return *f;
  if (auto f = apply_flags(sub, o, s)) return *f;
  return s;
}

/// Where a config key was set: the command line, the recipe's line, or nothing known.
Location location_of(const Subject& s, const std::string& key) {
  for (const std::string& k : s.flag_keys) {
    if (k == key) return {"<command line>", 0, 0};
  }
  if (key == "world_size" || !s.recipe) return {"<command line>", 0, 0};
  return s.recipe->where(key);
}

/// The a2a level (HCP level 0) leaves the NVLink domain: CP020 in the rule's words
/// (hcp::size_rules) for the standard orders, where it spans TP*HCP[0] consecutive ranks; for
/// other orders the placement of the built groups says it, without the rule's ID.
std::optional<std::pair<std::string, std::string>> a2a_warning(const RankGroups& g,
                                                               const NodeShape& shape) {
  if (g.hcp.size() < 2) return std::nullopt;
  if (g.config.layout.order.rfind("tp-cp-", 0) == 0) {
    auto f = size_rules::a2a_level_in_domain(g.config.layout.tp, g.config.layout.hcp[0],
                                             shape.nvlink_domain, true, g.config.world_size);
    if (!f) return std::nullopt;
    return std::pair<std::string, std::string>{std::string(f->id), f->message};
  }
  GroupPlacement a2a = place(g.hcp[0], shape);
  if (a2a.intra_domain()) return std::nullopt;
  std::ostringstream msg;
  msg << "the a2a level of HCP (size " << a2a.group_size
      << ", spanning TP*HCP[0] = " << g.config.layout.tp * g.config.layout.hcp[0]
      << " consecutive ranks) leaves the NVLink domain of " << shape.nvlink_domain
      << " GPUs: " << a2a.cross_domain_groups << " of " << a2a.num_groups
      << " a2a groups span up to " << a2a.max_domains_spanned << " domains";
  return std::pair<std::string, std::string>{"", msg.str()};
}

int report_invalid(const Subject& s, const LayoutError& e, const OutputOptions& output) {
  Location where = location_of(s, e.key);
  const bool bad_input = e.kind == LayoutError::Kind::kBadInput;
  if (output.format == "json") {
    if (!emit(output, format_groups_invalid_json(e, where))) return kExitBadInput;
  }
  print_error(where.str() + ": " + e.str());
  return bad_input ? kExitBadInput : kExitFindings;
}

int run_groups(const CLI::App& sub, const GroupsOptions& o,
               const std::vector<std::string>& overrides) {
  auto subject = make_subject(sub, o, overrides);
  if (const auto* f = std::get_if<Failure>(&subject)) {
    print_error(f->message);
    return f->exit_code;
  }
  const Subject& s = std::get<Subject>(subject);
  if (auto problem = check_group_options(s.config)) return report_invalid(s, *problem, o.output);
  auto groups = build_groups(s.config);
  if (!groups) {
    print_error(groups.error().str());
    return kExitFindings;
  }
  std::vector<std::pair<std::string, std::string>> warnings;
  if (auto w = a2a_warning(*groups, s.shape)) warnings.push_back(*w);
  for (const std::string& w : groups->warnings)
    warnings.emplace_back("", w);
  std::string text =
      o.output.format == "json"
          ? format_groups_json(*groups, s.shape, s.cluster, warnings)
          : format_groups_text(*groups, s.shape, {s.cluster, o.show, o.all_kinds, o.output.width},
                               warnings);
  return emit(o.output, text) ? kExitOk : kExitBadInput;
}

std::function<int()> setup_groups(CLI::App& sub) {
  auto o = std::make_shared<GroupsOptions>();
  add_recipe_sources(sub, o->sources,
                     "Recipe path, shipped recipe name, Megatron-LM model_config.yaml or - "
                     "(optional)");
  sub.add_option("--world-size", o->world_size, "Total number of GPUs (N)");
  sub.add_option("--nodes", o->nodes, "Number of nodes (world size = nodes x GPUs per node)");
  sub.add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (default 8 or the cluster's)");
  sub.add_option("--nvlink-domain", o->nvlink_domain,
                 "GPUs per NVLink domain (default: the cluster's, else one node)");
  sub.add_option("--cluster", o->cluster,
                 "Cluster profile name (dgx-h100, gb200-nvl72, ...) or path");
  sub.add_option("--tp", o->tp, "Tensor-parallel size");
  sub.add_option("--cp", o->cp, "Context-parallel size");
  sub.add_option("--pp", o->pp, "Pipeline-parallel size");
  sub.add_option("--ep", o->ep, "Expert-parallel size");
  sub.add_option("--etp", o->etp, "Expert tensor-parallel size (default: TP)");
  sub.add_option("--vpp", o->vpp, "Virtual pipeline size (checked; does not change groups)");
  sub.add_option("--hcp", o->hcp, "Hierarchical CP sizes: 8,2 or 8x2 or [8,2]");
  sub.add_option("--order", o->order, "Rank order (default tp-cp-ep-dp-pp)");
  sub.add_flag("--use-tp-pp-dp-mapping", o->dp_last, "Use the dp-last order tp-cp-ep-pp-dp");
  sub.add_option("--distopt-instances", o->distopt, "num_distributed_optimizer_instances");
  sub.add_flag("--hybrid-cp", o->hybrid, "Hybrid DPxCP groups (main --hybrid-context-parallel)");
  sub.add_flag("--dynamic-cp", o->dynamic, "Dynamic DPxCP groups (dev --dynamic-context-parallel)");
  sub.add_option("--min-dynamic-cp", o->min_dynamic, "min_dynamic_context_parallel_size");
  sub.add_flag("--all", o->all_kinds, "Text: list every group kind (mp, embd, tp_dp, ...)");
  sub.add_option("--show", o->show, "Text: how many groups of each kind to print")
      ->capture_default_str();
  sub.footer(
      "Without RECIPE the layout comes from --tp/--cp/--pp/--ep/--etp/--hcp/--order. With RECIPE, "
      "arguments after it are overrides (k=v, -cp 4) and the flags above override the recipe. "
      "Exit 1 when upstream would reject the layout (with the rule ID), 2 on bad input.");
  add_config_options(sub, o->config);
  add_output_options(sub, o->output);
  return [o, &sub]() -> int {
    if (!apply_config_or_report(sub, o->config, o->sources.recipe)) return kExitBadInput;
    return run_groups(sub, *o, sub.remaining(false));
  };
}

const CommandRegistration kGroups{
    "groups", "Megatron's rank groups (TP, CP, HCP levels, DP, PP, EP) and their node placement",
    setup_groups};

}  // namespace
}  // namespace hcp::cli
