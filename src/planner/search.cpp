// The search: enumerate layouts, run each through the rule registry and the cost model, rank.
#include <algorithm>
#include <string>
#include <utility>

#include "hcp/planner.h"

namespace hcp {

namespace {

const Location kCandidate{"<plan candidate>", 0, 0};

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    out.push_back(d);
    if (d != n / d) out.push_back(n / d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Add the comm-type variants of one (tp, cp, pp) grid point.
void add_comm_variants(std::vector<LayoutChoice>& out, LayoutChoice base, bool has_windowed) {
  if (base.cp == 1) {
    out.push_back(base);
    return;
  }
  std::vector<LayoutChoice> full;
  for (CommType type : {CommType::kP2p, CommType::kAllGather, CommType::kA2a}) {
    base.comm = type;
    full.push_back(base);
  }
  for (int64_t a : divisors(base.cp)) {
    if (a == 1 || a == base.cp) continue;
    base.comm = CommType::kA2aP2p;
    base.hcp_a2a = a;
    base.hcp_p2p = base.cp / a;
    full.push_back(base);
  }
  for (const LayoutChoice& choice : full) {
    out.push_back(choice);
    if (!has_windowed) continue;
    // Sliding-window layers run only with a2a or all_gather in TE: pair them with each type of
    // the full-attention layers.
    for (CommType windowed : {CommType::kA2a, CommType::kAllGather}) {
      if (windowed == choice.comm) continue;
      LayoutChoice mixed = choice;
      mixed.windowed_comm = windowed;
      out.push_back(mixed);
    }
  }
}

Value int_value(int64_t v) {
  return Value::integer(v, kCandidate);
}

Value comm_value(const ModelDims& model, const LayoutChoice& layout) {
  if (!layout.windowed_comm || model.windowed.empty()) {
    return Value::string(cp_comm_type_name(layout.comm), kCandidate);
  }
  std::vector<Value> per_layer;
  per_layer.reserve(model.windowed.size());
  for (bool windowed : model.windowed) {
    CommType type = windowed ? *layout.windowed_comm : layout.comm;
    per_layer.push_back(Value::string(cp_comm_type_name(type), kCandidate));
  }
  return Value::list(std::move(per_layer), kCandidate);
}

Error plan_error(std::string message, std::string key = {}) {
  Error e;
  e.message = std::move(message);
  e.key = std::move(key);
  return e;
}

}  // namespace

std::vector<LayoutChoice> enumerate_layouts(const ModelDims& model, int64_t world,
                                            int nvlink_domain, int64_t max_pp) {
  std::vector<LayoutChoice> out;
  if (world < 1) return out;
  bool has_windowed = model.windowed_layers() > 0;
  for (int64_t tp : divisors(world)) {
    if (tp > nvlink_domain || nvlink_domain % tp != 0) continue;
    for (int64_t pp = 1; pp <= std::max<int64_t>(max_pp, 1); ++pp) {
      if (world % (tp * pp) != 0) continue;
      for (int64_t cp : divisors(world / (tp * pp))) {
        LayoutChoice base;
        base.tp = tp;
        base.pp = pp;
        base.cp = cp;
        base.dp = world / (tp * pp * cp);
        add_comm_variants(out, base, has_windowed);
      }
    }
  }
  return out;
}

Recipe recipe_with_layout(const Recipe& recipe, const LayoutChoice& layout) {
  Recipe out = recipe;
  out.set("model.tensor_model_parallel_size", int_value(layout.tp));
  out.set("model.context_parallel_size", int_value(layout.cp));
  out.set("model.pipeline_model_parallel_size", int_value(layout.pp));
  out.set("model.sequence_parallel", Value::boolean(layout.tp > 1, kCandidate));
  if (layout.ep != parallelism_of(recipe).ep) {
    out.set("model.expert_model_parallel_size", int_value(layout.ep));
  }
  bool bridge_default_etp = recipe.framework == Framework::kBridge && layout.ep > 1 &&
                            layout.etp == 1 && !recipe.has("model.expert_tensor_parallel_size");
  if (layout.etp > 0 && !bridge_default_etp &&
      recipe.get_int("model.expert_tensor_parallel_size") != layout.etp) {
    out.set("model.expert_tensor_parallel_size", int_value(layout.etp));
  }
  if (layout.pp == 1 || layout.vpp <= 1) {
    if (out.has("model.virtual_pipeline_model_parallel_size")) {
      out.set("model.virtual_pipeline_model_parallel_size", Value::null(kCandidate));
    }
  } else {
    out.set("model.virtual_pipeline_model_parallel_size", int_value(layout.vpp));
  }
  if (layout.cp == 1) {
    if (out.has("model.cp_comm_type")) out.set("model.cp_comm_type", Value::null(kCandidate));
  } else {
    auto dims = model_dims_of(recipe);
    ModelDims model = dims ? *dims : ModelDims{};
    out.set("model.cp_comm_type", comm_value(model, layout));
  }
  std::vector<int64_t> hcp = layout.hcp_sizes();
  if (!hcp.empty()) {
    out.set("model.hierarchical_context_parallel_sizes",
            Value::list({int_value(hcp[0]), int_value(hcp[1])}, kCandidate));
  } else if (out.has("model.hierarchical_context_parallel_sizes")) {
    out.set("model.hierarchical_context_parallel_sizes", Value::null(kCandidate));
  }
  return out;
}

Result<LayoutChoice> layout_of(const Recipe& recipe, int64_t world) {
  Parallelism p = parallelism_of(recipe);
  LayoutChoice l;
  l.tp = p.tp;
  l.cp = p.cp;
  l.pp = p.pp;
  l.ep = p.ep;
  if (recipe.has("model.expert_tensor_parallel_size") ||
      (recipe.framework == Framework::kBridge && p.ep > 1)) {
    l.etp = p.etp;
  }
  l.vpp = p.vpp.value_or(1);
  int64_t model = l.tp * l.cp * l.pp;
  if (model < 1 || world % model != 0) {
    return plan_error("the world size " + std::to_string(world) +
                          " is not divisible by TP x CP x PP = " + std::to_string(model),
                      "model.context_parallel_size");
  }
  l.dp = world / model;
  auto dims = model_dims_of(recipe);
  std::vector<std::string> types = p.cp_comm_types;
  if (types.empty()) types.push_back("p2p");
  for (size_t i = 0; i < types.size(); ++i) {
    auto type = parse_cp_comm_type(types[i]);
    if (!type) return plan_error(type.error().message, "model.cp_comm_type");
    bool windowed = dims && i < dims->windowed.size() && dims->windowed[i];
    if (i == 0 || !windowed) l.comm = *type;
    if (windowed && *type != l.comm) l.windowed_comm = *type;
  }
  if (l.windowed_comm && *l.windowed_comm == l.comm) l.windowed_comm.reset();
  if (p.hcp.size() == 2) {
    l.hcp_a2a = p.hcp[0];
    l.hcp_p2p = p.hcp[1];
  }
  return l;
}

EvaluatedOption evaluate_layout(const PlanRequest& request, const ModelDims& model,
                                const LayoutChoice& layout) {
  EvaluatedOption out;
  out.option.layout = layout;
  Recipe candidate = recipe_with_layout(request.recipe, layout);
  Environment env = request.env;
  env.world_size = layout.world();
  out.option.diagnostics = check_rules(candidate, env);
  for (const Diagnostic& d : out.option.diagnostics) {
    if (d.severity != Severity::kError) continue;
    out.rejected = RejectedOption{layout, d.id, d.message};
    return out;
  }
  auto estimated = estimate(model, layout, request.hardware, request.setup);
  if (!estimated) {
    out.rejected = RejectedOption{layout, "model", estimated.error().message};
    return out;
  }
  out.option.estimate = *estimated;
  return out;
}

namespace {

struct ExpertLayout {
  int64_t ep = 1;
  int64_t etp = 0;  ///< 0: follows TP.
};

/// The recipe's expert layout: an explicit expert_tensor_parallel_size is kept; otherwise Bridge
/// sets ETP to 1 when EP > 1 and MCore lets it follow TP.
ExpertLayout expert_layout_of(const Recipe& recipe) {
  Parallelism p = parallelism_of(recipe);
  ExpertLayout e;
  e.ep = std::max<int64_t>(1, p.ep);
  if (auto etp = recipe.get_int("model.expert_tensor_parallel_size")) {
    e.etp = *etp;
  } else if (recipe.framework == Framework::kBridge && e.ep > 1) {
    e.etp = 1;
  }
  return e;
}

bool better(const PlanOption& a, const PlanOption& b) {
  if (a.estimate.fits_memory != b.estimate.fits_memory) return a.estimate.fits_memory;
  return a.estimate.time.step_s < b.estimate.time.step_s;
}

}  // namespace

Result<PlanResult> plan(const PlanRequest& request) {
  if (!request.env.world_size || *request.env.world_size < 1) {
    return plan_error("the world size is unknown: give --nodes and --gpus-per-node", "nodes");
  }
  auto model = model_dims_of(request.recipe);
  if (!model) return model.error();
  PlanResult result;
  result.model = *model;
  result.hardware = request.hardware;
  result.setup = request.setup;
  result.world_size = *request.env.world_size;
  std::vector<LayoutChoice> layouts =
      enumerate_layouts(*model, result.world_size, request.hardware.nvlink_domain, request.max_pp);
  // The search varies TP, CP, PP and the comm type; expert parallelism stays the recipe's.
  ExpertLayout experts = expert_layout_of(request.recipe);
  for (LayoutChoice& layout : layouts) {
    layout.ep = experts.ep;
    layout.etp = experts.etp;
  }
  result.candidates = static_cast<int64_t>(layouts.size());
  for (const LayoutChoice& layout : layouts) {
    EvaluatedOption evaluated = evaluate_layout(request, *model, layout);
    if (evaluated.rejected) {
      ++result.rejected_count;
      if (request.keep_rejected) result.rejected.push_back(std::move(*evaluated.rejected));
      continue;
    }
    std::erase_if(evaluated.option.diagnostics,
                  [](const Diagnostic& d) { return d.severity == Severity::kInfo; });
    result.options.push_back(std::move(evaluated.option));
  }
  std::stable_sort(result.options.begin(), result.options.end(), better);
  explain_options(result.options, &result.summary, true);
  return result;
}

}  // namespace hcp

namespace hcp {

namespace {

bool compare_better(const CompareEntry& a, const CompareEntry& b) {
  if (a.priced != b.priced) return a.priced;
  if (a.valid != b.valid) return a.valid;
  if (!a.priced) return false;
  return better(a.option, b.option);
}

}  // namespace

Result<std::vector<CompareEntry>> compare_layouts(const PlanRequest& request,
                                                  const std::vector<LayoutChoice>& layouts) {
  auto model = model_dims_of(request.recipe);
  if (!model) return model.error();
  std::vector<CompareEntry> entries;
  for (const LayoutChoice& layout : layouts) {
    CompareEntry entry;
    entry.option.layout = layout;
    Recipe candidate = recipe_with_layout(request.recipe, layout);
    Environment env = request.env;
    env.world_size = layout.world();
    entry.option.diagnostics = check_rules(candidate, env);
    for (const Diagnostic& d : entry.option.diagnostics)
      entry.valid &= d.severity != Severity::kError;
    auto estimated = estimate(*model, layout, request.hardware, request.setup);
    if (estimated) {
      entry.option.estimate = *estimated;
    } else {
      entry.priced = false;
      entry.model_error = estimated.error().message;
    }
    entries.push_back(std::move(entry));
  }
  std::stable_sort(entries.begin(), entries.end(), compare_better);
  // Explain the priced ones; only a valid option may be recommended.
  std::vector<PlanOption> priced;
  for (const CompareEntry& e : entries) {
    if (e.priced) priced.push_back(e.option);
  }
  explain_options(priced, nullptr, false);
  size_t next = 0;
  bool recommended = false;
  for (CompareEntry& e : entries) {
    if (!e.priced) continue;
    e.option = priced[next++];
    if (!recommended && e.valid && e.option.estimate.fits_memory) {
      e.option.recommended = true;
      recommended = true;
    }
  }
  return entries;
}

}  // namespace hcp
