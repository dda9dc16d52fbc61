// A group config checked the way initialize_model_parallel checks it, with its two rank
// generators (decoder and expert) ready to produce groups.
#pragma once

#include <string_view>
#include <variant>

#include "hcp/layout.h"
#include "rank_grid.h"

namespace hcp::layout {

/// A valid config with its derived sizes and generators.
struct ResolvedLayout {
  int64_t dp = 1;
  int64_t expert_dp = 1;
  int64_t etp = 1;
  RankGrid decoder;  ///< RankGenerator(tp, ep=1, dp, pp, cp)
  RankGrid expert;   ///< RankGenerator(etp, ep, edp, pp, cp=1)
};

/// Check a config in upstream order; return the generators or the first problem.
std::variant<ResolvedLayout, LayoutError> resolve_layout(const GroupOptions& config);

/// Return the error value build_groups() passes back for a layout problem.
Error to_error(const LayoutError& e);

/// A group kind that upstream builds with one get_ranks(token) call.
struct TokenKind {
  std::string_view name;   ///< "tp_cp"
  bool expert;             ///< Built by the expert generator.
  std::string_view token;  ///< "tp-cp"
  bool gtp_only;           ///< Only built when the (expert) gtp_remat size is > 1.
};

/// Return the get_ranks kinds in upstream creation order.
const std::vector<TokenKind>& token_kinds();

/// Return the kind of that name, or nullptr.
const TokenKind* find_token_kind(std::string_view name);

/// Return true when the kind is built for this config (gtp kinds only with gtp_remat > 1).
bool kind_exists(const TokenKind& kind, const GroupOptions& config);

/// Return the level-`level` HCP axes of a CP group: the CP axis of `grid` split into
/// (u = prod(h[:level]), s = h[level], l = prod(h[level+1:])) with the mask selecting s.
void hcp_level_axes(const RankGrid& grid, const std::vector<int64_t>& sizes, size_t level,
                    std::vector<Axis>& axes, std::vector<bool>& mask);

}  // namespace hcp::layout
