// build_groups: the group construction of initialize_model_parallel, in upstream creation order.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "hcp/layout.h"
#include "rank_grid.h"
#include "resolve.h"

namespace hcp {

using layout::RankGrid;
using layout::ResolvedLayout;

std::string LayoutError::str() const {
  // Upstream's own words, quoted as such (its typos included: "haven'tspecified").
  if (rule_id.empty() && !exception.empty()) {
    return "Megatron raises " + exception + ": \"" + message + "\"";
  }
  if (rule_id.empty()) return message;
  return "[" + rule_id + "] " + (rule_message.empty() ? message : rule_message);
}

std::vector<std::vector<int>> GroupSet::lists() const {
  std::vector<std::vector<int>> out;
  out.reserve(count());
  for (size_t i = 0; i < count(); ++i) {
    auto g = group(i);
    out.emplace_back(g.begin(), g.end());
  }
  return out;
}

const GroupSet* RankGroups::find(std::string_view name) const {
  for (const NamedGroups& k : kinds) {
    if (k.name == name) return &k.groups;
  }
  return nullptr;
}

std::optional<LayoutError> check_group_options(const GroupOptions& config) {
  auto resolved = layout::resolve_layout(config);
  if (auto* e = std::get_if<LayoutError>(&resolved)) return *e;
  return std::nullopt;
}

namespace {

/// Upstream create_hierarchical_groups for one CP group: einops "(l s u) -> (l u) s" per level.
void append_hierarchical(std::span<const int> ranks, const std::vector<int64_t>& sizes,
                         std::vector<GroupSet>& levels) {
  for (size_t level = 0; level < sizes.size(); ++level) {
    int64_t u = 1;
    int64_t l = 1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (i < level) u *= sizes[i];
      if (i > level) l *= sizes[i];
    }
    const int64_t s = sizes[level];
    GroupSet& out = levels[level];
    out.group_size = s;
    for (int64_t li = 0; li < l; ++li) {
      for (int64_t ui = 0; ui < u; ++ui) {
        for (int64_t si = 0; si < s; ++si) {
          out.ranks.push_back(ranks[static_cast<size_t>(li * s * u + si * u + ui)]);
        }
      }
    }
  }
}

/// Consecutive slices R[i:i+s] of every group, for each size (hybrid/dynamic DP x CP groups).
std::map<int64_t, std::vector<std::vector<int>>> power_of_two_slices(const GroupSet& dp_cp,
                                                                     int64_t min_size) {
  std::map<int64_t, std::vector<std::vector<int>>> out;
  const int64_t n = dp_cp.group_size;
  int floor_log2 = 0;
  while ((int64_t{2} << floor_log2) <= n)
    ++floor_log2;
  for (size_t gi = 0; gi < dp_cp.count(); ++gi) {
    auto r = dp_cp.group(gi);
    for (int i = 0; i < floor_log2; ++i) {
      const int64_t size = int64_t{1} << i;
      if (size < min_size) continue;
      for (int64_t start = 0; start < n; start += size) {
        int64_t end = std::min(n, start + size);
        out[size].emplace_back(r.begin() + start, r.begin() + end);
      }
    }
  }
  return out;
}

/// Contiguous slices of `parts` equal pieces of every group.
GroupSet split_groups(const GroupSet& groups, int64_t parts) {
  GroupSet out;
  out.group_size = groups.group_size / parts;
  out.ranks = groups.ranks;  // Slicing each group into equal parts keeps the flat order.
  return out;
}

/// Groups built from the first (and last) member of each pipeline group.
GroupSet embedding_groups(const GroupSet& pp, bool with_last) {
  GroupSet out;
  const bool two = with_last && pp.group_size > 1;
  out.group_size = two ? 2 : 1;
  for (size_t i = 0; i < pp.count(); ++i) {
    auto g = pp.group(i);
    out.ranks.push_back(g.front());
    if (two) out.ranks.push_back(g.back());
  }
  return out;
}

/// _INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP: `per` consecutive tp-ep-pp groups concatenated.
GroupSet distributed_optimizer_instances(const GroupSet& tp_ep_pp, int64_t per, bool gtp) {
  GroupSet out;
  out.ranks = tp_ep_pp.ranks;
  if (gtp) {
    std::sort(out.ranks.begin(), out.ranks.end());
    out.group_size = static_cast<int64_t>(out.ranks.size());
  } else {
    out.group_size = tp_ep_pp.group_size * per;
  }
  return out;
}

std::vector<std::string> te_warnings(const std::vector<int64_t>& hcp) {
  std::vector<std::string> w;
  if (hcp.empty()) return w;
  if (hcp.size() != 2) {
    w.push_back(
        "TransformerEngine a2a+p2p accepts exactly two HCP levels (assert len(cp_group) == 2); "
        "parallel_state itself builds any number");
  } else if (hcp[0] == 1) {
    w.push_back("HCP a2a level has size 1: TransformerEngine falls back to cp_comm_type=p2p");
  } else if (hcp[1] == 1) {
    w.push_back("HCP p2p level has size 1: TransformerEngine falls back to cp_comm_type=a2a");
  }
  return w;
}

class GroupBuilder {
 public:
  GroupBuilder(const GroupOptions& c, const ResolvedLayout& r) : c_(c), r_(r) {}

