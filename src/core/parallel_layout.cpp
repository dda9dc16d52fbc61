// Layout: the one parallel-layout type (see include/hcp/parallel_layout.h).
#include "hcp/parallel_layout.h"

#include <string>

namespace hcp {

std::vector<int64_t> Layout::hcp_sizes() const {
  if (!uses(CpCommType::kA2aP2p)) return {};
  return {hcp_a2a(), hcp_p2p()};
}

bool Layout::uses(CpCommType type) const {
  return comm == type || (windowed_comm && *windowed_comm == type);
}

std::vector<CpCommType> Layout::cp_exchanges() const {
  if (cp <= 1) return {};
  if (windowed_comm && *windowed_comm != comm) return {comm, *windowed_comm};
  return {comm};
}

std::string Layout::label() const {
  std::string s = "TP" + std::to_string(tp) + " CP" + std::to_string(cp);
  if (pp > 1) s += " PP" + std::to_string(pp);
  if (pp > 1 && virtual_stages() > 1) s += " VP" + std::to_string(virtual_stages());
  if (ep > 1) s += " EP" + std::to_string(ep);
  // Without CP no attention data moves: a comm type there is only Megatron's default value, and
  // "TP1 CP1 p2p" read as a ring that does not exist (the tables print '-' in its column).
  if (cp > 1) {
    s += std::string(" ") + cp_comm_type_name(comm);
    if (comm == CpCommType::kA2aP2p) {
      s += " [" + std::to_string(hcp_a2a()) + "," + std::to_string(hcp_p2p()) + "]";
    }
    if (windowed_comm) s += std::string(" (windowed: ") + cp_comm_type_name(*windowed_comm) + ")";
  }
  s += " DP" + std::to_string(dp);
  return s;
}

std::optional<int64_t> data_parallel_size(const Layout& layout, int64_t world) {
  int64_t model = layout.tp * layout.cp * layout.pp;
  if (model < 1 || world % model != 0) return std::nullopt;
  return world / model;
}

}  // namespace hcp
