#include "rank_grid.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace hcp::layout {

namespace {

// Upstream's fixed axis list, in the order missing axes are appended.
constexpr std::array<std::string_view, 6> kAxisNames = {"tp", "pp", "dp", "ep", "cp", "gtp_remat"};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

LayoutError bad_order(std::string message) {
  return {LayoutError::Kind::kBadInput, "", "ValueError", std::move(message),
          "dist.use_tp_pp_dp_mapping"};
}

}  // namespace

int64_t AxisSizes::of(std::string_view name) const {
  if (name == "tp") return tp;
  if (name == "pp") return pp;
  if (name == "dp") return dp;
  if (name == "ep") return ep;
  if (name == "cp") return cp;
  if (name == "gtp_remat") return gtp_remat;
  return 0;
}

bool is_axis_name(std::string_view name) {
  return std::find(kAxisNames.begin(), kAxisNames.end(), name) != kAxisNames.end();
}

std::vector<std::string> split_order(std::string_view order) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dash = order.find('-', start);
    parts.emplace_back(order.substr(start, dash == std::string_view::npos ? dash : dash - start));
    if (dash == std::string_view::npos) break;
    start = dash + 1;
  }
  return parts;
}

std::string inject_gtp_remat(std::string_view order, std::string_view after) {
  std::vector<std::string> parts = split_order(order);
  if (std::find(parts.begin(), parts.end(), "gtp_remat") == parts.end()) {
    auto anchor = std::find(parts.begin(), parts.end(), after);
    if (anchor == parts.end()) anchor = std::find(parts.begin(), parts.end(), "tp");
    auto at = anchor == parts.end() ? parts.begin() : anchor + 1;
    parts.insert(at, "gtp_remat");
  }
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : "-") + p;
  return out;
}

std::vector<bool> RankGrid::mask(std::string_view token) const {
  std::vector<std::string> wanted = split_order(token);
  std::vector<bool> out;
  out.reserve(axes.size());
  for (const Axis& a : axes) {
    out.push_back(std::find(wanted.begin(), wanted.end(), a.name) != wanted.end());
  }
  return out;
}

GroupSet RankGrid::ranks(std::string_view token) const {
  return masked_groups(axes, mask(token), rank_offset);
}

std::vector<int64_t> RankGrid::sizes() const {
  std::vector<int64_t> out;
  for (const Axis& a : axes)
    out.push_back(a.size);
  return out;
}

std::variant<RankGrid, LayoutError> make_grid(const AxisSizes& sizes, std::string_view order,
                                              int64_t rank_offset) {
  RankGrid grid;
  grid.rank_offset = rank_offset;
  grid.order = lower(order);
  std::string spelled = grid.order;
  for (std::string_view axis : kAxisNames) {
    if (grid.order.find(axis) != std::string::npos) continue;  // upstream: substring test
    if (sizes.of(axis) != 1) {
      return LayoutError{LayoutError::Kind::kRejected, "", "RuntimeError",
                         "The size of (" + std::string(axis) + ") is (" +
                             std::to_string(sizes.of(axis)) +
                             "), but you haven'tspecified the order (" + std::string(order) + ").",
                         "dist.use_tp_pp_dp_mapping"};
    }
    spelled += "-" + std::string(axis);
  }
  grid.order = spelled;
  std::vector<std::string> tokens = split_order(spelled);
  int64_t stride = 1;
  for (const std::string& t : tokens) {
    if (!is_axis_name(t)) return bad_order("unknown axis '" + t + "' in order '" + spelled + "'");
    for (const Axis& a : grid.axes) {
      if (a.name == t)
        return bad_order("axis '" + t + "' appears twice in order '" + spelled + "'");
    }
    grid.axes.push_back({t, sizes.of(t), stride});
    stride *= sizes.of(t);
  }
  for (std::string_view axis : kAxisNames) {
    bool named = std::any_of(grid.axes.begin(), grid.axes.end(),
                             [&](const Axis& a) { return a.name == axis; });
    if (!named && sizes.of(axis) != 1) {
      return bad_order("order '" + spelled + "' does not name axis " + std::string(axis) +
                       " (size " + std::to_string(sizes.of(axis)) + ")");
    }
  }
  grid.world_size = stride;
  return grid;
}

std::vector<int64_t> mixed_radix_offsets(const std::vector<Axis>& axes) {
  std::vector<int64_t> out = {0};
  for (const Axis& a : axes) {
    if (a.size == 1) continue;
    size_t n = out.size();
    out.resize(n * static_cast<size_t>(a.size));
    for (int64_t c = 1; c < a.size; ++c) {
      for (size_t j = 0; j < n; ++j)
        out[static_cast<size_t>(c) * n + j] = out[j] + c * a.stride;
    }
  }
  return out;
}

GroupSet masked_groups(const std::vector<Axis>& axes, const std::vector<bool>& mask,
                       int64_t rank_offset) {
  std::vector<Axis> inside;
  std::vector<Axis> outside;
  for (size_t i = 0; i < axes.size(); ++i)
    (mask[i] ? inside : outside).push_back(axes[i]);
  std::vector<int64_t> members = mixed_radix_offsets(inside);
  std::vector<int64_t> bases = mixed_radix_offsets(outside);
  GroupSet set;
  set.group_size = static_cast<int64_t>(members.size());
  set.ranks.resize(members.size() * bases.size());
  int* out = set.ranks.data();
  for (int64_t base : bases) {
    int64_t shifted = base + rank_offset;
    for (int64_t m : members)
      *out++ = static_cast<int>(shifted + m);
  }
  return set;
}

std::vector<std::pair<int64_t, int64_t>> canonical_axes(const std::vector<Axis>& axes,
                                                        const std::vector<bool>& mask,
                                                        bool masked) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (mask[i] != masked || axes[i].size == 1) continue;
    if (!out.empty() && out.back().first * out.back().second == axes[i].stride) {
      out.back().first *= axes[i].size;  // contiguous with the previous kept axis: merge
    } else {
      out.emplace_back(axes[i].size, axes[i].stride);
    }
  }
  return out;
}

}  // namespace hcp::layout
