#include "resolve.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include "hcp/rules.h"

namespace hcp::layout {

namespace {

using Kind = LayoutError::Kind;

/// Largest world size hcp-plan lays out (groups are materialised as int ranks).
constexpr int64_t kMaxWorld = int64_t{1} << 22;

using size_rules::Wide;
using size_rules::wide_product;
using size_rules::wide_str;

LayoutError bad_input(std::string message, std::string key) {
  return {Kind::kBadInput, "", "ValueError", std::move(message), std::move(key)};
}

LayoutError rejected(std::string rule, std::string exception, std::string message,
                     std::string key) {
  return {Kind::kRejected, std::move(rule), std::move(exception), std::move(message),
          std::move(key)};
}

/// Upstream's rejection of a layout rule's finding: the rule's text (hcp::size_rules, shared with
/// validate) with upstream's exception and verbatim message.
LayoutError rejected(const SizeFinding& f, std::string exception, std::string upstream_message) {
  LayoutError e =
      rejected(std::string(f.id), std::move(exception), std::move(upstream_message), f.key);
  e.rule_message = f.message;
  return e;
}

std::optional<LayoutError> check_size(const char* what, int64_t v, const char* key) {
  if (v < 1 || v > kMaxWorld) {
    return bad_input(std::string(what) + " must be between 1 and " + std::to_string(kMaxWorld) +
                         ", got " + std::to_string(v),
                     key);
  }
  return std::nullopt;
}

/// Inputs that are not a layout at all: sizes below 1, malformed order strings.
std::optional<LayoutError> check_inputs(const GroupOptions& c) {
  if (c.world_size < 1 || c.world_size > kMaxWorld) {
    return bad_input("world size must be between 1 and " + std::to_string(kMaxWorld) + ", got " +
                         std::to_string(c.world_size),
                     "world_size");
  }
  if (auto f = size_rules::context_parallel_positive(c.layout.cp)) {
    return rejected(
        *f, "ValueError",
        "context_parallel_size must be a positive integer, got " + std::to_string(c.layout.cp));
  }
  const std::pair<const char*, std::pair<int64_t, const char*>> sizes[] = {
      {"tensor_model_parallel_size", {c.layout.tp, "model.tensor_model_parallel_size"}},
      {"pipeline_model_parallel_size", {c.layout.pp, "model.pipeline_model_parallel_size"}},
      {"context_parallel_size", {c.layout.cp, "model.context_parallel_size"}},
      {"expert_model_parallel_size", {c.layout.ep, "model.expert_model_parallel_size"}},
      {"expert_tensor_parallel_size", {c.layout.expert_tp(), "model.expert_tensor_parallel_size"}},
      {"num_distributed_optimizer_instances",
       {c.num_distributed_optimizer_instances, "ddp.num_distributed_optimizer_instances"}},
      {"gtp_remat size", {c.gtp_remat, "model.tensor_parallel_num_weight_shards"}},
      {"expert gtp_remat size", {c.egtp_remat, "model.tensor_parallel_num_weight_shards"}},
  };
  for (const auto& [what, v] : sizes) {
    if (auto e = check_size(what, v.first, v.second)) return e;
  }
  if (c.layout.vpp && *c.layout.vpp < 1) {
    return bad_input(
        "virtual_pipeline_model_parallel_size must be >= 1, got " + std::to_string(*c.layout.vpp),
        "model.virtual_pipeline_model_parallel_size");
  }
  for (int64_t h : c.layout.hcp) {
    if (auto e = check_size("each hierarchical_context_parallel_sizes entry", h,
                            "model.hierarchical_context_parallel_sizes")) {
      return e;
    }
  }
  if (auto f = size_rules::min_dynamic_size_positive(c.min_dynamic_context_parallel_size)) {
    return rejected(*f, "ValueError", f->message);
  }
  if (c.rank_offset < 0 || c.rank_offset > std::numeric_limits<int>::max() - c.world_size) {
    return bad_input("rank offset out of range: " + std::to_string(c.rank_offset), "rank_offset");
  }
  std::string order = c.layout.order;
  for (char& ch : order)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::vector<std::string> tokens = split_order(order);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!is_axis_name(tokens[i])) {
      return bad_input("unknown axis '" + tokens[i] + "' in order '" + c.layout.order +
                           "' (axes: tp, cp, ep, dp, pp)",
                       "dist.use_tp_pp_dp_mapping");
    }
    if (std::find(tokens.begin(), tokens.begin() + static_cast<long>(i), tokens[i]) !=
        tokens.begin() + static_cast<long>(i)) {
      return bad_input("axis '" + tokens[i] + "' appears twice in order '" + c.layout.order + "'",
                       "dist.use_tp_pp_dp_mapping");
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<ResolvedLayout, LayoutError> resolve_layout(const GroupOptions& c) {
  if (auto e = check_inputs(c)) return *e;
  const int64_t W = c.world_size;
  const int64_t ndo = c.num_distributed_optimizer_instances;
  ResolvedLayout r;
  r.etp = c.layout.expert_tp();
  if ((c.gtp_remat > 1 || c.egtp_remat > 1) && ndo > 1) {
    return rejected("", "AssertionError",
                    "GTP_remat with num_distributed_optimizer_instances > 1 is not yet supported.",
                    "ddp.num_distributed_optimizer_instances");
  }
  Wide model_size = wide_product({c.layout.tp, c.layout.pp, c.layout.cp, c.gtp_remat});
  if (auto f = size_rules::world_divisible(W, c.layout.tp, c.layout.pp, c.layout.cp, c.gtp_remat)) {
    return rejected(
        *f, "RuntimeError",
        "world_size (" + std::to_string(W) + ") is not divisible by " + wide_str(model_size));
  }
  r.dp = W / static_cast<int64_t>(model_size);
  if (c.layout.vpp && c.layout.pp <= 1) {
    return rejected("", "RuntimeError",
                    "pipeline-model-parallel size should be greater than 1 with interleaved "
                    "schedule",
                    "model.virtual_pipeline_model_parallel_size");
  }
  AxisSizes dec{c.layout.tp, c.layout.pp, r.dp, 1, c.layout.cp, c.gtp_remat};
  auto decoder = make_grid(dec, inject_gtp_remat(c.layout.order, "tp"), c.rank_offset);
  if (auto* e = std::get_if<LayoutError>(&decoder)) return *e;
  r.decoder = std::get<RankGrid>(std::move(decoder));

  Wide etmp = wide_product({r.etp, c.layout.ep, c.layout.pp, c.egtp_remat});
  if (auto f =
          size_rules::expert_world_divisible(W, r.etp, c.layout.ep, c.layout.pp, c.egtp_remat)) {
    return rejected(*f, "RuntimeError",
                    "world_size (" + std::to_string(W) +
                        ") is not divisible by expert_tensor_model_pipeline_parallel size (" +
                        wide_str(etmp) + ")");
  }
  r.expert_dp = W / static_cast<int64_t>(etmp);
  AxisSizes exp{r.etp, c.layout.pp, r.expert_dp, c.layout.ep, 1, c.egtp_remat};
  auto expert = make_grid(exp, inject_gtp_remat(c.layout.order, "ep"), c.rank_offset);
  if (auto* e = std::get_if<LayoutError>(&expert)) return *e;
  r.expert = std::get<RankGrid>(std::move(expert));

  bool pp_last = c.layout.order.ends_with("pp");  // upstream: order.endswith("pp"), case-sensitive
  // dp == expert_dp exactly when the dense and expert groups (both dividing W) are equal.
  if (auto f = size_rules::rank_ordering_same_dp(pp_last, c.layout.pp,
                                                 c.layout.tp * c.layout.cp * c.gtp_remat,
                                                 r.etp * c.layout.ep * c.egtp_remat)) {
    return rejected(*f, "AssertionError",
                    "When not using pp-last rank ordering, the data parallel size of the attention "
                    "and moe layers must be the same");
  }
  std::vector<bool> dec_pp = r.decoder.mask("pp");
  std::vector<bool> exp_pp = r.expert.mask("pp");
  if (canonical_axes(r.decoder.axes, dec_pp, true) != canonical_axes(r.expert.axes, exp_pp, true) ||
      canonical_axes(r.decoder.axes, dec_pp, false) !=
          canonical_axes(r.expert.axes, exp_pp, false)) {
    return rejected("", "AssertionError",
                    "Pipeline parallel groups are expected to be the same for Non-Expert and "
                    "Expert part",
                    "dist.use_tp_pp_dp_mapping");
  }
  if (auto f = size_rules::distopt_instances_divide(r.dp * c.layout.cp, ndo)) {
    return rejected(*f, "AssertionError",
                    "Data parallel size should be divisible by partial DistOpt shard factor");
  }
  if (c.hybrid_context_parallel || c.dynamic_context_parallel) {
    bool hybrid = c.hybrid_context_parallel;
    if (auto f = size_rules::dynamic_domain_even(hybrid, r.dp * c.layout.cp)) {
      return rejected(*f, "AssertionError",
                      std::string(hybrid ? "Hybrid" : "Dynamic") +
                          " context parallel requires an even number of ranks");
    }
  }
  if (auto f = size_rules::hcp_product(c.layout.hcp, c.layout.cp)) {
    return rejected(*f, "AssertionError",
                    "np.prod(hierarchical_context_parallel_sizes) == context_parallel_size failed");
  }
  if (r.expert_dp % ndo != 0) {
    return rejected("", "AssertionError",
                    "Expert data parallel size should be divisible by partial DistOpt shard factor",
                    "ddp.num_distributed_optimizer_instances");
  }
  return r;
}

Error to_error(const LayoutError& e) {
  Error err;
  err.message = e.str();
  err.key = e.key;
  return err;
}

const std::vector<TokenKind>& token_kinds() {
  static const std::vector<TokenKind> kinds = {
      {"dp_cp", false, "dp-cp", false},
      {"dp", false, "dp", false},
      {"gtp_remat", false, "gtp_remat", true},
      {"gtp_remat_dp", false, "gtp_remat-dp", true},
      {"gtp_remat_dp_cp", false, "gtp_remat-dp-cp", true},
      {"cp", false, "cp", false},
      {"mp", false, "tp-gtp_remat-pp", false},
      {"tp", false, "tp", false},
      {"pp", false, "pp", false},
      {"tp_dp_cp", false, "tp-gtp_remat-dp-cp", false},
      {"tp_dp", false, "tp-gtp_remat-dp", false},
      {"tp_cp", false, "tp-cp", false},
      {"expt_gtp_remat", true, "gtp_remat", true},
      {"ep", true, "ep", false},
      {"expt_tp", true, "tp", false},
      {"tp_ep", true, "tp-ep", false},
      {"tp_ep_pp", true, "tp-ep-pp", false},
      {"expt_dp", true, "dp", false},
  };
  return kinds;
}

const TokenKind* find_token_kind(std::string_view name) {
  for (const TokenKind& k : token_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

bool kind_exists(const TokenKind& kind, const GroupOptions& config) {
  if (!kind.gtp_only) return true;
  return (kind.expert ? config.egtp_remat : config.gtp_remat) > 1;
}

void hcp_level_axes(const RankGrid& grid, const std::vector<int64_t>& sizes, size_t level,
                    std::vector<Axis>& axes, std::vector<bool>& mask) {
  int64_t u = 1;
  int64_t l = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i < level) u *= sizes[i];
    if (i > level) l *= sizes[i];
  }
  axes.clear();
  mask.clear();
  for (const Axis& a : grid.axes) {
    if (a.name != "cp") {
      axes.push_back(a);
      mask.push_back(false);
      continue;
    }
    axes.push_back({"cp_u", u, a.stride});
    mask.push_back(false);
    axes.push_back({"cp_s", sizes[level], a.stride * u});
    mask.push_back(true);
    axes.push_back({"cp_l", l, a.stride * u * sizes[level]});
    mask.push_back(false);
  }
}

}  // namespace hcp::layout
