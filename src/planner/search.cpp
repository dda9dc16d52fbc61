// The search: enumerate layouts, run each through the rule registry and the cost model, rank.
#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "hcp/planner.h"
#include "hcp/text_util.h"

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
void add_comm_variants(std::vector<Layout>& out, Layout base, bool has_windowed) {
  if (base.cp == 1) {
    out.push_back(base);
    return;
  }
  std::vector<Layout> full;
  for (CommType type : {CommType::kP2p, CommType::kAllGather, CommType::kA2a}) {
    base.comm = type;
    full.push_back(base);
  }
  for (int64_t a : divisors(base.cp)) {
    if (a == 1 || a == base.cp) continue;
    base.comm = CommType::kA2aP2p;
    base.hcp = {a, base.cp / a};
    full.push_back(base);
  }
  for (const Layout& choice : full) {
    out.push_back(choice);
    if (!has_windowed) continue;
    // Sliding-window layers run only with a2a or all_gather in TE: pair them with each type of
    // the full-attention layers.
    for (CommType windowed : {CommType::kA2a, CommType::kAllGather}) {
      if (windowed == choice.comm) continue;
      Layout mixed = choice;
      mixed.windowed_comm = windowed;
      out.push_back(mixed);
    }
  }
}

Error plan_error(std::string message, std::string key = {}) {
  Error e;
  e.message = std::move(message);
  e.key = std::move(key);
  return e;
}

}  // namespace

std::vector<Layout> enumerate_layouts(const ModelDims& model, int64_t world, int nvlink_domain,
                                      int64_t max_pp) {
  std::vector<Layout> out;
  if (world < 1) return out;
  bool has_windowed = model.windowed_layers() > 0;
  for (int64_t tp : divisors(world)) {
    if (tp > nvlink_domain || nvlink_domain % tp != 0) continue;
    // PP runs over the divisors of world / TP up to --max-pp (not 1..max-pp: --max-pp 2^63-1
    // never returned).
    for (int64_t pp : divisors(world / tp)) {
      if (pp > std::max<int64_t>(max_pp, 1)) break;
      for (int64_t cp : divisors(world / (tp * pp))) {
        Layout base;
        base.tp = tp;
        base.pp = pp;
        base.cp = cp;
        base.dp = *data_parallel_size(base, world);
        add_comm_variants(out, base, has_windowed);
      }
    }
  }
  return out;
}

namespace {

/// Same layout as far as the job is concerned (the comm type only matters with CP).
bool same_layout(const Layout& a, const Layout& b) {
  if (a.tp != b.tp || a.cp != b.cp || a.pp != b.pp || a.dp != b.dp) return false;
  if (a.virtual_stages() != b.virtual_stages()) return false;
  if (std::max<int64_t>(a.ep, 1) != std::max<int64_t>(b.ep, 1)) return false;
  if (a.ep > 1 && a.expert_tp() != b.expert_tp()) return false;
  if (a.cp == 1) return true;
  if (a.comm != b.comm || a.windowed_comm != b.windowed_comm) return false;
  return a.comm != CommType::kA2aP2p || (a.hcp_a2a() == b.hcp_a2a() && a.hcp_p2p() == b.hcp_p2p());
}

}  // namespace

