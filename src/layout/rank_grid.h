// Megatron's RankGenerator: global ranks as mixed-radix numbers over the axes of an order string
// (first axis fastest), and the groups of ranks that differ only in some axes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "hcp/layout.h"

namespace hcp::layout {

/// One axis of the rank grid.
struct Axis {
  std::string name;
  int64_t size = 1;
  int64_t stride = 1;  ///< Product of the sizes of the axes before it.
};

/// Sizes of the axes a RankGenerator knows, by name.
struct AxisSizes {
  int64_t tp = 1, pp = 1, dp = 1, ep = 1, cp = 1, gtp_remat = 1;
  /// Return the size of a known axis name, or 0 for an unknown one.
  int64_t of(std::string_view name) const;
};

/// Return true when `name` is one of tp, pp, dp, ep, cp, gtp_remat.
bool is_axis_name(std::string_view name);

/// Split an order string at '-'.
std::vector<std::string> split_order(std::string_view order);

/// Insert the gtp_remat token after `after` (or after tp), as upstream main does.
std::string inject_gtp_remat(std::string_view order, std::string_view after);

/// A RankGenerator: the resolved order and its axes.
struct RankGrid {
  std::string order;  ///< Lower case, size-1 axes missing from the input appended.
  std::vector<Axis> axes;
  int64_t world_size = 1;
  int64_t rank_offset = 0;

  /// Return the mask of the axes named in `token` ("tp-cp"); names must be axes of the grid.
  std::vector<bool> mask(std::string_view token) const;
  /// Return upstream get_ranks(token).
  GroupSet ranks(std::string_view token) const;
  /// Return the sizes of the axes in order.
  std::vector<int64_t> sizes() const;
};

/// Build a RankGenerator, or return upstream's RuntimeError for a size != 1 axis the order does
/// not name (upstream tests substrings), or a bad-input error when the order is malformed.
std::variant<RankGrid, LayoutError> make_grid(const AxisSizes& sizes, std::string_view order,
                                              int64_t rank_offset);

/// The groups of ranks that differ only in the masked axes: group index over the unmasked axes,
/// member index over the masked ones, first axis fastest in both.
GroupSet masked_groups(const std::vector<Axis>& axes, const std::vector<bool>& mask,
                       int64_t rank_offset);

/// (size, stride) pairs of the masked (or unmasked) axes with size-1 axes dropped and runs of
/// contiguous axes merged; two grids give the same group lists iff these agree.
std::vector<std::pair<int64_t, int64_t>> canonical_axes(const std::vector<Axis>& axes,
                                                        const std::vector<bool>& mask, bool masked);

/// All sums of c_i * stride_i over the given axes (first axis fastest), ascending for grids.
std::vector<int64_t> mixed_radix_offsets(const std::vector<Axis>& axes);

}  // namespace hcp::layout
