// JSON reports of `plan` and `compare` (ARCHITECTURE.md §4: options[] best first).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "hcp/breakdown_json.h"
#include "hcp/json_io.h"
#include "hcp/plan_report.h"

namespace hcp {

namespace {

using nlohmann::json;

/// Where the layout's groups sit; a group the layout does not have (CP1, no HCP levels) is null.
json placement_json(const LinkPlacement& p, const Layout& l) {
  const bool cp = l.cp > 1;
  const bool hcp = cp && !l.hcp_sizes().empty();
  return json{{"tp_inside_nvlink_domain", p.tp_inside_domain},
              {"cp_inside_nvlink_domain", json_if(cp, p.cp_inside_domain)},
              {"cp_offdomain_fraction", json_if(cp, p.cp_offdomain_fraction)},
              {"hcp_a2a_inside_nvlink_domain", json_if(hcp, p.hcp_a2a_inside_domain)},
              {"hcp_ring_inside_nvlink_domain", json_if(hcp, p.hcp_ring_inside_domain)},
              {"dp_cp_inside_nvlink_domain", p.dp_inside_domain}};
}

json diagnostics_json(const std::vector<Diagnostic>& diagnostics) {
  json out = json::array();
  for (const Diagnostic& d : diagnostics) {
    out.push_back(json{{"id", d.id()},
                       {"severity", severity_name(d.severity())},
                       {"message", d.message},
                       {"key", d.key},
                       {"fix", d.fix()}});
  }
  return out;
}

json layout_json(const Layout& l) {
  json o{{"label", l.label()}, {"tp", l.tp}, {"cp", l.cp},
         {"pp", l.pp},         {"dp", l.dp}, {"cp_comm_type", cp_comm_type_name(l.comm)}};
  o["vpp"] = l.virtual_stages();
  o["ep"] = std::max<int64_t>(l.ep, 1);
  if (l.ep > 1) o["etp"] = l.expert_tp();
  auto hcp = l.hcp_sizes();
  o["hierarchical_context_parallel_sizes"] = hcp.empty() ? json(nullptr) : json(hcp);
  if (l.windowed_comm) o["cp_comm_type_windowed_layers"] = cp_comm_type_name(*l.windowed_comm);
  return o;
}

json option_json(const PlanOption& option) {
  const Estimate& e = option.estimate;
  json o = layout_json(option.layout);
  o["step_time_s"] = e.time.step_s;
  o["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  // The error band of the prediction (its regime's corpus residuals; see `hcp-plan accuracy`).
  o["tokens_per_s_per_gpu_low"] = option.band.tokens_per_s_per_gpu_low;
  o["tokens_per_s_per_gpu_high"] = option.band.tokens_per_s_per_gpu_high;
  o["step_time_s_low"] = option.band.step_s_low;
  o["step_time_s_high"] = option.band.step_s_high;
  o["band_regime"] = option.band.regime;
  // cp_comm_type names of this option that no run behind its band used.
  o["cp_comm_types_without_runs"] = option.band.cp_comm_types_without_runs;
  o["tie_with_best"] = option.tie_with_best;
  o["recipe_layout"] = option.recipe_layout;
  o["memory_gib_per_gpu"] = e.memory_gib();
  o["memory_limit_gib"] = e.memory_limit_gib;
  o["headroom_gib"] = e.memory_limit_gib - e.memory_gib();
  o["fits_memory"] = e.fits_memory;
  o["recommended"] = option.recommended;
  o["micro_batches"] = e.micro_batches;
  o["global_batch"] = e.global_batch;
  o["reasons"] = option.reasons;
  o["notes"] = option.notes;
  o["breakdown"] =
      json{{"time", time_breakdown_json(e.time)}, {"memory_gib", memory_breakdown_json(e.memory)}};
  o["placement"] = placement_json(e.placement, option.layout);
  o["diagnostics"] = diagnostics_json(option.diagnostics);
  return o;
}

json hardware_json(const Hardware& hw) {
  json out{{"gpu_name", hw.gpu_name},
           {"gpus_per_node", hw.gpus_per_node},
           {"nvlink_domain", hw.nvlink_domain},
           {"generation", generation_name(hw.generation)},
           {"peak_tflops", hw.peak_tflops},
           // A rate the GPU lacks, or a network a one-node profile does not name: null, not 0.
           {"fp8_tflops", json_if(hw.fp8_tflops > 0, hw.fp8_tflops)},
           {"fp4_tflops", json_if(hw.fp4_tflops > 0, hw.fp4_tflops)},
           {"gemm_efficiency", hw.gemm_efficiency},
           {"attn_efficiency", hw.attn_efficiency},
           {"attn_half_tokens", hw.attn_half_tokens},
           {"nvlink_gbs", hw.nvlink_gbs},
           {"nvlink_a2a_gbs", hw.nvlink_a2a_gbs},
           {"ep_nvlink_a2a_gbs", hw.ep_nvlink_a2a_gbs},
           {"nic_gbs", json_if(hw.nic_gbs > 0, hw.nic_gbs)},
           {"nic_a2a_gbs", json_if(hw.nic_a2a_gbs > 0, hw.nic_a2a_gbs)},
           {"nvlink_latency_s", hw.nvlink_latency_s},
           {"nic_latency_s", hw.nic_latency_s},
           {"memory_gib", hw.memory_gib},
           {"reserved_gib", hw.reserved_gib}};
  // A figure printed as null has no source to name (a one-node profile's NIC rate, say).
  json sources = json::object();
  for (const auto& [key, source] : hw.sources) {
    auto printed = out.find(key);
    if (printed == out.end() || !printed->is_null()) sources[key] = source;
  }
  out["sources"] = std::move(sources);
  return out;
}

json model_json(const ModelDims& m) {
  return json{{"num_layers", m.num_layers},
              {"hidden_size", m.hidden},
              {"num_attention_heads", m.heads},
              {"num_query_groups", m.kv_heads},
              {"kv_channels", m.head_dim},
              {"ffn_hidden_size", m.ffn},
              {"vocab_size", m.vocab},
              {"seq_length", m.seq_length},
              {"micro_batch_size", m.micro_batch},
              {"window_size", m.window},
              {"windowed_layers", m.windowed_layers()}};
}

json context_json(const PlanReportContext& c) {
  json o{{"recipe", c.recipe},
         {"cluster", c.cluster},
         {"nodes", c.nodes},
         {"gpus_per_node", c.gpus_per_node}};
  o["calibration"] = c.calibration.empty() ? json(nullptr) : json(c.calibration);
  if (!c.confirm.empty()) o["confirm"] = c.confirm;
  return o;
}

}  // namespace

std::string format_plan_json(const PlanResult& plan, const PlanReportContext& c) {
  json out = context_json(c);
  size_t shown = c.top == 0 ? plan.options.size() : std::min(c.top, plan.options.size());
  json options = json::array();
  for (size_t i = 0; i < shown; ++i)
    options.push_back(option_json(plan.options[i]));
  out["options"] = std::move(options);
  // The recipe's own layout and its rank (1-based), also when it is outside --top.
  if (plan.recipe_rank) {
    json own = option_json(plan.options[*plan.recipe_rank]);
    own["rank"] = *plan.recipe_rank + 1;
    out["recipe_layout"] = std::move(own);
  } else if (plan.recipe_rejected) {
    json own = layout_json(plan.recipe_rejected->layout);
    own["rejected_by"] = plan.recipe_rejected->rule_id;
    own["message"] = plan.recipe_rejected->message;
    out["recipe_layout"] = std::move(own);
  } else {
    out["recipe_layout"] = nullptr;
  }
  out["summary"] = plan.summary;
  out["world_size"] = plan.world_size;
  out["recompute"] = recompute_name(plan.setup.recompute);
  out["candidates"] = plan.candidates;
  out["accepted_count"] = plan.options.size();
  out["rejected_count"] = plan.rejected_count;
  out["pruned_count"] = plan.pruned_count;
  json reasons = json::array();
  for (const RejectionReason& r : plan.rejection_reasons)
    reasons.push_back({{"rule", r.rule_id}, {"count", r.count}, {"example", r.example}});
  out["rejection_reasons"] = std::move(reasons);
  if (c.show_rejected) {
    json rejected = json::array();
    for (const RejectedOption& r : plan.rejected) {
      json o = layout_json(r.layout);
      o["rule"] = r.rule_id;
      o["message"] = r.message;
      rejected.push_back(std::move(o));
    }
    out["rejected"] = std::move(rejected);
  }
  out["model"] = model_json(plan.model);
  out["hardware"] = hardware_json(plan.hardware);
  return json_dump(out, 2) + "\n";
}

std::string format_compare_json(const std::vector<CompareEntry>& entries, const Hardware& hw,
                                const PlanReportContext& c) {
  json out = context_json(c);
  json options = json::array();
  for (const CompareEntry& e : entries) {
    json o = e.priced ? option_json(e.option) : layout_json(e.option.layout);
    if (!e.priced) {
      o["diagnostics"] = diagnostics_json(e.option.diagnostics);
      o["recommended"] = false;
    }
    o["valid"] = e.valid;
    o["priced"] = e.priced;
    if (!e.priced) o["model_error"] = e.model_error;
    options.push_back(std::move(o));
  }
  out["options"] = std::move(options);
  out["hardware"] = hardware_json(hw);
  return json_dump(out, 2) + "\n";
}

}  // namespace hcp
