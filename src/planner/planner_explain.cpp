// Notes and reasons: what decides each option's rank, in words with numbers. The planner
// computes these; the reports only print them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

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

bool has_ring(const Layout& l) {
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
                         duration(t.ring_step_transfer_s) + " of transfer per ring step";
  std::string steps = std::to_string(t.ring_steps) +
                      (t.ring_steps == 1 ? " ring step" : " ring steps") + " per layer";
  if (t.cp_ring_exposed_s <= 0.005 * t.step_s) {
    o.notes.push_back(link + " ring hidden");
    o.reasons.push_back("the ring hides the " + link + " transfer behind attention: " + per_step +
                        " (" + steps + ")");
  } else {
    o.notes.push_back(link + " ring exposed " + percent(t.cp_ring_exposed_s / t.step_s));
    std::string exposed = duration(t.cp_ring_exposed_s) + " exposed per training step (" +
                          percent(t.cp_ring_exposed_s / t.step_s) + " of it)";
    if (t.ring_step_compute_s >= t.ring_step_transfer_s) {
      // Attention outlasts the transfer, yet the fitted overlap (ring_overlap) hides only that
      // share of it: name the share, which the breakdown gives as hidden / (hidden + exposed).
      double hidden = t.cp_ring_hidden_s / (t.cp_ring_hidden_s + t.cp_ring_exposed_s);
      o.reasons.push_back("the ring hides only " + percent(hidden) + " of the " + link +
                          " transfer behind attention, the share fitted to published CP runs "
                          "(ring_overlap), though attention outlasts it: " +
                          per_step + "; " + exposed);
    } else {
      o.reasons.push_back("the ring cannot hide the " + link +
                          " transfer behind attention: " + per_step + "; " + exposed);
    }
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
  const Layout& l = o.layout;
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
  double headroom = e.memory_limit_gib - e.memory_gib();
  std::string parts = memory_terms_text(e.memory);
  if (e.fits_memory) {
    o.reasons.push_back("needs " + format_fixed(e.memory_gib(), 1) + " of " +
                        format_limit_gib(e.memory_limit_gib) + " GiB per GPU (" +
                        format_margin_gib(headroom) + " GiB headroom): " + parts);
  } else {
    o.notes.push_back("OOM by " + format_margin_gib(-headroom) + " GiB");
    o.reasons.push_back("does not fit: needs " + format_fixed(e.memory_gib(), 1) + " of " +
                        format_limit_gib(e.memory_limit_gib) + " GiB per GPU: " + parts);
  }
}

void rule_notes(PlanOption& o) {
  for (const Diagnostic& d : o.diagnostics) {
    if (d.severity() == Severity::kWarning && !d.id().empty()) o.notes.push_back("warn " + d.id());
  }
}

}  // namespace

std::string memory_terms_text(const MemoryBreakdown& m) {
  return "weights " + format_gib(m.weights) + ", grads " + format_gib(m.gradients) +
         ", optimizer " + format_gib(m.optimizer) + ", activations " + format_gib(m.activations) +
         ", logits " + format_gib(m.logits) + ", CP buffers " + format_gib(m.cp_buffers) +
         ", reserved " + format_gib(m.reserved);
}

std::string option_letter(size_t index) {
  std::string s;
  size_t n = index + 1;
  while (n > 0) {
    --n;
    s.insert(s.begin(), static_cast<char>('A' + n % 26));
    n /= 26;
  }
  return s;
}

