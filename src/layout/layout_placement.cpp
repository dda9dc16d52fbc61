// Where groups land: node(r) = r / gpus_per_node, NVLink domain(r) = r / nvlink_domain.
// place() counts over materialised groups; place_group_kind() gets the same numbers from the
// rank grid without building any group.
#include <algorithm>
#include <numeric>

#include "hcp/layout.h"
#include "rank_grid.h"
#include "resolve.h"

namespace hcp {

using layout::Axis;

namespace {

/// Number of distinct blocks (r / block) among the members; members need not be sorted.
int64_t blocks_spanned(std::span<const int> members, int64_t block, std::vector<int>& scratch) {
  if (members.empty()) return 0;
  if (std::is_sorted(members.begin(), members.end())) {
    int64_t n = 1;
    for (size_t i = 1; i < members.size(); ++i) {
      if (members[i] / block != members[i - 1] / block) ++n;
    }
    return n;
  }
  scratch.assign(members.begin(), members.end());
  for (int& r : scratch)
    r = static_cast<int>(r / block);
  std::sort(scratch.begin(), scratch.end());
  return std::unique(scratch.begin(), scratch.end()) - scratch.begin();
}

/// Accumulates per-group block counts into a placement.
struct PlacementCounter {
  NodeShape shape;
  GroupPlacement out;
  std::vector<int> scratch;

