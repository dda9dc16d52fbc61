// Notes and reasons: what decides each option's rank, in words with numbers. The planner
// computes these; the reports only print them.
#include <cmath>
#include <cstdio>
#include <string>

#include "hcp/planner.h"
#include "hcp/text_util.h"

namespace hcp {

namespace {

/// "1.24 ms", "0.35 s".
std::string duration(double seconds) {
  if (seconds < 1.0) return format_fixed(seconds * 1e3, seconds < 0.01 ? 2 : 1) + " ms";
  return format_fixed(seconds, 2) + " s";
}

std::string percent(double fraction) {
  return format_fixed(fraction * 100, fraction < 0.1 ? 1 : 0) + "%";
}

const char* link_name(bool inside) {
  return inside ? "NVLink" : "IB";
}

bool has_ring(const LayoutChoice& l) {
  return l.cp > 1 && (l.comm == CommType::kP2p || l.comm == CommType::kA2aP2p);
}

bool ring_inside(const PlanOption& o) {
  return o.layout.comm == CommType::kA2aP2p ? o.estimate.placement.hcp_ring_inside_domain
                                            : o.estimate.placement.cp_inside_domain;
}

bool a2a_inside(const PlanOption& o) {
  if (o.layout.comm == CommType::kA2aP2p) return o.estimate.placement.hcp_a2a_inside_domain;
  return o.estimate.placement.cp_inside_domain;
}

void ring_reason(PlanOption& o) {
  const TimeBreakdown& t = o.estimate.time;
  std::string link = link_name(ring_inside(o));
  std::string per_step = duration(t.ring_step_compute_s) + " of compute vs " +
                         duration(t.ring_step_transfer_s) + " of transfer per step";
  std::string steps = std::to_string(t.ring_steps) +
                      (t.ring_steps == 1 ? " ring step" : " ring steps") + " per layer";
  if (t.cp_ring_exposed_s <= 0.005 * t.step_s) {
    o.notes.push_back(link + " ring hidden");
    o.reasons.push_back("the ring hides the " + link + " transfer behind attention: " + per_step +
                        " (" + steps + ")");
  } else {
    o.notes.push_back(link + " ring exposed " + percent(t.cp_ring_exposed_s / t.step_s));
    o.reasons.push_back("the ring cannot hide the " + link + " transfer behind attention: " +
                        per_step + "; " + duration(t.cp_ring_exposed_s) + " exposed per step (" +
                        percent(t.cp_ring_exposed_s / t.step_s) + " of it)");
  }
}

void a2a_reason(PlanOption& o) {
  const TimeBreakdown& t = o.estimate.time;
  const LinkPlacement& p = o.estimate.placement;
  bool inside = a2a_inside(o);
  bool all_inside = inside && p.tp_inside_domain && (!has_ring(o.layout) || ring_inside(o));
  std::string share = percent(t.cp_a2a_s / t.step_s);
  if (all_inside) {
    o.notes.push_back("a2a on NVLink");
    o.reasons.push_back("a2a keeps every per-layer collective inside one NVLink domain; its " +
                        duration(t.cp_a2a_s) + " per step are exposed (" + share + ")");
  } else if (inside) {
    o.notes.push_back("a2a on NVLink");
    o.reasons.push_back("the a2a level stays on NVLink: " + duration(t.cp_a2a_s) +
                        " exposed per step (" + share + ")");
  } else {
    double off =
        o.layout.comm == CommType::kA2aP2p ? p.hcp_a2a_offdomain_fraction : p.cp_offdomain_fraction;
    o.notes.push_back("a2a crosses nodes");
    o.reasons.push_back("the a2a leaves the NVLink domain (" + percent(off) +
                        " of its peers over IB): " + duration(t.cp_a2a_s) + " exposed per step (" +
                        share + ")");
  }
}

void comm_reasons(PlanOption& o) {
  const LayoutChoice& l = o.layout;
  const TimeBreakdown& t = o.estimate.time;
  if (l.cp == 1) {
    o.notes.push_back("no CP");
  } else {
    if (l.uses(CommType::kA2a) || l.uses(CommType::kA2aP2p)) a2a_reason(o);
    if (has_ring(l)) ring_reason(o);
    if (l.uses(CommType::kAllGather)) {
      o.notes.push_back("KV all-gather exposed");
      o.reasons.push_back(
          "all_gather cannot overlap the KV gather with attention: " + duration(t.cp_allgather_s) +
          " exposed per step (" + percent(t.cp_allgather_s / t.step_s) + ")");
    }
  }
  if (l.tp > 1) {
    o.reasons.push_back("TP" + std::to_string(l.tp) + " with sequence parallelism on " +
                        link_name(o.estimate.placement.tp_inside_domain) + ": " +
                        duration(t.tp_comm_s) + " of all-gather/reduce-scatter exposed per step");
  }
  if (t.dp_comm_s > 0.01 * t.step_s) {
    o.reasons.push_back("the DP x CP gradient sync leaves " + duration(t.dp_comm_s) +
                        " exposed per step");
  }
  if (t.pp_bubble_s > 0) {
    o.reasons.push_back("the pipeline bubble costs " + duration(t.pp_bubble_s) + " per step");
  }
}

void memory_reason(PlanOption& o) {
  const Estimate& e = o.estimate;
  const MemoryBreakdown& m = e.memory;
  double headroom = e.memory_limit_gib - e.memory_gib();
  std::string parts = "weights " + format_gib(m.weights) + ", grads " + format_gib(m.gradients) +
                      ", optimizer " + format_gib(m.optimizer) + ", activations " +
                      format_gib(m.activations) + ", logits " + format_gib(m.logits) +
                      ", CP buffers " + format_gib(m.cp_buffers) + ", reserved " +
                      format_gib(m.reserved);
  if (e.fits_memory) {
    o.reasons.push_back("needs " + format_fixed(e.memory_gib(), 1) + " of " +
                        format_fixed(e.memory_limit_gib, 0) + " GiB per GPU (" +
                        format_fixed(headroom, 1) + " GiB headroom): " + parts);
  } else {
    o.notes.push_back("OOM by " + format_fixed(-headroom, 1) + " GiB");
    o.reasons.push_back("does not fit: needs " + format_fixed(e.memory_gib(), 1) + " of " +
                        format_fixed(e.memory_limit_gib, 0) + " GiB per GPU: " + parts);
  }
}

void rule_notes(PlanOption& o) {
  for (const Diagnostic& d : o.diagnostics) {
    if (d.severity == Severity::kWarning && !d.id.empty()) o.notes.push_back("warn " + d.id);
  }
}

}  // namespace

void explain_options(std::vector<PlanOption>& options, std::vector<std::string>* summary,
                     bool recommend) {
  PlanOption* best = nullptr;
  for (PlanOption& o : options) {
    o.notes.clear();
    o.reasons.clear();
    o.recommended = false;
    if (best == nullptr && o.estimate.fits_memory) best = &o;
  }
  if (recommend && best != nullptr) best->recommended = true;
  for (PlanOption& o : options) {
    comm_reasons(o);
    memory_reason(o);
    rule_notes(o);
    if (best != nullptr && &o != best) {
      double slower = o.estimate.time.step_s / best->estimate.time.step_s - 1;
      std::string versus =
          slower >= 0 ? percent(slower) + " slower than " : percent(-slower) + " faster than ";
      o.reasons.push_back(versus + best->layout.label() + " (" +
                          format_fixed(o.estimate.tokens_per_s_per_gpu, 0) + " vs " +
                          format_fixed(best->estimate.tokens_per_s_per_gpu, 0) + " tokens/s/GPU)");
    }
  }
  if (summary == nullptr) return;
  summary->clear();
  if (options.empty()) {
    summary->push_back("no layout passes the rules on this cluster");
    return;
  }
  if (best == nullptr) {
    const PlanOption* smallest = &options.front();
    for (const PlanOption& o : options) {
      if (o.estimate.memory.total < smallest->estimate.memory.total) smallest = &o;
    }
    summary->push_back(
        "no layout fits in " + format_fixed(options.front().estimate.memory_limit_gib, 0) +
        " GiB per GPU; the smallest, " + smallest->layout.label() + ", needs " +
        format_fixed(smallest->estimate.memory_gib(), 1) +
        " GiB (try --recompute full, a longer pipeline with --max-pp, or more GPUs)");
    return;
  }
  std::string line = "recommended: " + best->layout.label() + ", the fastest layout that fits: " +
                     format_fixed(best->estimate.tokens_per_s_per_gpu, 0) + " tokens/s/GPU, " +
                     duration(best->estimate.time.step_s) + " per step";
  for (const PlanOption& o : options) {
    if (&o == best || !o.estimate.fits_memory) continue;
    double ahead = o.estimate.time.step_s / best->estimate.time.step_s - 1;
    line += "; " + percent(ahead) + " ahead of " + o.layout.label();
    break;
  }
  summary->push_back(line);
  for (const std::string& reason : best->reasons)
    summary->push_back(reason);
}

}  // namespace hcp