  RankGroups build() {
    RankGroups g;
    fill_derived(g);
    add(g, "dp_cp");
    const GroupSet& dp_cp = g.kinds.back().groups;
    const int64_t ndo = c_.num_distributed_optimizer_instances;
    if (ndo > 1) g.kinds.push_back({"intra_partial_dp_cp", split_groups(dp_cp, ndo)});
    if (c_.hybrid_context_parallel) {
      g.hybrid_dp_cp = power_of_two_slices(*g.find("dp_cp"), 2);
    } else if (c_.dynamic_context_parallel) {
      g.dynamic_dp_cp = power_of_two_slices(*g.find("dp_cp"), c_.min_dynamic_context_parallel_size);
    }
    for (const char* k : {"dp", "gtp_remat", "gtp_remat_dp", "gtp_remat_dp_cp", "cp"})
      add(g, k);
    if (!c_.layout.hcp.empty()) {
      g.hcp.resize(c_.layout.hcp.size());
      const GroupSet& cp = *g.find("cp");
      for (size_t i = 0; i < cp.count(); ++i)
        append_hierarchical(cp.group(i), c_.layout.hcp, g.hcp);
    }
    for (const char* k : {"mp", "tp", "pp"})
      add(g, k);
    g.kinds.push_back({"embd", embedding_groups(*g.find("pp"), true)});
    g.kinds.push_back({"pos_embd", embedding_groups(*g.find("pp"), false)});
    for (const char* k : {"tp_dp_cp", "tp_dp", "tp_cp", "expt_gtp_remat", "ep", "expt_tp", "tp_ep",
                          "tp_ep_pp", "expt_dp"}) {
      add(g, k);
    }
    if (ndo > 1) add_partial_expert_dp(g, ndo);
    const bool gtp = c_.gtp_remat > 1 || c_.egtp_remat > 1;
    g.kinds.push_back(
        {"intra_dist_opt_instance",
         distributed_optimizer_instances(*g.find("tp_ep_pp"), r_.expert_dp / ndo, gtp)});
    g.warnings = te_warnings(c_.layout.hcp);
    return g;
  }

 private:
  void fill_derived(RankGroups& g) const {
    g.config = c_;
    g.dp = r_.dp;
    g.expert_dp = r_.expert_dp;
    g.etp = r_.etp;
    g.decoder_order = r_.decoder.order;
    g.expert_order = r_.expert.order;
    g.decoder_sizes = r_.decoder.sizes();
    g.expert_sizes = r_.expert.sizes();
  }

  void add(RankGroups& g, std::string_view name) const {
    const layout::TokenKind* kind = layout::find_token_kind(name);
    if (kind == nullptr || !layout::kind_exists(*kind, c_)) return;
    const RankGrid& grid = kind->expert ? r_.expert : r_.decoder;
    g.kinds.push_back({std::string(name), grid.ranks(kind->token)});
  }

  void add_partial_expert_dp(RankGroups& g, int64_t ndo) const {
    const GroupSet& expt_dp = *g.find("expt_dp");
    std::vector<GroupSet> levels(2);
    const std::vector<int64_t> sizes = {r_.expert_dp / ndo, ndo};
    for (size_t i = 0; i < expt_dp.count(); ++i)
      append_hierarchical(expt_dp.group(i), sizes, levels);
    g.kinds.push_back({"intra_partial_expt_dp", std::move(levels[0])});
    g.kinds.push_back({"inter_partial_expt_dp", std::move(levels[1])});
  }

  const GroupOptions& c_;
  const ResolvedLayout& r_;
};

}  // namespace

Result<RankGroups> build_groups(const GroupOptions& config) {
  auto resolved = layout::resolve_layout(config);
  if (auto* e = std::get_if<LayoutError>(&resolved)) {
    return layout::to_error(*e);
  }
  return GroupBuilder(config, std::get<ResolvedLayout>(resolved)).build();
}

GroupOptions group_options_of(const Recipe& recipe, int64_t world_size) {
  GroupOptions c;
  c.world_size = world_size;
  c.layout = layout_of(recipe);
  c.layout.etp = c.layout.expert_tp();  // the recipe's TP: a later --tp does not move it
  c.hybrid_context_parallel = recipe.bool_or("model.hybrid_context_parallel", false);
  c.dynamic_context_parallel = recipe.bool_or("model.dynamic_context_parallel", false);
  c.min_dynamic_context_parallel_size = recipe.int_or("model.min_dynamic_context_parallel_size", 1);
  c.num_distributed_optimizer_instances =
      recipe.int_or("ddp.num_distributed_optimizer_instances", 1);
  return c;
}

Result<std::vector<int64_t>> parse_hcp_sizes(std::string_view text) {
  auto fail = [&](const std::string& why) {
    Error e;
    e.message = "bad hierarchical CP sizes '" + std::string(text) + "': " + why +
                " (write them as 8,2 or 8x2 or [8,2])";
    e.key = "model.hierarchical_context_parallel_sizes";
    return e;
  };
  std::string_view body = text;
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
      s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
      s.remove_suffix(1);
    return s;
  };
  body = trim(body);
  if (body.size() >= 2 && body.front() == '[' && body.back() == ']') {
    body = trim(body.substr(1, body.size() - 2));
  }
  if (body.empty()) return fail("no sizes");
  std::vector<int64_t> sizes;
  size_t start = 0;
  while (start <= body.size()) {
    size_t sep = body.find_first_of(",xX*", start);
    std::string_view item =
        trim(body.substr(start, sep == std::string_view::npos ? sep : sep - start));
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
      return fail("'" + std::string(item) + "' is not an integer");
    }
    if (v < 1) return fail("sizes must be >= 1");
    sizes.push_back(v);
    if (sep == std::string_view::npos) break;
    start = sep + 1;
  }
  return sizes;
}

}  // namespace hcp
