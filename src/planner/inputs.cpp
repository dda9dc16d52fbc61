// From command-line inputs to a checked plan request (shared by `plan` and `compare`).
#include <optional>
#include <string>
#include <utility>

#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/layout_option.h"
#include "hcp/planner.h"

namespace hcp {

namespace {

Error input_error(std::string message, std::string key) {
  Error e;
  e.message = std::move(message);
  e.location = Location{"<command line>", 0, 0};
  e.key = std::move(key);
  return e;
}

/// --framework: megatron keeps the recipe's semantics; bridge and mlm pick the rules' semantics.
/// Another framework's name is refused with the reason: the cost model prices Megatron-Core.
Status set_framework(Environment& env, const std::string& framework) {
  if (framework.empty()) return Ok{};
  Status s = set_environment_option(env, "framework", framework);
  if (s) return s;
  return input_error(
      s.error().message + "; the cost model prices Megatron-Core with Transformer Engine only",
      "framework");
}

Result<ClusterProfile> cluster_of(const PlanInputs& in) {
  if (!in.topology.empty() && !in.cluster.empty()) {
    return input_error("give --cluster or --topology, not both", "topology");
  }
  if (!in.topology.empty()) return load_cluster_profile(in.topology);
  if (in.cluster_profile) return *in.cluster_profile;
  return find_cluster_profile(in.cluster.empty() ? "dgx-h100" : in.cluster);
}

/// The first figure the cost model needs that neither the profile, the GPU spec table nor a
/// calibration gave, as a one-line error naming the profile field; nothing when all are there.
std::optional<Error> missing_figure(const ClusterProfile& profile, const Hardware& hw,
                                    const TrainingSetup& setup, int64_t world,
                                    const std::string& where) {
  std::string what;
  std::string why =
      profile.gpu_name.empty()
          ? " (the profile names no GPU: `probe --gpu-name NAME --save` fills it from the GPU spec "
            "table)"
          : " (GPU '" + profile.gpu_name +
                "' is not in the GPU spec table, include/hcp/gpu_specs.h)";
  if (hw.peak_tflops <= 0) {
    what = "bf16_dense_tflops (dense BF16 TFLOP/s per GPU)" + why;
  } else if (hw.memory_gib <= 0 && setup.memory_limit_gib <= 0) {
    what = "gpu_memory_gib (GiB per GPU; or give --memory-limit)" + why;
  } else if (hw.nvlink_gbs <= 0) {
    what = "nvlink_gbps_per_gpu or pcie_gbps_per_gpu (GB/s per GPU inside a node)";
  } else if (hw.nic_gbs <= 0 && world > hw.nvlink_domain) {
    what = std::string(profile.nic_gbits > 0       ? "nics_per_node"
                       : profile.nics_per_node > 0 ? "nic_gbits"
                                                   : "nic_gbits and nics_per_node") +
           " (the network between nodes; --nodes 1 needs none)";
  }
  if (what.empty()) return std::nullopt;
  std::string label =
      profile.name.empty() ? "the cluster profile" : "cluster profile '" + profile.name + "'";
  Error e = input_error(label + " lacks " + what + "; add it to the profile", "topology");
  if (!where.empty()) e.location = Location{where, 0, 0};
  return e;
}

/// The node shape the user asked for wins over the profile's; a profile whose NVLink domain is
/// one node follows a changed node size.
void apply_node_shape(ClusterProfile& profile, std::optional<int64_t> gpus_per_node) {
  if (!gpus_per_node || *gpus_per_node == profile.gpus_per_node) return;
  if (profile.nvlink_domain <= profile.gpus_per_node) {
    profile.nvlink_domain = static_cast<int>(*gpus_per_node);
  }
  profile.gpus_per_node = static_cast<int>(*gpus_per_node);
}

Status apply_setup_options(const PlanInputs& in, TrainingSetup& setup) {
  if (!in.recompute.empty()) {
    auto r = parse_recompute(in.recompute);
    if (!r) {
      return input_error(
          "--recompute expects none, selective or full, got '" + in.recompute + "'" +
              did_you_mean(in.recompute,
                           closest_match(in.recompute, {"none", "selective", "full"})),
          "recompute");
    }
    setup.recompute = *r;
  }
  if (in.global_batch) {
    if (*in.global_batch < 1) return input_error("--global-batch must be positive", "global-batch");
    setup.global_batch = *in.global_batch;
  }
  if (in.memory_limit_gib) {
    if (!(*in.memory_limit_gib > 0)) {
      return input_error("--memory-limit must be a positive number of GiB", "memory-limit");
    }
    setup.memory_limit_gib = *in.memory_limit_gib;
  }
  return Ok{};
}

Status environment_of(const PlanInputs& in, const ClusterProfile& profile, const Recipe& recipe,
                      Environment& env) {
  env.framework = recipe.framework;
  if (in.nodes) {
    if (*in.nodes < 1) return input_error("--nodes must be positive", "nodes");
    auto world = checked_mul(*in.nodes, profile.gpus_per_node);
    if (!world || *world > kMaxWorldGpus) {
      return input_error("--nodes " + std::to_string(*in.nodes) + " x " +
                             std::to_string(profile.gpus_per_node) +
                             " GPUs per node is larger than " + std::to_string(kMaxWorldGpus) +
                             " GPUs, the largest world hcp-plan plans",
                         "nodes");
    }
    env.nodes = *in.nodes;
    env.gpus_per_node = profile.gpus_per_node;
    env.world_size = *world;
  } else if (in.gpus_per_node) {
    env.gpus_per_node = profile.gpus_per_node;
  }
  env.nvlink_domain = profile.nvlink_domain;
  if (profile.gpu_sm > 0) env.gpu_sm = profile.gpu_sm;
  if (!in.te_version.empty()) {
    if (Status s = set_environment_option(env, "te-version", in.te_version); !s) return s;
  }
  if (!in.mcore_version.empty()) {
    if (Status s = set_environment_option(env, "mcore-version", in.mcore_version); !s) return s;
  }
  return set_framework(env, in.framework);
}

}  // namespace

Result<PreparedPlan> prepare_plan(const PlanInputs& in) {
  if (in.max_pp < 1) return input_error("--max-pp must be positive", "max-pp");
  if (in.gpus_per_node && *in.gpus_per_node < 1) {
    return input_error("--gpus-per-node must be positive", "gpus-per-node");
  }
  if (in.gpus_per_node && *in.gpus_per_node > kMaxWorldGpus) {
    return input_error("--gpus-per-node must be at most " + std::to_string(kMaxWorldGpus),
                       "gpus-per-node");
  }
  Result<Recipe> recipe = in.loaded ? Result<Recipe>(*in.loaded) : Result<Recipe>(Recipe{});
  if (!in.loaded) {
    auto path = resolve_recipe_path(in.recipe);
    if (!path) return path.error();
    recipe = load_recipe_file(*path);
    if (!recipe) return recipe.error();
    if (Status s = apply_overrides(*recipe, in.overrides); !s) return s.error();
  }
  auto dims = model_dims_of(*recipe);
  if (!dims) return dims.error();
  // A model no layout can run (CP116): said once, not as the rejection of every candidate.
  if (auto invalid = model_error(*recipe)) return *invalid;
  auto profile = cluster_of(in);
  if (!profile) return profile.error();
  apply_node_shape(*profile, in.gpus_per_node);

  PreparedPlan out;
  out.profile = *profile;
  out.recipe_label = recipe->name.empty() ? in.recipe : recipe->name;
  out.cluster_label = in.topology.empty() ? profile->name : in.topology;
  PlanRequest& req = out.request;
  req.recipe = std::move(*recipe);
  // The model's constants with the shipped fit (recipes/corpus/fitted_constants.json), then
  // whatever a calibration file measured on the user's own cluster.
  req.hardware = hardware_from_profile(*profile, accuracy::shipped_constants());
  req.fit = in.bands ? accuracy::shipped_fit() : nullptr;
  if (!in.calibration.empty()) {
    auto cal = load_calibration(in.calibration);
    if (!cal) return cal.error();
    apply_calibration(req.hardware, *cal, in.calibration);
  }
  req.setup = training_setup_of(req.recipe);
  if (Status s = apply_setup_options(in, req.setup); !s) return s.error();
  if (Status s = environment_of(in, *profile, req.recipe, req.env); !s) return s.error();
  if (auto missing = missing_figure(*profile, req.hardware, req.setup,
                                    req.env.world_size.value_or(0), in.topology)) {
    return *missing;
  }
  req.max_pp = in.max_pp;
  req.keep_rejected = in.show_rejected;
  return out;
}

Result<Layout> layout_from_option(const Recipe& recipe, const std::string& option_text,
                                  std::optional<int64_t> world) {
  auto option = parse_layout_option(option_text);
  if (!option) {
    Error e = option.error();
    e.message = "--option \"" + option_text + "\": " + e.message;
    return e;
  }
  const Layout p = layout_of(recipe);
  const Layout& given = option->layout;
  auto pick = [&](LayoutField field, int64_t from_option, int64_t from_recipe) {
    return option->has(field) ? from_option : from_recipe;
  };
  Layout l;
  l.tp = pick(LayoutField::kTp, given.tp, p.tp);
  l.cp = pick(LayoutField::kCp, given.cp, p.cp);
  l.pp = pick(LayoutField::kPp, given.pp, p.pp);
  l.ep = pick(LayoutField::kEp, given.ep, p.ep);
  // VP: the option's, else the recipe's when the pipeline size is the recipe's (a VP of the
  // recipe's pipeline does not carry over to another PP).
  if (option->has(LayoutField::kVp)) {
    l.vpp = given.vpp;
  } else if (l.pp == p.pp) {
    l.vpp = p.vpp;
  }
  // ETP and the comm types: the recipe's (as the planner reads them) unless the option sets them.
  auto base = layout_on(recipe, checked_product({l.tp, l.cp, l.pp}).value_or(1));
  if (!base && base.error().key == "model.cp_comm_type" && !option->has(LayoutField::kCpCommType)) {
    // The recipe's type is one TE rejects (CP010): not to be priced as some other type.
    return input_error("--option \"" + option_text + "\" takes the recipe's cp_comm_type, but " +
                           base.error().message + ": give cp_comm_type in the option",
                       "model.cp_comm_type");
  }
  if (base) {
    l.etp = base->etp;
    l.comm = base->comm;
    l.windowed_comm = base->windowed_comm;
  }
  if (option->has(LayoutField::kEtp)) l.etp = given.etp;
  if (option->has(LayoutField::kCpCommType)) {
    l.comm = given.comm;
    l.windowed_comm.reset();
  }
  std::vector<int64_t> hcp = option->has(LayoutField::kHcp) ? given.hcp : p.hcp;
  if (hcp.size() == 2 && checked_mul(hcp[0], hcp[1]) == l.cp) {
    l.hcp = hcp;
  } else if (l.comm == CommType::kA2aP2p) {
    return input_error("--option \"" + option_text +
                           "\": a2a+p2p needs hcp=AxP with A*P = cp = " + std::to_string(l.cp),
                       "hcp");
  }
  // Sizes from the recipe are below 2^31 each and the option's below 2^20: the product is checked.
  auto checked_model = checked_product({l.tp, l.cp, l.pp});
  if (!checked_model || *checked_model > kMaxWorldGpus) {
    return input_error("--option \"" + option_text + "\": tp*cp*pp is larger than " +
                           std::to_string(kMaxWorldGpus) + " GPUs, the largest world accepted",
                       "option");
  }
  int64_t model = *checked_model;
  if (world) {
    // No data-parallel size: DP stays 0 and compare_layouts runs the rules on the world, where
    // the registry's CP001 rejects the option as validate rejects such a recipe.
    if (*world % model != 0) {
      l.dp = 0;
      return l;
    }
    l.dp = *world / model;
    if (option->has(LayoutField::kDp) && given.dp != l.dp) {
      return input_error("--option \"" + option_text + "\": dp=" + std::to_string(given.dp) +
                             " contradicts the " + std::to_string(*world) + " GPUs (dp would be " +
                             std::to_string(l.dp) + ")",
                         "dp");
    }
  } else if (option->has(LayoutField::kDp)) {
    l.dp = given.dp;
  } else {
    return input_error(
        "--option \"" + option_text + "\": give --nodes (and --gpus-per-node) or dp= in the option",
        "nodes");
  }
  return l;
}

}  // namespace hcp