std::vector<Layout> search_layouts(const ModelDims& model, int64_t world, int nvlink_domain,
                                   const SearchSpace& space) {
  std::vector<Layout> grid = enumerate_layouts(model, world, nvlink_domain, space.max_pp);
  std::vector<int64_t> eps =
      model.num_experts > 0 && !space.ep.empty() ? space.ep : std::vector<int64_t>{1};
  std::vector<int64_t> vpps = space.vpp.empty() ? std::vector<int64_t>{1} : space.vpp;
  std::vector<Layout> out;
  out.reserve(grid.size() * eps.size());
  for (const Layout& base : grid) {
    for (int64_t ep : eps) {
      if (ep < 1 || (ep > 1 && model.num_experts % ep != 0)) continue;
      Layout l = base;
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
  for (const Layout& must : space.include) {
    bool present =
        std::any_of(out.begin(), out.end(), [&](const Layout& l) { return same_layout(l, must); });
    if (!present) out.push_back(must);
  }
  return out;
}

Recipe recipe_with_layout(const Recipe& recipe, const Layout& layout) {
  Layout candidate = layout;
  candidate.sequence_parallel = layout.tp > 1;
  // Only a per-layer list needs the model's sliding-window pattern.
  std::vector<bool> windowed_layers;
  if (layout.windowed_comm) {
    if (auto dims = model_dims_of(recipe)) windowed_layers = dims->windowed;
  }
  Recipe out = recipe;
  apply(candidate, out, kCandidate, windowed_layers);
  return out;
}

Result<Layout> layout_on(const Recipe& recipe, int64_t world) {
  Layout l = layout_of(recipe);
  auto dp = data_parallel_size(l, world);
  if (!dp) {
    int64_t model = l.tp * l.cp * l.pp;
    return plan_error("the world size " + std::to_string(world) +
                          " is not divisible by TP x CP x PP = " + std::to_string(model),
                      "model.context_parallel_size");
  }
  for (const std::string& text : cp_comm_type_texts(recipe)) {
    auto type = recipe_cp_comm_type(text);
    if (!type) return plan_error(type.error().message, "model.cp_comm_type");
  }
  if (auto dims = model_dims_of(recipe)) l = layout_of(recipe, dims->windowed);
  l.dp = *dp;
  if (!(l.etp > 0)) l.etp.reset();  // an ETP below 1 follows TP (the rules reject it)
  // The planner places every candidate in Megatron's default rank order, the recipe's own too.
  l.order = kDefaultRankOrder;
  return l;
}

namespace {

/// Run every rule on the request's recipe with `layout` applied, at the layout's world size: the
/// diagnostics go to `option`, and the first error is the rejection.
std::optional<RejectedOption> check_layout_rules(const PlanRequest& request, const Layout& layout,
                                                 PlanOption& option) {
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
                                const Layout& layout) {
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
EvaluatedOption evaluate_priced(const PlanRequest& request, const Layout& layout,
                                const Estimate& priced) {
  EvaluatedOption out;
  out.option.layout = layout;
  out.rejected = check_layout_rules(request, layout, out.option);
  if (out.rejected) return out;
  const Hardware& hw = request.hardware;
  NodeShape shape{hw.gpus_per_node, std::max(hw.gpus_per_node, hw.nvlink_domain)};
  auto grid = place_group_kinds(group_options_of(layout), {}, shape);
  if (!grid) {
    out.rejected = RejectedOption{layout, "model", grid.error().message};
    return out;
  }
  out.option.estimate = priced;
  return out;
}

bool better(const PlanOption& a, const PlanOption& b) {
  if (a.estimate.fits_memory != b.estimate.fits_memory) return a.estimate.fits_memory;
  return a.estimate.time.step_s < b.estimate.time.step_s;
}

/// The error band of an estimate (zero width without a fit).
accuracy::Band band_of(const PlanRequest& request, const ModelDims& model, const PlanOption& o) {
  if (request.fit) {
    return accuracy::band_for(*request.fit, model, o.layout, o.estimate);
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

/// The search space of a request: TP, CP, PP, comm type, VPP (PP > 1) and, for MoE models, EP
/// over the powers of two dividing the experts; the recipe's own PP, VPP and EP are always in
/// it, and its ETP (explicit, or the framework's default) is every candidate's.
SearchSpace space_of(const PlanRequest& request, const ModelDims& model,
                     const std::optional<Layout>& own) {
  const Layout recipe_layout = layout_of(request.recipe);
  SearchSpace space;
  space.max_pp = request.max_pp;
  // An ETP below 1 follows TP (the rules reject it).
  if (recipe_layout.etp > 0) space.etp = recipe_layout.etp;
  if (model.num_experts > 0) {
    for (int64_t ep = 1; ep <= model.num_experts; ep *= 2) {
      if (model.num_experts % ep == 0) space.ep.push_back(ep);
    }
    add_unique(space.ep, std::max<int64_t>(1, recipe_layout.ep));
  }
  if (own) {
    space.max_pp = std::max(space.max_pp, own->pp);
    add_unique(space.vpp, own->virtual_stages());
    space.include.push_back(*own);
  }
  return space;
}

/// What one candidate's check says.
enum class Verdict {
  kAccepted,         ///< An option.
  kRejectedVariant,  ///< Rejected for a reason of this EP / VPP variant: another may pass.
  kRejectedLayout,   ///< Rejected for a reason every EP / VPP variant of the layout shares.
};

/// A verdict, with the rejection when there is one.
struct Checked {
  Verdict verdict = Verdict::kAccepted;
  std::optional<RejectedOption> rejection;
};

/// The layout a candidate is an EP / VPP variant of: what its placement and comm depend on.
using VariantKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, int64_t, int64_t>;

VariantKey variant_key(const Layout& l) {
  return std::make_tuple(l.tp, l.cp, l.pp, l.dp, static_cast<int>(l.comm),
                         l.windowed_comm ? static_cast<int>(*l.windowed_comm) : -1,
                         l.comm == CommType::kA2aP2p ? l.hcp_a2a() : 0,
                         l.comm == CommType::kA2aP2p ? l.hcp_p2p() : 0);
}

/// Return the candidates' indices grouped by variant key, groups in first-seen order.
std::vector<std::vector<size_t>> variant_groups(const std::vector<Layout>& layouts) {
  std::map<VariantKey, size_t> group_of;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < layouts.size(); ++i) {
    auto [it, inserted] = group_of.try_emplace(variant_key(layouts[i]), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

}  // namespace

LayoutFields differing_variant_fields(const Layout& a, const Layout& b) {
  LayoutFields out;
  if (a.ep != b.ep) out.set(static_cast<size_t>(LayoutField::kEp));
  if (a.etp != b.etp) out.set(static_cast<size_t>(LayoutField::kEtp));
  if (a.vpp != b.vpp) out.set(static_cast<size_t>(LayoutField::kVp));
  return out;
}

bool rejection_holds_for_every_variant(std::string_view rule_id, const LayoutFields& differing) {
  const Rule* rule = rule_id == "model" ? nullptr : find_rule(rule_id);
  return rule != nullptr && (rule->reads & differing).none();
}

namespace {

/// One search: the request, its candidates with their prices, and the result being filled.
class Search {
 public:
  Search(const PlanRequest& request, const ModelDims& model, PlanResult& result,
         std::vector<Layout> layouts)
      : request_(request),
        model_(model),
        result_(result),
        layouts_(std::move(layouts)),
        priced_(layouts_.size()) {}

  /// Price every candidate, then run the rules variant group by variant group.
  void run() {
    for (std::vector<size_t>& variants : variant_groups(layouts_)) {
      for (size_t i : variants)
        price(i);
      settle(variants);
    }
  }

 private:
  bool own(const Layout& layout) const {
    return result_.recipe_layout && same_layout(layout, *result_.recipe_layout);
  }

  /// The placement of a layout's decoder groups: one per (TP, CP, PP, DP, HCP sizes), shared by
  /// the comm types without HCP and every EP / VPP variant (place_links places no expert group).
  const std::optional<LinkPlacement>& placement_of(const Layout& l) {
    auto [it, inserted] =
        placements_.try_emplace(std::make_tuple(l.tp, l.cp, l.pp, l.dp, l.hcp_sizes()));
    if (inserted) {
      Layout decoder = l;
      decoder.ep = 1;  // the expert grid does not move the decoder's groups
      decoder.etp.reset();
      decoder.vpp.reset();
      const Hardware& hw = request_.hardware;
      if (auto p = place_links(decoder, hw.gpus_per_node, hw.nvlink_domain)) it->second = *p;
    }
    return it->second;
  }

  void price(size_t i) {
    const auto& placement = placement_of(layouts_[i]);
    auto e = placement
                 ? estimate(model_, layouts_[i], request_.hardware, request_.setup, *placement)
                 : estimate(model_, layouts_[i], request_.hardware, request_.setup);
    if (e) priced_[i] = std::move(*e);
  }

  /// Priced before unpriced, then fitting in memory before not, then by step time.
  bool faster(size_t a, size_t b) const {
    const auto& pa = priced_[a];
    const auto& pb = priced_[b];
    if (pa.has_value() != pb.has_value()) return pa.has_value();
    if (!pa) return false;
    if (pa->fits_memory != pb->fits_memory) return pa->fits_memory;
    return pa->time.step_s < pb->time.step_s;
  }

  /// Run the rules (dear) on the variants of one layout from the fastest on: the first that
  /// passes makes the slower ones pruned, and the first rejection that every variant shares
  /// settles the rest unchecked. The recipe's own layout is always checked.
  void settle(std::vector<size_t>& variants) {
    std::stable_sort(variants.begin(), variants.end(),
                     [this](size_t a, size_t b) { return faster(a, b); });
    LayoutFields differing;
    for (size_t i : variants)
      differing |= differing_variant_fields(layouts_[variants.front()], layouts_[i]);
    std::optional<RejectedOption> shared_rejection;
    bool accepted = false;
    for (size_t i : variants) {
      const Layout& layout = layouts_[i];
      bool is_own = own(layout);
      if (shared_rejection && !is_own) {
        RejectedOption why = *shared_rejection;
        why.layout = layout;
        reject(why);
        continue;
      }
      if (accepted && !is_own) {
        ++result_.pruned_count;
        continue;
      }
      if (!priced_[i] && !is_own && !request_.keep_rejected) {
        // The model cannot price it (its decoder placement fits every EP / VPP variant, so its
        // own estimate fails too): rejected whatever the rules say, and without
        // --show-rejected nobody reads which rule, so they are not run.
        reject(RejectedOption{layout, "model", "the model cannot price it"});
        continue;
      }
      Checked checked = check(i, differing);
      accepted = accepted || checked.verdict == Verdict::kAccepted;
      if (checked.verdict == Verdict::kRejectedLayout) shared_rejection = checked.rejection;
    }
  }

  /// Run the rules and the model on candidate i, a variant of a layout whose variants differ in
  /// `differing`; record it as an option or a rejection.
  Checked check(size_t i, const LayoutFields& differing) {
    const Layout& layout = layouts_[i];
    EvaluatedOption evaluated = priced_[i] ? evaluate_priced(request_, layout, *priced_[i])
                                           : evaluate_layout(request_, model_, layout);
    if (evaluated.rejected) {
      reject(*evaluated.rejected);
      bool shared = rejection_holds_for_every_variant(evaluated.rejected->rule_id, differing);
      return {shared ? Verdict::kRejectedLayout : Verdict::kRejectedVariant, evaluated.rejected};
    }
    std::erase_if(evaluated.option.diagnostics,
                  [](const Diagnostic& d) { return d.severity() == Severity::kInfo; });
    evaluated.option.recipe_layout = own(layout);
    evaluated.option.band = band_of(request_, model_, evaluated.option);
    result_.options.push_back(std::move(evaluated.option));
    return {};
  }

  /// Count a rejection under its rule (and keep it when the request asks to).
  void reject(const RejectedOption& why) {
    ++result_.rejected_count;
    if (own(why.layout)) result_.recipe_rejected = why;
    if (request_.keep_rejected) result_.rejected.push_back(why);
    auto& reasons = result_.rejection_reasons;
    auto reason = std::find_if(reasons.begin(), reasons.end(),
                               [&](const RejectionReason& r) { return r.rule_id == why.rule_id; });
    if (reason == reasons.end()) {
      reasons.push_back({why.rule_id, why.message, 0});
      reason = std::prev(reasons.end());
    }
    ++reason->count;
  }

  const PlanRequest& request_;
  const ModelDims& model_;
  PlanResult& result_;
  std::vector<Layout> layouts_;
  std::vector<std::optional<Estimate>> priced_;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, std::vector<int64_t>>,
           std::optional<LinkPlacement>>
      placements_;
};

/// Order the result: reasons by count; options fitting first, by step time, the recommended one
/// leading (letters in the reasons follow the final order); the recipe's own option's rank.
void rank_options(PlanResult& result) {
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
}

/// Say on an option that prices the recipe's own comm types that its per-layer cp_comm_type list
/// mixes types and was priced as its most common (`note`: cp_comm_type_pricing_note(); nothing
/// when empty or when the option has no CP). After explain_options, which resets notes and reasons.
void note_mixed_comm(PlanOption& o, const std::string& note) {
  if (note.empty() || o.layout.cp <= 1) return;
  o.notes.emplace_back("cp_comm_type list priced as its most common type");
  o.reasons.push_back(note);
}

/// Sizes that differ between `from` and `to`, as "TP 1 -> 2" phrases.
std::vector<std::string> layout_changes(const Layout& from, const Layout& to) {
  std::vector<std::string> changes;
  auto size = [&changes](const char* name, int64_t a, int64_t b) {
    if (a != b)
      changes.push_back(std::string(name) + " " + std::to_string(a) + " -> " + std::to_string(b));
  };
  size("TP", from.tp, to.tp);
  size("CP", from.cp, to.cp);
  size("PP", from.pp, to.pp);
  size("VP", from.virtual_stages(), to.virtual_stages());
  size("EP", std::max<int64_t>(from.ep, 1), std::max<int64_t>(to.ep, 1));
  if (from.cp > 1 && to.cp > 1 && from.comm != to.comm) {
    changes.push_back(std::string("cp_comm_type ") + cp_comm_type_name(from.comm) + " -> " +
                      cp_comm_type_name(to.comm));
  }
  if (from.hcp_sizes() != to.hcp_sizes() && !from.hcp_sizes().empty() && !to.hcp_sizes().empty()) {
    auto hcp = [](const std::vector<int64_t>& v) {
      return "[" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "]";
    };
    changes.push_back("HCP " + hcp(from.hcp_sizes()) + " -> " + hcp(to.hcp_sizes()));
  }
  return changes;
}

std::string fit_figures(const Estimate& e) {
  return format_fixed(e.memory_gib(), 1) + " of " + format_limit_gib(e.memory_limit_gib) +
         " GiB per GPU, " + format_rate(e.tokens_per_s_per_gpu) + " tokens/s/GPU";
}

/// When the recipe's own layout does not fit: the least changes that make it fit (recompute;
/// the listed option that changes the fewest sizes).
void suggest_recipe_fit(PlanResult& result, const PlanRequest& request) {
  if (!result.recipe_rank) return;
  const PlanOption& own = result.options[*result.recipe_rank];
  if (own.estimate.fits_memory) return;
  if (auto line = recompute_that_fits(result.model, request, own.layout)) {
    result.recipe_fit.push_back(*line);
  }
  std::optional<size_t> nearest;
  size_t fewest = 0;
  for (size_t i = 0; i < result.options.size(); ++i) {
    const PlanOption& o = result.options[i];
    if (!o.estimate.fits_memory) continue;
    size_t n = layout_changes(own.layout, o.layout).size();
    if (!nearest || n < fewest ||
        (n == fewest && o.estimate.time.step_s < result.options[*nearest].estimate.time.step_s)) {
      nearest = i;
      fewest = n;
    }
  }
  if (!nearest) return;
  const PlanOption& fit = result.options[*nearest];
  result.recipe_fit_option = nearest;
  result.recipe_fit.push_back(option_letter(*nearest) + " " + fit.layout.label() + " (" +
                              join(layout_changes(own.layout, fit.layout), ", ") +
                              "): " + fit_figures(fit.estimate));
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
  if (auto own = layout_on(request.recipe, result.world_size)) result.recipe_layout = *own;
  SearchSpace space = space_of(request, *model, result.recipe_layout);
  std::vector<Layout> layouts =
      search_layouts(*model, result.world_size, request.hardware.nvlink_domain, space);
  result.candidates = static_cast<int64_t>(layouts.size());
  // The model prices every candidate first (cheap); the rules (dear) run on the fastest EP / VPP
  // variant of each layout, then on the next when they reject it, and always on the recipe's
  // own. Slower variants of a layout that passed are counted as pruned.
  Search(request, *model, result, std::move(layouts)).run();
  rank_options(result);
  if (result.recipe_rank) {
    note_mixed_comm(result.options[*result.recipe_rank],
                    cp_comm_type_pricing_note(request.recipe, model->windowed));
  }
  suggest_recipe_fit(result, request);
  return result;
}

}  // namespace

std::optional<std::string> recompute_that_fits(const ModelDims& model, const PlanRequest& request,
                                               const Layout& own) {
  for (Recompute r : {Recompute::kSelective, Recompute::kFull}) {
    if (r <= request.setup.recompute) continue;
    TrainingSetup setup = request.setup;
    setup.recompute = r;
    auto e = estimate(model, own, request.hardware, setup);
    if (e && e->fits_memory) {
      return std::string("the same layout with --recompute ") + recompute_name(r) + ": " +
             fit_figures(*e);
    }
  }
  return std::nullopt;
}

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
                                                  const std::vector<Layout>& layouts) {
  auto model = model_dims_of(request.recipe);
  if (!model) return model.error();
  std::vector<CompareEntry> entries;
  for (const Layout& layout : layouts) {
    CompareEntry entry;
    entry.option.layout = layout;
    Recipe candidate = recipe_with_layout(request.recipe, layout);
    Environment env = request.env;
    if (!env.world_size) env.world_size = layout.world();  // DP given in the option
    entry.option.diagnostics = check_rules(candidate, env);
    for (const Diagnostic& d : entry.option.diagnostics)
      entry.valid &= d.severity() != Severity::kError;
    if (layout.dp < 1) {  // TP*CP*PP does not divide the world: CP001 says so
      entry.priced = false;
      entry.model_error = "no data-parallel size on " + std::to_string(*env.world_size) + " GPUs";
      entries.push_back(std::move(entry));
      continue;
    }
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
  const std::string mixed = cp_comm_type_pricing_note(request.recipe, model->windowed);
  const Layout own = layout_of(request.recipe, model->windowed);
  for (CompareEntry& e : entries) {
    if (e.priced) e.option = priced[next++];
    // An option with the recipe's comm types prices its mixed list as the most common type.
    const Layout& l = e.option.layout;
    if (l.comm == own.comm && l.windowed_comm == own.windowed_comm)
      note_mixed_comm(e.option, mixed);
  }
  return entries;
}

std::string plan_order_text() {
  return "Rows are ranked: the recommended option first, then the other options that fit in "
         "memory by predicted step time, then those that do not fit.";
}

}  // namespace hcp
