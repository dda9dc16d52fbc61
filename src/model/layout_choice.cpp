// LayoutChoice, comm-type and recompute names.
#include <string>

#include "hcp/model.h"

namespace hcp {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

std::optional<Recompute> parse_recompute(std::string_view text) {
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (text == recompute_name(r)) return r;
  }
  return std::nullopt;
}

std::vector<int64_t> LayoutChoice::hcp_sizes() const {
  if (!uses(CommType::kA2aP2p)) return {};
  return {hcp_a2a, hcp_p2p};
}

bool LayoutChoice::uses(CommType type) const {
  return comm == type || (windowed_comm && *windowed_comm == type);
}

std::string LayoutChoice::label() const {
  std::string s = "TP" + std::to_string(tp) + " CP" + std::to_string(cp);
  if (pp > 1) s += " PP" + std::to_string(pp);
  s += std::string(" ") + cp_comm_type_name(comm);
  if (comm == CommType::kA2aP2p) {
    s += " [" + std::to_string(hcp_a2a) + "," + std::to_string(hcp_p2p) + "]";
  }
  if (windowed_comm) s += std::string(" (windowed: ") + cp_comm_type_name(*windowed_comm) + ")";
  s += " DP" + std::to_string(dp);
  return s;
}

}  // namespace hcp
