// The search: enumerate layouts, run each through the rule registry and the cost model, rank.
#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
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
    // PP runs over the divisors of world / TP up to --max-pp (not 1..max-pp: --max-pp 2^63-1
    // never returned).
    for (int64_t pp : divisors(world / tp)) {
      if (pp > std::max<int64_t>(max_pp, 1)) break;
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

namespace {

/// Same layout as far as the job is concerned (the comm type only matters with CP).
bool same_layout(const LayoutChoice& a, const LayoutChoice& b) {
  if (a.tp != b.tp || a.cp != b.cp || a.pp != b.pp || a.dp != b.dp) return false;
  if (std::max<int64_t>(a.vpp, 1) != std::max<int64_t>(b.vpp, 1)) return false;
  if (std::max<int64_t>(a.ep, 1) != std::max<int64_t>(b.ep, 1)) return false;
  if (a.ep > 1 && a.expert_tp() != b.expert_tp()) return false;
  if (a.cp == 1) return true;
  if (a.comm != b.comm || a.windowed_comm != b.windowed_comm) return false;
  return a.comm != CommType::kA2aP2p || (a.hcp_a2a == b.hcp_a2a && a.hcp_p2p == b.hcp_p2p);
}

}  // namespace

std::vector<LayoutChoice> search_layouts(const ModelDims& model, int64_t world, int nvlink_domain,
                                         const SearchSpace& space) {
  std::vector<LayoutChoice> grid = enumerate_layouts(model, world, nvlink_domain, space.max_pp);
  std::vector<int64_t> eps =
      model.num_experts > 0 && !space.ep.empty() ? space.ep : std::vector<int64_t>{1};
  std::vector<int64_t> vpps = space.vpp.empty() ? std::vector<int64_t>{1} : space.vpp;
  std::vector<LayoutChoice> out;
  out.reserve(grid.size() * eps.size());
  for (const LayoutChoice& base : grid) {
    for (int64_t ep : eps) {
      if (ep < 1 || (ep > 1 && model.num_experts % ep != 0)) continue;
      LayoutChoice l = base;
      l.ep = ep;
      l.etp = space.etp;
      // Expert data parallelism: TP x CP x DP must be a multiple of EP x ETP (MCore's
      // expert-parallel group layout, parallel_state.py).
      if ((l.tp * l.cp * l.dp) % (ep * l.expert_tp()) != 0) continue;
      if (l.pp == 1) {
        out.push_back(l);
        continue;
      }
      for (int64_t vpp : vpps) {
        if (vpp < 1 || (vpp > 1 && model.num_layers % (l.pp * vpp) != 0)) continue;
        l.vpp = vpp;
        out.push_back(l);
      }
    }
  }
  for (const LayoutChoice& must : space.include) {
    bool present = std::any_of(out.begin(), out.end(),
                               [&](const LayoutChoice& l) { return same_layout(l, must); });
    if (!present) out.push_back(must);
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
  } else if (!layout.windowed_comm) {
    out.set("model.cp_comm_type", Value::string(cp_comm_type_name(layout.comm), kCandidate));
  } else {
    // Only a per-layer list needs the model's sliding-window pattern.
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

namespace {

/// Run every rule on the request's recipe with `layout` applied, at the layout's world size: the
/// diagnostics go to `option`, and the first error is the rejection.
std::optional<RejectedOption> check_layout_rules(const PlanRequest& request,
                                                 const LayoutChoice& layout, PlanOption& option) {
  Recipe candidate = recipe_with_layout(request.recipe, layout);
  Environment env = request.env;
  env.world_size = layout.world();
  option.diagnostics = check_rules(candidate, env);
  for (const Diagnostic& d : option.diagnostics) {
    if (d.severity() == Severity::kError) return RejectedOption{layout, d.id(), d.message};
  }
  return std::nullopt;
}

}  // namespace

EvaluatedOption evaluate_layout(const PlanRequest& request, const ModelDims& model,
                                const LayoutChoice& layout) {
  EvaluatedOption out;
  out.option.layout = layout;
  out.rejected = check_layout_rules(request, layout, out.option);
  if (out.rejected) return out;
  auto estimated = estimate(model, layout, request.hardware, request.setup);
  if (!estimated) {
    out.rejected = RejectedOption{layout, "model", estimated.error().message};
    return out;
  }
  out.option.estimate = *estimated;
  return out;
}

namespace {

/// evaluate_layout() for a layout the search has priced already (with the placement of its
/// TP / CP / DP / PP groups, which EP, ETP and VPP do not move): the rules, then the rank grid of
/// the layout itself (its expert grid must exist, as estimate() requires), then that price.
EvaluatedOption evaluate_priced(const PlanRequest& request, const LayoutChoice& layout,
                                const Estimate& priced) {
  EvaluatedOption out;
  out.option.layout = layout;
  out.rejected = check_layout_rules(request, layout, out.option);
  if (out.rejected) return out;
  const Hardware& hw = request.hardware;
  NodeShape shape{hw.gpus_per_node, std::max(hw.gpus_per_node, hw.nvlink_domain)};
  auto grid = place_group_kinds(group_config_of(layout), {}, shape);
  if (!grid) {
    out.rejected = RejectedOption{layout, "model", grid.error().message};
    return out;
  }
  out.option.estimate = priced;
  return out;
}

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

/// The error band of an estimate (zero width without a fit).
accuracy::Band band_of(const PlanRequest& request, const ModelDims& model, const PlanOption& o) {
  if (request.fit) {
    return accuracy::band_for(*request.fit, accuracy::regime_of(model, o.layout), o.estimate);
  }
  accuracy::Band b;
  b.tokens_per_s_per_gpu_low = b.tokens_per_s_per_gpu_high = o.estimate.tokens_per_s_per_gpu;
  b.step_s_low = b.step_s_high = o.estimate.time.step_s;
  b.regime = accuracy::regime_of(model, o.layout).name();
  return b;
}

void add_unique(std::vector<int64_t>& list, int64_t v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

Result<PlanResult> search_layouts(const PlanRequest& request) {
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
  // The space: TP, CP, PP, comm type, VPP (PP > 1) and, for MoE models, EP over the powers of
  // two dividing the experts; the recipe's own PP, VPP and EP are always in it.
  ExpertLayout experts = expert_layout_of(request.recipe);
  SearchSpace space;
  space.max_pp = request.max_pp;
  space.etp = experts.etp;
  if (model->num_experts > 0) {
    for (int64_t ep = 1; ep <= model->num_experts; ep *= 2) {
      if (model->num_experts % ep == 0) space.ep.push_back(ep);
    }
    add_unique(space.ep, experts.ep);
  }
  if (auto own = layout_of(request.recipe, result.world_size)) {
    result.recipe_layout = *own;
    space.max_pp = std::max(space.max_pp, own->pp);
    add_unique(space.vpp, std::max<int64_t>(own->vpp, 1));
    space.include.push_back(*own);
  }
  std::vector<LayoutChoice> layouts =
      search_layouts(*model, result.world_size, request.hardware.nvlink_domain, space);
  result.candidates = static_cast<int64_t>(layouts.size());
  // The model prices every candidate first (cheap); the rules (dear) run on the fastest EP / VPP
  // variant of each layout, then on the next when they reject it, and always on the recipe's
  // own. Slower variants of a layout that passed are counted as pruned.
  std::vector<std::optional<Estimate>> priced(layouts.size());
  auto base_key = [](const LayoutChoice& l) {
    return std::make_tuple(l.tp, l.cp, l.pp, l.dp, static_cast<int>(l.comm),
                           l.windowed_comm ? static_cast<int>(*l.windowed_comm) : -1,
                           l.comm == CommType::kA2aP2p ? l.hcp_a2a : 0,
                           l.comm == CommType::kA2aP2p ? l.hcp_p2p : 0);
  };
  std::map<decltype(base_key(layouts[0])), std::vector<size_t>> groups;
  std::vector<decltype(base_key(layouts[0]))> order;
  for (size_t i = 0; i < layouts.size(); ++i) {
    auto key = base_key(layouts[i]);
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(i);
  }
  auto faster = [&](size_t a, size_t b) {
    if (priced[a].has_value() != priced[b].has_value()) return priced[a].has_value();
    if (!priced[a]) return false;
    if (priced[a]->fits_memory != priced[b]->fits_memory) return priced[a]->fits_memory;
    return priced[a]->time.step_s < priced[b]->time.step_s;
  };
  // 1: accepted; 0: rejected for an EP / VPP / pipeline reason (the next variant may pass);
  // -1: rejected for a reason every variant of the layout shares (the rejecting rule's key is
  // not an expert or pipeline setting), so the other variants get the same verdict unchecked.
  auto reject = [&](const LayoutChoice& layout, const RejectedOption& why) {
    ++result.rejected_count;
    bool own = result.recipe_layout && same_layout(layout, *result.recipe_layout);
    if (own) result.recipe_rejected = why;
    if (request.keep_rejected) result.rejected.push_back(why);
    auto reason = std::find_if(result.rejection_reasons.begin(), result.rejection_reasons.end(),
                               [&](const RejectionReason& r) { return r.rule_id == why.rule_id; });
    if (reason == result.rejection_reasons.end()) {
      result.rejection_reasons.push_back({why.rule_id, why.message, 0});
      reason = std::prev(result.rejection_reasons.end());
    }
    ++reason->count;
  };
  std::optional<RejectedOption> shared_rejection;
  auto accept = [&](size_t i) {
    const LayoutChoice& layout = layouts[i];
    bool own = result.recipe_layout && same_layout(layout, *result.recipe_layout);
    EvaluatedOption evaluated = priced[i] ? evaluate_priced(request, layout, *priced[i])
                                          : evaluate_layout(request, *model, layout);
    if (evaluated.rejected) {
      std::string key;
      for (const Diagnostic& d : evaluated.option.diagnostics) {
        if (d.severity() == Severity::kError && d.id() == evaluated.rejected->rule_id) {
          key = d.key;
          break;
        }
      }
      bool variant_specific = evaluated.rejected->rule_id == "model" ||
                              key.find("expert") != std::string::npos ||
                              key.find("pipeline") != std::string::npos || key.empty();
      reject(layout, *evaluated.rejected);
      if (!variant_specific) shared_rejection = *evaluated.rejected;
      return variant_specific ? 0 : -1;
    }
    std::erase_if(evaluated.option.diagnostics,
                  [](const Diagnostic& d) { return d.severity() == Severity::kInfo; });
    evaluated.option.recipe_layout = own;
    evaluated.option.band = band_of(request, *model, evaluated.option);
    result.options.push_back(std::move(evaluated.option));
    return 1;
  };
  // One placement per (TP, CP, PP, DP, HCP sizes): the comm types without HCP and every EP / VPP
  // variant share it (place_links places no expert group; estimate() overload).
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, std::vector<int64_t>>,
           std::optional<LinkPlacement>>
      placements;
  auto placement_of = [&](const LayoutChoice& l) -> const std::optional<LinkPlacement>& {
    auto [it, inserted] =
        placements.try_emplace(std::make_tuple(l.tp, l.cp, l.pp, l.dp, l.hcp_sizes()));
    if (inserted) {
      LayoutChoice decoder = l;
      decoder.ep = 1;  // the expert grid does not move the decoder's groups
      decoder.etp = 0;
      decoder.vpp = 1;
      auto p = place_links(decoder, request.hardware.gpus_per_node, request.hardware.nvlink_domain);
      if (p) it->second = *p;
    }
    return it->second;
  };
  for (const auto& key : order) {
    std::vector<size_t>& variants = groups[key];
    shared_rejection.reset();
    // Price every variant (cheap), then run the rules (dear) from the fastest on: the first
    // rejection that every variant shares settles the rest (accept() returns -1).
    for (size_t i : variants) {
      const auto& placement = placement_of(layouts[i]);
      auto e = placement ? estimate(*model, layouts[i], request.hardware, request.setup, *placement)
                         : estimate(*model, layouts[i], request.hardware, request.setup);
      if (e) priced[i] = std::move(*e);
    }
    std::stable_sort(variants.begin(), variants.end(), faster);
    bool accepted = false;
    for (size_t i : variants) {
      bool own = result.recipe_layout && same_layout(layouts[i], *result.recipe_layout);
      if (shared_rejection && !own) {
        RejectedOption why = *shared_rejection;
        why.layout = layouts[i];
        reject(layouts[i], why);
        continue;
      }
      if (accepted && !own) {
        ++result.pruned_count;
        continue;
      }
      if (!priced[i] && !own && !request.keep_rejected) {
        // The model cannot price it (its decoder placement fits every EP / VPP variant, so its
        // own estimate fails too): rejected whatever the rules say, and without
        // --show-rejected nobody reads which rule, so they are not run.
        reject(layouts[i], RejectedOption{layouts[i], "model", "the model cannot price it"});
        continue;
      }
      accepted = accept(i) == 1 || accepted;
    }
  }
  std::stable_sort(
      result.rejection_reasons.begin(), result.rejection_reasons.end(),
      [](const RejectionReason& a, const RejectionReason& b) { return a.count > b.count; });
  std::stable_sort(result.options.begin(), result.options.end(), better);
  explain_options(result.options, &result.summary, true);
  // Best first: the recommendation (the fastest, or a tie preferred by the tie rule) leads,
  // the rest stay by predicted step time; letters in the reasons follow the new order.
  auto recommended = std::find_if(result.options.begin(), result.options.end(),
                                  [](const PlanOption& o) { return o.recommended; });
  if (recommended != result.options.end() && recommended != result.options.begin()) {
    std::rotate(result.options.begin(), recommended, recommended + 1);
    explain_options(result.options, &result.summary, true);
  }
  for (size_t i = 0; i < result.options.size(); ++i) {
    if (result.options[i].recipe_layout) result.recipe_rank = i;
  }
  return result;
}

}  // namespace

Result<PlanResult> plan(const PlanRequest& request) {
  auto result = search_layouts(request);
  if (result && result->options.empty() && !request.keep_rejected) {
    // Nothing passed: now the reasons are the answer, so search again with the rules run on the
    // variants the model cannot price too (the fast path rejects those as "model" unread), and
    // keep only the counted reasons the caller reads.
    PlanRequest full = request;
    full.keep_rejected = true;
    auto again = search_layouts(full);
    if (again) {
      again->rejected.clear();
      return again;
    }
  }
  return result;
}

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
      entry.valid &= d.severity() != Severity::kError;
    auto estimated = estimate(*model, layout, request.hardware, request.setup);
    if (estimated) {
      entry.option.estimate = *estimated;
      entry.option.band = band_of(request, *model, entry.option);
    } else {
      entry.priced = false;
      entry.model_error = estimated.error().message;
    }
    entries.push_back(std::move(entry));
  }
  // The user's order and letters stay; explain the priced ones, recommend among the valid.
  std::vector<PlanOption> priced;
  std::vector<bool> eligible;
  std::vector<std::string> letters;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].priced) continue;
    priced.push_back(entries[i].option);
    eligible.push_back(entries[i].valid);
    std::string letter;
    for (size_t n = i + 1; n > 0; n /= 26) {
      --n;
      letter.insert(letter.begin(), static_cast<char>('A' + n % 26));
    }
    letters.push_back(letter);
  }
  explain_options(priced, nullptr, true, eligible, letters);
  size_t next = 0;
  for (CompareEntry& e : entries) {
    if (e.priced) e.option = priced[next++];
  }
  return entries;
}

}  // namespace hcp