namespace {

double headroom_gib(const PlanOption& o) {
  return o.estimate.memory_limit_gib - o.estimate.memory_gib();
}

/// 0: no CP; 1: one CP collective kind (a2a, p2p or all_gather); 2: a2a+p2p or mixed per layer.
int transport_complexity(const Layout& l) {
  if (l.cp <= 1) return 0;
  if (l.comm == CommType::kA2aP2p || (l.windowed_comm && *l.windowed_comm != l.comm)) return 2;
  return 1;
}

/// Collectives of one layer / step that leave the NVLink domain.
int cross_domain_collectives(const PlanOption& o) {
  const Layout& l = o.layout;
  const LinkPlacement& p = o.estimate.placement;
  int n = 0;
  if (l.tp > 1 && !p.tp_inside_domain) ++n;
  if (l.cp > 1) {
    if (l.comm == CommType::kA2aP2p) {
      n += !p.hcp_a2a_inside_domain;
      n += !p.hcp_ring_inside_domain;
    } else {
      n += !p.cp_inside_domain;
    }
  }
  if (l.pp > 1 && !p.pp_inside_domain) ++n;
  if (l.dp * l.cp > 1 && !p.dp_inside_domain) ++n;
  return n;
}

/// Memory headroom differences below this are not a reason to prefer an option.
constexpr double kHeadroomStepGiB = 1.0;

/// Why `a` is preferred over `b` among tied options ("" when it is not).
std::string preference(const PlanOption& a, const PlanOption& b) {
  double more = headroom_gib(a) - headroom_gib(b);
  if (std::abs(more) >= kHeadroomStepGiB) {
    return more > 0 ? format_fixed(more, 1) + " GiB more memory headroom" : std::string();
  }
  int ca = transport_complexity(a.layout);
  int cb = transport_complexity(b.layout);
  if (ca != cb) {
    return ca < cb ? std::string("the simpler transport (") +
                         (a.layout.cp > 1 ? cp_comm_type_name(a.layout.comm) : "no CP") +
                         " instead of " + cp_comm_type_name(b.layout.comm) + ")"
                   : std::string();
  }
  int xa = cross_domain_collectives(a);
  int xb = cross_domain_collectives(b);
  if (xa != xb) {
    return xa < xb ? "fewer collectives across NVLink domains (" + std::to_string(xa) + " vs " +
                         std::to_string(xb) + ")"
                   : std::string();
  }
  return std::string();
}

/// The difference band of two layouts of one job (log half-width): the wider of the two
/// options' regimes' (accuracy::RegimeBand::relative).
double difference_band(const PlanOption& a, const PlanOption& b) {
  return accuracy::difference_band(a.band, b.band);
}

/// True when the predicted throughputs of `a` and `b` differ by less than the difference band:
/// the model cannot tell which of the two layouts runs faster.
bool within_difference_band(const PlanOption& a, const PlanOption& b) {
  return accuracy::within_difference_band(a.estimate.tokens_per_s_per_gpu,
                                          b.estimate.tokens_per_s_per_gpu, difference_band(a, b));
}

/// ", 2.1% apart: inside the +-9.5% difference band (two layouts of one job)"; "" without a
/// band.
std::string difference_text(const PlanOption& a, const PlanOption& b) {
  double band = difference_band(a, b);
  if (band <= 0) return "";
  double gap = std::abs(a.estimate.tokens_per_s_per_gpu / b.estimate.tokens_per_s_per_gpu - 1);
  return ", " + percent(gap) + " apart: inside the +-" + percent(std::exp(band) - 1) +
         " difference band of two layouts of one job";
}

/// " (-21%..+14%: where 90% of published runs the fit did not see fell)"; "" without a band.
std::string absolute_band_text(const PlanOption& o) {
  std::string range = accuracy::band_range_text(o.band, o.estimate.tokens_per_s_per_gpu);
  if (range.empty()) return "";
  return " (" + range + ": where 90% of published runs the fit did not see fell)";
}

/// The letter of option i: the caller's, else the default A, B, ...
std::string letter_at(const std::vector<std::string>& letters, size_t i) {
  return i < letters.size() ? letters[i] : option_letter(i);
}

/// An option the recommendation may pick: it fits in memory and is eligible.
bool can_recommend(const std::vector<PlanOption>& options, const std::vector<bool>& eligible,
                   size_t i) {
  return options[i].estimate.fits_memory && (eligible.empty() || eligible[i]);
}

/// Clear every option's explanation; return the fastest option that may be recommended.
std::optional<size_t> reset_and_find_fastest(std::vector<PlanOption>& options,
                                             const std::vector<bool>& eligible) {
  std::optional<size_t> fastest;
  for (size_t i = 0; i < options.size(); ++i) {
    PlanOption& o = options[i];
    o.notes.clear();
    o.reasons.clear();
    o.recommended = false;
    o.tie_with_best = false;
    if (!can_recommend(options, eligible, i)) continue;
    if (!fastest || o.estimate.time.step_s < options[*fastest].estimate.time.step_s) fastest = i;
  }
  return fastest;
}

/// Ties: options within the difference band of the fastest (marked tie_with_best). The choice among
/// them does not depend on their order: the most headroom; within 1 GiB of it, the simplest
/// transport, then the fewest collectives across NVLink domains, then the fastest.
std::optional<size_t> choose_among_ties(std::vector<PlanOption>& options,
                                        const std::vector<bool>& eligible,
                                        std::optional<size_t> fastest) {
  if (!fastest) return std::nullopt;
  std::vector<size_t> ties;
  double most_headroom = headroom_gib(options[*fastest]);
  for (size_t i = 0; i < options.size(); ++i) {
    if (!can_recommend(options, eligible, i)) continue;
    options[i].tie_with_best = within_difference_band(options[i], options[*fastest]);
    if (!options[i].tie_with_best) continue;
    ties.push_back(i);
    most_headroom = std::max(most_headroom, headroom_gib(options[i]));
  }
  auto key = [&](size_t i) {
    return std::make_tuple(transport_complexity(options[i].layout),
                           cross_domain_collectives(options[i]), options[i].estimate.time.step_s);
  };
  std::optional<size_t> chosen;
  for (size_t i : ties) {
    if (headroom_gib(options[i]) < most_headroom - kHeadroomStepGiB) continue;
    if (!chosen || key(i) < key(*chosen)) chosen = i;
  }
  return chosen;
}

/// The tied option closest to the recommendation (the fastest other one), to explain the choice.
std::optional<size_t> closest_rival(const std::vector<PlanOption>& options,
                                    std::optional<size_t> chosen) {
  std::optional<size_t> rival;
  if (!chosen) return rival;
  for (size_t i = 0; i < options.size(); ++i) {
    if (i == *chosen || !options[i].tie_with_best) continue;
    if (!rival || options[i].estimate.time.step_s < options[*rival].estimate.time.step_s) {
      rival = i;
    }
  }
  return rival;
}

/// Each option's notes and reasons: transport, memory, rules, a tie with the fastest, and how it
/// compares with the recommendation.
void add_option_reasons(std::vector<PlanOption>& options, std::optional<size_t> fastest,
                        const PlanOption* best, const std::vector<std::string>& letters) {
  for (size_t i = 0; i < options.size(); ++i) {
    PlanOption& o = options[i];
    comm_reasons(o);
    memory_reason(o);
    rule_notes(o);
    if (fastest && i != *fastest && o.tie_with_best) {
      o.notes.push_back("tie with " + letter_at(letters, *fastest));
    }
    if (best != nullptr && &o != best) {
      double slower = o.estimate.time.step_s / best->estimate.time.step_s - 1;
      std::string versus =
          slower >= 0 ? percent(slower) + " slower than " : percent(-slower) + " faster than ";
      o.reasons.push_back(versus + best->layout.label() + " (" +
                          format_rate(o.estimate.tokens_per_s_per_gpu) + " vs " +
                          format_rate(best->estimate.tokens_per_s_per_gpu) + " tokens/s/GPU)" +
                          (o.tie_with_best ? ", within model error" : ""));
    }
  }
}

/// Why the recommendation beat its closest tied rival, put first among its reasons; "" when
/// there is no rival.
std::string explain_tie(std::vector<PlanOption>& options, PlanOption* best,
                        std::optional<size_t> rival, const std::vector<std::string>& letters) {
  if (best == nullptr || !rival) return "";
  const PlanOption& r = options[*rival];
  std::string why = preference(*best, r);
  if (why.empty()) why = "the higher predicted throughput";
  std::string tie_sentence = "within model error of " + letter_at(letters, *rival) + " (" +
                             r.layout.label() + ", " +
                             format_rate(r.estimate.tokens_per_s_per_gpu) + " vs " +
                             format_rate(best->estimate.tokens_per_s_per_gpu) + " tokens/s/GPU" +
                             difference_text(r, *best) + "); preferred for " + why;
  best->reasons.insert(best->reasons.begin(), tie_sentence);
  return tie_sentence;
}

/// The summary when no option fits: the smallest and what to try.
std::string nothing_fits_line(const std::vector<PlanOption>& options) {
  const PlanOption* smallest = &options.front();
  for (const PlanOption& o : options) {
    if (o.estimate.memory.total < smallest->estimate.memory.total) smallest = &o;
  }
  return "no layout fits in " + format_limit_gib(options.front().estimate.memory_limit_gib) +
         " GiB per GPU; the smallest, " + smallest->layout.label() + ", needs " +
         format_fixed(smallest->estimate.memory_gib(), 1) +
         " GiB (try --recompute full, a longer pipeline with --max-pp, or more GPUs)";
}

/// "B, C and D", or "B to H" for more than three (the plan lists them in that order).
std::string letter_list(const std::vector<std::string>& letters) {
  if (letters.size() > 3) return letters.front() + " to " + letters.back();
  std::string out;
  for (size_t i = 0; i < letters.size(); ++i)
    out += (i == 0 ? "" : i + 1 == letters.size() ? " and " : ", ") + letters[i];
  return out;
}

/// One sentence: why the recommendation leads although faster options fit (the tie rule); ""
/// when none is faster.
std::string why_not_faster(const std::vector<PlanOption>& options, const PlanOption& best,
                           size_t fastest, const std::vector<bool>& eligible,
                           const std::vector<std::string>& letters) {
  std::vector<std::string> faster;
  for (size_t i = 0; i < options.size(); ++i) {
    const PlanOption& o = options[i];
    if (&o == &best || !can_recommend(options, eligible, i)) continue;
    if (o.estimate.time.step_s < best.estimate.time.step_s) faster.push_back(letter_at(letters, i));
  }
  if (faster.empty()) return "";
  const PlanOption& top = options[fastest];
  const size_t best_index = static_cast<size_t>(&best - options.data());
  std::string why = preference(best, top);
  if (why.empty()) why = "the tie rule's order";
  const double gap = best.estimate.time.step_s / top.estimate.time.step_s - 1;
  const double band = difference_band(best, top);
  const bool one = faster.size() == 1;
  const std::string which = (one ? std::string("1 faster option (")
                                 : std::to_string(faster.size()) + " faster options (") +
                            letter_list(faster) +
                            (one ? ") fits and is up to " : ") fit and are up to ");
  return "why not a faster option: " + which + percent(gap) +
         " faster, which is within model error" +
         (band <= 0 ? ""
                    : " (inside the +-" + percent(std::exp(band) - 1) +
                          " difference band of two layouts of one job)") +
         "; among options within model error of the fastest the plan prefers the most memory "
         "headroom, then the simplest CP transport, then the fewest collectives across NVLink "
         "domains, and " +
         letter_at(letters, best_index) + " is preferred to " + letter_at(letters, fastest) +
         ", the fastest, for " + why;
}

/// The summary lines: the recommendation and why, or why there is none.
std::vector<std::string> summary_lines(const std::vector<PlanOption>& options,
                                       const PlanOption* best, std::optional<size_t> fastest,
                                       const std::string& tie_sentence,
                                       const std::vector<bool>& eligible,
                                       const std::vector<std::string>& letters) {
  if (options.empty()) return {"no layout passes the rules on this cluster"};
  if (best == nullptr) return {nothing_fits_line(options)};
  size_t best_index = static_cast<size_t>(best - options.data());
  bool is_fastest = fastest && best_index == *fastest;
  std::string line = "recommended: " + letter_at(letters, best_index) + " " + best->layout.label() +
                     ", " + (is_fastest ? "the fastest layout that fits: " : "") +
                     format_rate(best->estimate.tokens_per_s_per_gpu) + " tokens/s/GPU" +
                     absolute_band_text(*best) + ", " + duration(best->estimate.time.step_s) +
                     " per step";
  std::string why = is_fastest || !fastest
                        ? std::string()
                        : why_not_faster(options, *best, *fastest, eligible, letters);
  if (!tie_sentence.empty() && why.empty()) {
    line += "; " + tie_sentence;
  } else if (tie_sentence.empty()) {
    for (size_t i = 0; i < options.size(); ++i) {
      const PlanOption& o = options[i];
      if (&o == best || !can_recommend(options, eligible, i)) continue;
      double ahead = o.estimate.time.step_s / best->estimate.time.step_s - 1;
      line += "; " + percent(ahead) + " ahead of " + o.layout.label();
      break;
    }
  }
  std::vector<std::string> out{line};
  if (!why.empty()) out.push_back(why);
  for (size_t r = tie_sentence.empty() ? 0 : 1; r < best->reasons.size(); ++r) {
    out.push_back(best->reasons[r]);
  }
  return out;
}

}  // namespace

