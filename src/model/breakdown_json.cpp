// The JSON form of an estimate's breakdown (include/hcp/breakdown_json.h).
#include "hcp/breakdown_json.h"

namespace hcp {

using nlohmann::json;

json time_breakdown_json(const TimeBreakdown& t) {
  return json{{"gemm_s", t.gemm_s},
              {"attention_s", t.attention_s},
              {"recompute_s", t.recompute_s},
              {"tp_comm_s", t.tp_comm_s},
              {"cp_a2a_s", t.cp_a2a_s},
              {"cp_allgather_s", t.cp_allgather_s},
              {"cp_ring_exposed_s", t.cp_ring_exposed_s},
              {"cp_ring_hidden_s", t.cp_ring_hidden_s},
              {"dp_comm_s", t.dp_comm_s},
              {"pp_bubble_s", t.pp_bubble_s},
              {"pp_comm_s", t.pp_comm_s},
              {"elementwise_s", t.elementwise_s},
              {"moe_permute_s", t.moe_permute_s},
              {"ep_a2a_s", t.ep_a2a_s},
              {"overhead_s", t.overhead_s},
              {"straggler_s", t.straggler_s},
              {"step_s", t.step_s},
              {"ring_steps", t.ring_steps},
              {"ring_step_compute_s", t.ring_step_compute_s},
              {"ring_step_transfer_s", t.ring_step_transfer_s}};
}

json memory_breakdown_json(const MemoryBreakdown& m) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return json{{"weights", m.weights / kGiB},       {"gradients", m.gradients / kGiB},
              {"optimizer", m.optimizer / kGiB},   {"activations", m.activations / kGiB},
              {"cp_buffers", m.cp_buffers / kGiB}, {"logits", m.logits / kGiB},
              {"reserved", m.reserved / kGiB},     {"total", m.total / kGiB}};
}

}  // namespace hcp
