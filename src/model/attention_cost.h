// Per-layer attention cost of one comm type (internal to the model module).
#pragma once

#include "hcp/model.h"

namespace hcp::model_detail {

/// Seconds of one layer's attention for one micro-batch on one GPU, and its CP transient memory.
struct AttentionCost {
  double compute_fwd = 0;  ///< Attention kernels, forward.
  double compute_bwd = 0;  ///< Attention kernels, backward (2.5x the forward FLOPs).
  double a2a_fwd = 0;      ///< Exposed a2a, forward.
  double a2a_bwd = 0;
  double allgather_fwd = 0;  ///< Exposed all-gather (and reduce-scatter in backward).
  double allgather_bwd = 0;
  double ring_exposed_fwd = 0;  ///< Ring transfer not hidden behind the step's attention.
  double ring_exposed_bwd = 0;
  double ring_hidden = 0;    ///< Ring transfer hidden behind attention, fwd + bwd.
  double step_compute = 0;   ///< One forward ring step: attention seconds.
  double step_transfer = 0;  ///< One forward ring step: KV transfer seconds.
  int64_t ring_steps = 0;
  double buffer_bytes = 0;  ///< Transient CP buffers while this layer runs.

  /// Return the exposed communication of the forward pass.
  double exposed_fwd() const { return a2a_fwd + allgather_fwd + ring_exposed_fwd; }
  /// Return the exposed communication of the backward pass.
  double exposed_bwd() const { return a2a_bwd + allgather_bwd + ring_exposed_bwd; }
};

/// Cost of one layer that uses `type` (windowed: a sliding-window layer; fp8: FP8 attention).
Result<AttentionCost> attention_cost(const ModelDims& model, const Layout& layout,
                                     const Hardware& hw, const LinkPlacement& placement,
                                     CommType type, bool windowed, bool fp8 = false);

}  // namespace hcp::model_detail