void explain_options(std::vector<PlanOption>& options, std::vector<std::string>* summary,
                     bool recommend, const std::vector<bool>& eligible,
                     const std::vector<std::string>& letters) {
  std::optional<size_t> fastest = reset_and_find_fastest(options, eligible);
  std::optional<size_t> chosen = choose_among_ties(options, eligible, fastest);
  std::optional<size_t> rival = closest_rival(options, chosen);
  PlanOption* best = chosen ? &options[*chosen] : nullptr;
  if (recommend && best != nullptr) best->recommended = true;
  add_option_reasons(options, fastest, best, letters);
  std::string tie_sentence = explain_tie(options, best, rival, letters);
  if (summary == nullptr) return;
  *summary = summary_lines(options, best, fastest, tie_sentence, eligible, letters);
}

namespace {

void add_once(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

std::string unmeasured_exchange_text(const std::vector<const PlanOption*>& options) {
  std::vector<std::string> missing;
  std::vector<std::string> ran;
  for (const PlanOption* o : options) {
    if (o == nullptr || o->band.cp_comm_types_without_runs.empty()) continue;
    for (const std::string& name : o->band.cp_comm_types_without_runs)
      add_once(missing, name);
    for (const std::string& name : o->band.cp_comm_types.value_or(std::vector<std::string>{}))
      add_once(ran, name);
  }
  if (missing.empty()) return "";
  // In the order the cp_comm_type values are declared (p2p, all_gather, a2a, a2a+p2p).
  auto declared = [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& name) {
      auto type = parse_cp_comm_type(name);
      return type ? static_cast<int>(*type) : -1;
    };
    return rank(a) < rank(b);
  };
  std::sort(missing.begin(), missing.end(), declared);
  std::sort(ran.begin(), ran.end(), declared);
  return "no published run behind these bands used cp_comm_type " + or_list(missing) +
         (ran.empty() ? "" : " (their CP runs used " + or_list(ran) + ")") +
         ", so no run has checked how those options price that exchange";
}

std::string tie_rule_text() {
  return "Two options are a tie (within model error) when their throughput error bands overlap. "
         "The reference is the fastest option that fits in memory; among the options tied with "
         "it the recommendation goes to the one with the most memory headroom (differences under " +
         format_fixed(kHeadroomStepGiB, 0) +
         " GiB do not count), then the simpler CP transport (no CP, then a2a, p2p or all_gather, "
         "then a2a+p2p or mixed per-layer types), then the fewest collectives crossing NVLink "
         "domains, then the faster.";
}

}  // namespace hcp