  void add(std::span<const int> members) {
    out.group_size = std::max<int64_t>(out.group_size, static_cast<int64_t>(members.size()));
    ++out.num_groups;
    int64_t nodes = blocks_spanned(members, shape.gpus_per_node, scratch);
    int64_t domains = blocks_spanned(members, shape.nvlink_domain, scratch);
    if (nodes > 1) ++out.cross_node_groups;
    if (domains > 1) ++out.cross_domain_groups;
    out.max_nodes_spanned = std::max(out.max_nodes_spanned, nodes);
    out.max_domains_spanned = std::max(out.max_domains_spanned, domains);
  }
};

NodeShape sane(NodeShape s) {
  s.gpus_per_node = std::max<int64_t>(1, s.gpus_per_node);
  s.nvlink_domain = std::max<int64_t>(1, s.nvlink_domain);
  return s;
}

/// Residues (base mod block) of all group bases and how many bases share each, where a base is
/// rank_offset + sum c_i * stride_i over the unmasked axes. At most `block` residues.
std::vector<std::pair<int64_t, int64_t>> base_residues(const std::vector<Axis>& unmasked,
                                                       int64_t rank_offset, int64_t block) {
  std::vector<std::pair<int64_t, int64_t>> cur = {{rank_offset % block, 1}};
  std::vector<std::pair<int64_t, int64_t>> next;
  for (const Axis& a : unmasked) {
    if (a.size == 1) continue;
    const int64_t step = a.stride % block;
    // c * step mod block repeats with this period; weight each c < period by its repetitions.
    const int64_t period = step == 0 ? 1 : block / std::gcd(step, block);
    const int64_t reps = std::min(period, a.size);
    next.clear();
    for (const auto& [residue, count] : cur) {
      for (int64_t c = 0; c < reps; ++c) {
        int64_t weight = a.size / period + (c < a.size % period ? 1 : 0);
        next.emplace_back((residue + c * step) % block, count * weight);
      }
    }
    std::sort(next.begin(), next.end());
    cur.clear();
    for (const auto& p : next) {
      if (!cur.empty() && cur.back().first == p.first) {
        cur.back().second += p.second;
      } else {
        cur.push_back(p);
      }
    }
  }
  return cur;
}

/// (groups spanning more than one block, most blocks one group spans). `offsets` is sorted.
/// A group whose base has residue r (mod block) crosses into a new block between sorted members
/// o[i-1] and o[i] when the gap d = o[i] - o[i-1] is at least the block, or when
/// (r + o[i-1]) mod block + d >= block. Walking the members once per residue costs
/// O(members x residues), at most the world size (residues <= groups); counting the gaps once per
/// (o[i-1] mod block) and looking the crossings up per residue costs O(members + block^2 +
/// residues x block). The cheaper one runs, so the work never exceeds the world size (a block of
/// 2^20 GPUs made the second one 2^40).
std::pair<int64_t, int64_t> block_counts(const std::vector<Axis>& unmasked,
                                         const std::vector<int64_t>& offsets, int64_t rank_offset,
                                         int64_t block) {
  int64_t crossing = 0;
  int64_t most = 0;
  const size_t n = offsets.size();
  if (n == 0) return {0, 0};
  // Every rank of every group in the block of the first rank (one node of the whole world):
  // nothing crosses, without looking at a residue.
  int64_t last_rank = rank_offset + offsets.back();
  for (const Axis& a : unmasked)
    last_rank += (a.size - 1) * a.stride;
  if (last_rank / block == (rank_offset + offsets.front()) / block) return {0, 1};
  const auto residues = base_residues(unmasked, rank_offset, block);
  const double walk_cost = static_cast<double>(residues.size()) * static_cast<double>(n);
  const double table_cost =
      static_cast<double>(n) +
      static_cast<double>(block) * static_cast<double>(block + residues.size());
  if (walk_cost <= table_cost) {
    for (const auto& [residue, count] : residues) {
      // Walk the sorted members; divide only where a member leaves the current block.
      int64_t blocks = 1;
      int64_t end = ((residue + offsets[0]) / block + 1) * block;
      for (size_t i = 1; i < n; ++i) {
        int64_t r = residue + offsets[i];
        if (r < end) continue;
        ++blocks;
        end = r - r % block + block;
      }
      if (blocks > 1) crossing += count;
      most = std::max(most, blocks);
    }
    return {crossing, most};
  }
  // at_least[a * (block + 1) + k]: gaps shorter than the block after a member with o mod block
  // == a whose length is >= k (suffix counts over k).
  const auto b = static_cast<size_t>(block);
  std::vector<int64_t> at_least(b * (b + 1), 0);
  int64_t long_gaps = 0;
  // o[i] mod block follows from o[i-1] mod block and the gap; the gaps of a mixed-radix group
  // take few values, so the gap's residue is cached.
  int64_t mod = offsets[0] % block;
  int64_t last_gap = -1;
  int64_t last_gap_mod = 0;
  for (size_t i = 1; i < n; ++i) {
    int64_t d = offsets[i] - offsets[i - 1];
    if (d >= block) {
      ++long_gaps;
    } else if (d > 0) {
      ++at_least[static_cast<size_t>(mod) * (b + 1) + static_cast<size_t>(d)];
    }
    if (d != last_gap) {
      last_gap = d;
      last_gap_mod = d % block;
    }
    mod += last_gap_mod;
    if (mod >= block) mod -= block;
  }
  for (size_t a = 0; a < b; ++a) {
    for (size_t k = b; k-- > 0;)
      at_least[a * (b + 1) + k] += at_least[a * (b + 1) + k + 1];
  }
  for (const auto& [residue, count] : residues) {
    int64_t blocks = 1 + long_gaps;
    for (size_t a = 0; a < b; ++a) {
      auto t = static_cast<size_t>((residue + static_cast<int64_t>(a)) % block);
      blocks += at_least[a * (b + 1) + (b - t)];
    }
    if (blocks > 1) crossing += count;
    most = std::max(most, blocks);
  }
  return {crossing, most};
}

GroupPlacement closed_form(const std::vector<Axis>& axes, const std::vector<bool>& mask,
                           int64_t rank_offset, const NodeShape& shape) {
  std::vector<Axis> inside;
  std::vector<Axis> outside;
  for (size_t i = 0; i < axes.size(); ++i)
    (mask[i] ? inside : outside).push_back(axes[i]);
  std::vector<int64_t> offsets = layout::mixed_radix_offsets(inside);
  // Distinct-block counts ignore member order.
  if (!std::is_sorted(offsets.begin(), offsets.end())) std::sort(offsets.begin(), offsets.end());
  GroupPlacement p;
  p.group_size = static_cast<int64_t>(offsets.size());
  p.num_groups = 1;
  for (const Axis& a : outside)
    p.num_groups *= a.size;
  std::tie(p.cross_node_groups, p.max_nodes_spanned) =
      block_counts(outside, offsets, rank_offset, shape.gpus_per_node);
  std::tie(p.cross_domain_groups, p.max_domains_spanned) =
      block_counts(outside, offsets, rank_offset, shape.nvlink_domain);
  return p;
}

Error not_closed_form(std::string_view kind) {
  Error e;
  e.message = "no closed-form placement for group kind '" + std::string(kind) +
              "'; use build_groups() and place()";
  return e;
}

}  // namespace

GroupPlacement place(const GroupSet& groups, const NodeShape& shape) {
  PlacementCounter counter{sane(shape), {}, {}};
  for (size_t i = 0; i < groups.count(); ++i)
    counter.add(groups.group(i));
  return counter.out;
}

GroupPlacement place(const std::vector<std::vector<int>>& groups, const NodeShape& shape) {
  PlacementCounter counter{sane(shape), {}, {}};
  for (const auto& g : groups)
    counter.add(g);
  return counter.out;
}

GroupPlacement place(const std::vector<std::vector<int>>& groups, int gpus_per_node,
                     int nvlink_domain) {
  return place(groups, NodeShape{gpus_per_node, nvlink_domain});
}

std::vector<std::string> closed_form_kinds(const GroupOptions& config) {
  std::vector<std::string> out;
  for (const layout::TokenKind& k : layout::token_kinds()) {
    if (layout::kind_exists(k, config)) out.emplace_back(k.name);
  }
  for (size_t level = 0; level < config.layout.hcp.size(); ++level) {
    out.push_back("hcp_L" + std::to_string(level));
  }
  return out;
}

namespace {

Result<GroupPlacement> place_resolved(const GroupOptions& config, const layout::ResolvedLayout& r,
                                      std::string_view kind, const NodeShape& shape) {
  const NodeShape s = sane(shape);
  if (const layout::TokenKind* k = layout::find_token_kind(kind)) {
    if (!layout::kind_exists(*k, config)) return not_closed_form(kind);
    const layout::RankGrid& grid = k->expert ? r.expert : r.decoder;
    return closed_form(grid.axes, grid.mask(k->token), config.rank_offset, s);
  }
  if (kind.starts_with("hcp_L")) {
    std::string_view digits = kind.substr(5);
    size_t level = 0;
    bool ok = !digits.empty() && digits.size() < 4;
    for (char ch : digits) {
      ok = ok && ch >= '0' && ch <= '9';
      level = level * 10 + static_cast<size_t>(ch - '0');
    }
    if (ok && level < config.layout.hcp.size()) {
      std::vector<Axis> axes;
      std::vector<bool> mask;
      layout::hcp_level_axes(r.decoder, config.layout.hcp, level, axes, mask);
      return closed_form(axes, mask, config.rank_offset, s);
    }
  }
  return not_closed_form(kind);
}

}  // namespace

Result<std::vector<GroupPlacement>> place_group_kinds(const GroupOptions& config,
                                                      std::span<const std::string_view> kinds,
                                                      const NodeShape& shape) {
  auto resolved = layout::resolve_layout(config);
  if (auto* e = std::get_if<LayoutError>(&resolved)) return layout::to_error(*e);
  const auto& r = std::get<layout::ResolvedLayout>(resolved);
  std::vector<GroupPlacement> out;
  out.reserve(kinds.size());
  for (std::string_view kind : kinds) {
    auto p = place_resolved(config, r, kind, shape);
    if (!p) return p.error();
    out.push_back(*p);
  }
  return out;
}

Result<GroupPlacement> place_group_kind(const GroupOptions& config, std::string_view kind,
                                        const NodeShape& shape) {
  auto resolved = layout::resolve_layout(config);
  if (auto* e = std::get_if<LayoutError>(&resolved)) return layout::to_error(*e);
  return place_resolved(config, std::get<layout::ResolvedLayout>(resolved), kind, shape);
}

Result<LayoutLocality> layout_locality(const GroupOptions& config, const NodeShape& shape) {
  auto resolved = layout::resolve_layout(config);
  if (auto* e = std::get_if<LayoutError>(&resolved)) return layout::to_error(*e);
  const auto& r = std::get<layout::ResolvedLayout>(resolved);
  auto get = [&](std::string_view kind) { return place_resolved(config, r, kind, shape); };
  LayoutLocality loc;
  const std::pair<std::string_view, GroupPlacement*> wanted[] = {
      {"tp", &loc.tp}, {"cp", &loc.cp}, {"dp", &loc.dp}, {"ep", &loc.ep}};
  for (const auto& [kind, slot] : wanted) {
    auto p = get(kind);
    if (!p) return p.error();
    *slot = *p;
  }
  if (!config.layout.hcp.empty()) {
    auto a2a = get("hcp_L0");
    if (!a2a) return a2a.error();
    loc.hcp_a2a = *a2a;
  }
  if (config.layout.hcp.size() >= 2) {
    auto p2p = get("hcp_L1");
    if (!p2p) return p2p.error();
    loc.hcp_p2p = *p2p;
  }
  return loc;
}

}  // namespace hcp
