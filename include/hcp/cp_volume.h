// Context-parallel communication volumes per transformer layer and per GPU, for each
// cp_comm_type of Transformer Engine. The one place these formulas live: the CPU simulator
// checks its counted bytes against them and the planner's cost model prices them.
//
// Source of the formulas: TE `context_parallel.py` (AttnFuncWithCPAndKVP2P,
// AttnFuncWithCPAndKVAllGather, AttnFuncWithCPAndQKVOA2A), summarised in
// shared/reference/planner_anchors.md §1.2. All volumes are bytes SENT by one GPU (NCCL
// "algorithm bytes"); the received volume is equal by symmetry.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hcp/diagnostic.h"

namespace hcp {

/// Transformer Engine's context-parallel communication types.
enum class CpCommType {
  kP2p,        ///< "p2p": KV ring (AttnFuncWithCPAndKVP2P), overlapped with attention.
  kAllGather,  ///< "all_gather": all-gather K,V before attention, not overlapped.
  kA2a,        ///< "a2a": Ulysses all-to-all of Q,K,V (and O back), head scatter.
  kA2aP2p,     ///< "a2a+p2p": hierarchical; a2a inside groups of size a, KV ring of size p.
};

/// Return the TE spelling: "p2p", "all_gather", "a2a" or "a2a+p2p".
const char* cp_comm_type_name(CpCommType type);

/// Parse a TE spelling (also accepts "allgather" and "a2a_p2p"). Error names the valid ones.
Result<CpCommType> parse_cp_comm_type(std::string_view text);

/// The shape of one layer's attention and the layout it runs under.
struct CpVolumeInput {
  int64_t batch = 1;       ///< b: micro-batch size (sequences).
  int64_t seq_length = 0;  ///< s: global sequence length of one sample (tokens).
  int64_t heads = 0;       ///< n_q: query heads of the model.
  int64_t kv_heads = 0;    ///< n_kv: key/value heads (query groups); = heads for MHA.
  int64_t head_dim = 0;    ///< d.
  int64_t tp = 1;          ///< t: tensor-parallel size (heads are split over it).
  int64_t cp = 1;          ///< c: context-parallel size.
  CpCommType comm_type = CpCommType::kP2p;
  int64_t hcp_a2a = 1;            ///< a: inner (a2a) size of a2a+p2p; ignored otherwise.
  int64_t hcp_p2p = 1;            ///< p: outer (ring) size of a2a+p2p; a*p must equal cp.
  int64_t bytes_per_element = 2;  ///< B: 2 for bf16/fp16, 1 for fp8, 4 for fp32.
};

/// Bytes one GPU sends per layer, split by the collective that moves them.
struct CpVolume {
  int64_t q_local_bytes = 0;   ///< Q_loc = b*(s/c)*(n_q/t)*d*B (= size of local O, dO, dQ).
  int64_t kv_local_bytes = 0;  ///< KV_loc = 2*b*(s/c)*(n_kv/t)*d*B (local K plus V).

  int64_t a2a_group_size = 1;          ///< Ranks in the all-to-all (c for a2a, a for a2a+p2p).
  int64_t ring_group_size = 1;         ///< Ranks in the ring / all-gather (c, or p for a2a+p2p).
  int64_t ring_steps = 0;              ///< Forward KV transfers: ring_group_size - 1.
  int64_t ring_step_bytes = 0;         ///< Bytes of one forward ring step (= KV_loc).
  int64_t a2a_forward_bytes = 0;       ///< a2a of Q,K,V before and of O after attention (forward).
  int64_t a2a_backward_bytes = 0;      ///< a2a of dO before and of dQ,dK,dV after (backward).
  int64_t ring_forward_bytes = 0;      ///< p2p ring or all-gather bytes in the forward pass.
  int64_t ring_backward_bytes = 0;     ///< Backward: KV and dKV circulate (2x the forward).
  bool ring_overlaps_compute = false;  ///< True for p2p / a2a+p2p (TE double-buffers the ring).

  /// Return forward bytes (a2a + ring).
  int64_t forward_bytes() const { return a2a_forward_bytes + ring_forward_bytes; }
  /// Return backward bytes (a2a + ring).
  int64_t backward_bytes() const { return a2a_backward_bytes + ring_backward_bytes; }
  /// Return forward plus backward bytes.
  int64_t total_bytes() const { return forward_bytes() + backward_bytes(); }
};

/// Return the per-GPU bytes of one layer. Errors (as values) when a size is not positive, s is not
/// divisible by 2*c, heads are not divisible by tp, kv_heads does not divide heads, a*p != c for
/// a2a+p2p, or the head split of an a2a is not exact ((n_q/t) % a2a size, (n_kv/t) % a2a size).
Result<CpVolume> cp_volume(const CpVolumeInput& input);

}  // namespace hcp
