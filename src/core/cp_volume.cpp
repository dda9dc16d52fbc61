// Per-layer, per-GPU context-parallel communication volumes (see include/hcp/cp_volume.h).
#include "hcp/cp_volume.h"

#include <string>

namespace hcp {

const char* cp_comm_type_name(CpCommType type) {
  switch (type) {
    case CpCommType::kP2p:
      return "p2p";
    case CpCommType::kAllGather:
      return "all_gather";
    case CpCommType::kA2a:
      return "a2a";
    case CpCommType::kA2aP2p:
      return "a2a+p2p";
  }
  return "p2p";
}

Result<CpCommType> parse_cp_comm_type(std::string_view text) {
  if (text == "p2p") return CpCommType::kP2p;
  if (text == "all_gather" || text == "allgather") return CpCommType::kAllGather;
  if (text == "a2a") return CpCommType::kA2a;
  if (text == "a2a+p2p" || text == "a2a_p2p") return CpCommType::kA2aP2p;
  return Error{
      "unknown cp_comm_type '" + std::string(text) + "' (expected p2p, all_gather, a2a or a2a+p2p)",
      {},
      "cp_comm_type"};
}

namespace {

Error volume_error(const std::string& message) {
  return Error{message, {}, "cp_comm_type"};
}

Status check_shape(const CpVolumeInput& in) {
  if (in.batch <= 0 || in.seq_length <= 0 || in.heads <= 0 || in.kv_heads <= 0 ||
      in.head_dim <= 0 || in.tp <= 0 || in.cp <= 0 || in.bytes_per_element <= 0) {
    return volume_error(
        "batch, seq_length, heads, kv_heads, head_dim, tp, cp and bytes per "
        "element must all be positive");
  }
  if (in.heads % in.kv_heads != 0) {
    return volume_error("heads (" + std::to_string(in.heads) +
                        ") must be a multiple of kv_heads (" + std::to_string(in.kv_heads) + ")");
  }
  if (in.heads % in.tp != 0 || in.kv_heads % in.tp != 0) {
    return volume_error("heads (" + std::to_string(in.heads) + ") and kv_heads (" +
                        std::to_string(in.kv_heads) + ") must be divisible by tp (" +
                        std::to_string(in.tp) + ")");
  }
  if (in.cp > 1 && in.seq_length % (2 * in.cp) != 0) {
    return volume_error("seq_length (" + std::to_string(in.seq_length) +
                        ") must be divisible by 2*cp (" + std::to_string(2 * in.cp) + ")");
  }
  return Ok{};
}

/// Return an error unless the local heads split evenly over an all-to-all of `group` ranks.
Status check_head_scatter(const CpVolumeInput& in, int64_t group) {
  int64_t q_local_heads = in.heads / in.tp;
  int64_t kv_local_heads = in.kv_heads / in.tp;
  if (q_local_heads % group != 0 || kv_local_heads % group != 0) {
    return volume_error("a2a over " + std::to_string(group) + " ranks needs heads/tp (" +
                        std::to_string(q_local_heads) + ") and kv_heads/tp (" +
                        std::to_string(kv_local_heads) + ") divisible by " + std::to_string(group));
  }
  return Ok{};
}

/// Fill the all-to-all part: each rank keeps 1/group of Q,K,V,O and sends the rest.
void add_a2a(CpVolume& v, int64_t k_local_bytes, int64_t group) {
  v.a2a_group_size = group;
  int64_t per_peer = 2 * (v.q_local_bytes / group) + 2 * (k_local_bytes / group);
  v.a2a_forward_bytes = (group - 1) * per_peer;
  v.a2a_backward_bytes = v.a2a_forward_bytes;
}

/// Fill the ring / all-gather part: group-1 transfers of the local KV forward, KV+dKV backward.
void add_ring(CpVolume& v, int64_t group, bool overlapped) {
  v.ring_group_size = group;
  v.ring_steps = group - 1;
  v.ring_step_bytes = group > 1 ? v.kv_local_bytes : 0;
  v.ring_forward_bytes = (group - 1) * v.kv_local_bytes;
  v.ring_backward_bytes = 2 * v.ring_forward_bytes;
  v.ring_overlaps_compute = overlapped && group > 1;
}

}  // namespace

Result<CpVolume> cp_volume(const CpVolumeInput& in) {
  if (auto st = check_shape(in); !st) return st.error();
  CpVolume v;
  int64_t tokens = in.batch * (in.seq_length / in.cp);
  v.q_local_bytes = tokens * (in.heads / in.tp) * in.head_dim * in.bytes_per_element;
  int64_t k_local_bytes = tokens * (in.kv_heads / in.tp) * in.head_dim * in.bytes_per_element;
  v.kv_local_bytes = 2 * k_local_bytes;
  switch (in.comm_type) {
    case CpCommType::kP2p:
      add_ring(v, in.cp, /*overlapped=*/true);
      break;
    case CpCommType::kAllGather:
      add_ring(v, in.cp, /*overlapped=*/false);
      break;
    case CpCommType::kA2a:
      if (auto st = check_head_scatter(in, in.cp); !st) return st.error();
      add_a2a(v, k_local_bytes, in.cp);
      break;
    case CpCommType::kA2aP2p:
      if (in.hcp_a2a <= 0 || in.hcp_p2p <= 0 || in.hcp_a2a * in.hcp_p2p != in.cp) {
        return volume_error("a2a+p2p needs hierarchical sizes [a, p] with a*p == cp (" +
                            std::to_string(in.hcp_a2a) + "*" + std::to_string(in.hcp_p2p) +
                            " != " + std::to_string(in.cp) + ")");
      }
      if (auto st = check_head_scatter(in, in.hcp_a2a); !st) return st.error();
      add_a2a(v, k_local_bytes, in.hcp_a2a);
      add_ring(v, in.hcp_p2p, /*overlapped=*/true);
      break;
  }
  return v;
}

}  // namespace hcp
