// A layout option as written on the command line: "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2".
// Shared by `bench --option` and the planner's `compare --option`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/cp_volume.h"
#include "hcp/diagnostic.h"

namespace hcp {

/// One parsed --option. Keys that were not given stay unset so callers can fill them from the
/// recipe (e.g. pp and dp).
struct LayoutOption {
  std::optional<int64_t> tp;               ///< tensor_model_parallel_size.
  std::optional<int64_t> cp;               ///< context_parallel_size.
  std::optional<int64_t> pp;               ///< pipeline_model_parallel_size.
  std::optional<int64_t> ep;               ///< expert_model_parallel_size.
  std::optional<int64_t> etp;              ///< expert_tensor_parallel_size.
  std::optional<int64_t> dp;               ///< data-parallel size.
  std::optional<int64_t> vp;               ///< virtual_pipeline_model_parallel_size.
  std::optional<CpCommType> cp_comm_type;  ///< cp_comm_type.
  std::vector<int64_t> hcp;  ///< hierarchical_context_parallel_sizes; empty when not given.

  /// Return the canonical text form, keys in a fixed order:
  /// "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2".
  std::string str() const;
};

/// Parse "key=value,key=value". Keys: tp, cp, pp, ep, etp, dp, vp (positive integers), cp_comm_type
/// (p2p|all_gather|a2a|a2a+p2p), hcp as "AxP", "A,P" inside brackets "[A,P]" or "[A, P]".
/// Errors (as values, key set to the offending key): empty text, missing '=', unknown key (with a
/// did-you-mean), duplicate key, non-numeric or non-positive size, bad hcp list, prod(hcp) != cp.
Result<LayoutOption> parse_layout_option(std::string_view text);

}  // namespace hcp
