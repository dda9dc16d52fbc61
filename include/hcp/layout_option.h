// A layout option as written on the command line: "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2".
// Shared by `bench --option` and the planner's `compare --option`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/cp_volume.h"
#include "hcp/diagnostic.h"
#include "hcp/parallel_layout.h"

namespace hcp {

/// Return the canonical text form of a parsed --option, the given keys in a fixed order:
/// "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2".
std::string layout_option_text(const PartialLayout& option);

/// Parse "key=value,key=value". Keys: tp, cp, pp, ep, etp, dp, vp (positive integers), cp_comm_type
/// (p2p|all_gather|a2a|a2a+p2p), hcp as "AxP", "A,P" inside brackets "[A,P]" or "[A, P]".
/// Errors (as values, key set to the offending key): empty text, missing '=', unknown key (with a
/// did-you-mean), duplicate key, non-numeric or non-positive size, bad hcp list, prod(hcp) != cp.
/// The result is a layout with the given keys marked (keys not given keep Layout's defaults, for
/// callers to fill from the recipe, e.g. pp and dp).
Result<PartialLayout> parse_layout_option(std::string_view text);

}  // namespace hcp
