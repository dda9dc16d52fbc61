// Text reports of `plan` and `compare`: a decision table, the recommendation and its reasons,
// every cost term side by side.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hcp/plan_report.h"
#include "hcp/text_table.h"
#include "hcp/text_util.h"

namespace hcp {

namespace {

std::string seconds(double s) {
  if (s == 0) return "0";
  if (s < 1e-3) return format_fixed(s * 1e6, 0) + " us";
  if (s < 1) return format_fixed(s * 1e3, 1) + " ms";
  return format_fixed(s, 2) + " s";
}

/// "a2a+p2p [8,2]", "p2p (SWA: a2a)", "-" without CP.
std::string comm_cell(const Layout& l) {
  if (l.cp == 1) return "-";
  std::string s = cp_comm_type_name(l.comm);
  auto sizes = l.hcp_sizes();
  if (!sizes.empty()) s += " [" + std::to_string(sizes[0]) + "," + std::to_string(sizes[1]) + "]";
  if (l.windowed_comm) s += std::string(" (SWA: ") + cp_comm_type_name(*l.windowed_comm) + ")";
  return s;
}

std::string memory_cell(const Estimate& e) {
  double headroom = e.memory_limit_gib - e.memory_gib();
  return format_fixed(e.memory_gib(), 1) + " (" + (headroom >= 0 ? "+" : "") +
         format_margin_gib(headroom) + ")";
}

std::string header(const PlanResult& plan, const PlanReportContext& c) {
  std::ostringstream out;
  out << "hcp-plan plan: " << c.recipe << " on " << c.nodes << " x " << c.gpus_per_node << " "
      << plan.hardware.gpu_name << " (" << c.cluster << "), " << counted(plan.world_size, "GPU")
      << "\n";
  out << "model: " << plan.model.num_layers << " layers, hidden " << plan.model.hidden << ", "
      << plan.model.heads << " heads / " << plan.model.kv_heads << " KV heads, seq "
      << plan.model.seq_length;
  if (plan.model.windowed_layers() > 0) {
    out << ", " << plan.model.windowed_layers() << " sliding-window layers (window "
        << plan.model.window << ")";
  }
  out << "; recompute " << recompute_name(plan.setup.recompute);
  if (!plan.options.empty()) out << ", global batch " << plan.options.front().estimate.global_batch;
  out << "\n";
  if (!c.calibration.empty()) out << "calibration: " << c.calibration << "\n";
  out << "searched " << counted(plan.candidates, "layout") << ": " << plan.options.size()
      << (plan.options.size() == 1 ? " passes" : " pass") << " the rules, " << plan.rejected_count
      << " rejected" << (c.show_rejected ? "" : " (--show-rejected lists them)");
  if (plan.pruned_count > 0) {
    out << ", " << plan.pruned_count << " slower EP/VPP variants of listed layouts not checked";
  }
  out << "\n";
  if (!plan.options.empty()) {
    const bool recommended = std::any_of(plan.options.begin(), plan.options.end(),
                                         [](const PlanOption& o) { return o.recommended; });
    out << (recommended ? "rows: the recommended option (*) first, then the rest by predicted "
                          "step time"
                        : "rows: by predicted step time")
        << ", those that fit in memory before those that do not"
        << (plan.recipe_rank ? "; \"your layout\" is the recipe's own" : "") << "\n";
  }
  out << "\n";
  return out.str();
}

/// "12345 -21%..+14%" when the option carries an error band (the absolute band).
std::string tokens_cell(const PlanOption& o) {
  std::string cell = format_rate(o.estimate.tokens_per_s_per_gpu);
  std::string range = accuracy::band_range_text(o.band, o.estimate.tokens_per_s_per_gpu);
  if (!range.empty()) cell += " " + range;
  return cell;
}

/// The rows listed: the first `shown`, then the recipe's own layout and the option nearest it
/// that fits, also when they rank below --top.
std::vector<size_t> listed_rows(const PlanResult& plan, size_t shown) {
  std::vector<size_t> rows;
  for (size_t i = 0; i < shown; ++i)
    rows.push_back(i);
  for (std::optional<size_t> extra : {plan.recipe_fit_option, plan.recipe_rank}) {
    if (extra && *extra >= shown && std::find(rows.begin(), rows.end(), *extra) == rows.end())
      rows.push_back(*extra);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TextStyle row_style(const PlanOption& o) {
  if (o.recommended) return TextStyle::kGood;
  if (o.recipe_layout) return TextStyle::kBold;
  return TextStyle::kPlain;
}

/// `text` and a newline; "" for "".
std::string line_or_empty(const std::string& text) {
  return text.empty() ? "" : text + "\n";
}

/// What a tokens/s/GPU cell and its band mean (one line; "" when no option carries a band), and
/// which listed exchanges no run behind the bands used.
std::string band_legend(const std::vector<const PlanOption*>& options) {
  for (const PlanOption* o : options) {
    if (o == nullptr ||
        accuracy::band_range_text(o->band, o->estimate.tokens_per_s_per_gpu).empty()) {
      continue;
    }
    return "tokens/s/GPU as Megatron-LM / Megatron-Bridge with Transformer Engine run it; the "
           "band is where 90% of the published runs the fit did not see fell (hcp-plan "
           "accuracy)\n" +
           line_or_empty(unmeasured_exchange_text(options));
  }
  return "";
}

std::string decision_table(const PlanResult& plan, size_t shown, const PlanReportContext& c) {
  const std::vector<PlanOption>& options = plan.options;
  bool show_vp = false;
  bool show_ep = false;
  for (const PlanOption& o : options) {
    show_vp = show_vp || o.layout.virtual_stages() > 1;
    show_ep = show_ep || o.layout.ep > 1;
  }
  std::vector<std::string> head{"Option", "TP", "CP", "PP"};
  if (show_vp) head.push_back("VP");
  if (show_ep) head.push_back("EP");
  for (const char* h : {"cp_comm_type", "DP", "step", "tokens/s/GPU", "GiB/GPU (free)"})
    head.push_back(h);
  TextTable t(head, "notes");
  size_t previous = 0;
  for (size_t i : listed_rows(plan, shown)) {
    const PlanOption& o = options[i];
    const Layout& l = o.layout;
    if (i >= shown && i != previous + 1) t.row({"..."});
    previous = i;
    std::vector<std::string> cells{option_letter(i) + (o.recommended ? " *" : ""),
                                   std::to_string(l.tp), std::to_string(l.cp),
                                   std::to_string(l.pp)};
    if (show_vp) cells.push_back(std::to_string(l.virtual_stages()));
    if (show_ep) cells.push_back(std::to_string(std::max<int64_t>(l.ep, 1)));
    for (std::string cell : {comm_cell(l), std::to_string(l.dp), seconds(o.estimate.time.step_s),
                             tokens_cell(o), memory_cell(o.estimate)}) {
      cells.push_back(std::move(cell));
    }
    std::vector<std::string> notes = o.notes;
    if (o.recipe_layout) notes.insert(notes.begin(), "your layout");
    t.row(std::move(cells), join(notes, "; "), row_style(o));
  }
  return t.str(c.width, c.color);
}

std::string rejected_section(const PlanResult& plan, const PlanReportContext& c) {
  std::ostringstream out;
  out << "\nrejected layouts (" << plan.rejected.size() << "):\n";
  TextTable t(std::vector<std::string>{});
  for (const RejectedOption& r : plan.rejected) {
    t.row({"  " + r.layout.label(), "[" + r.rule_id + "]"}, r.message);
  }
  out << t.str(c.width);
  return out.str();
}

/// Where the recipe's own layout ranks and, when it does not fit, the least changes that do.
std::string your_layout_lines(const PlanResult& plan) {
  if (plan.recipe_rejected) {
    return "your layout: " + plan.recipe_rejected->layout.label() + " is rejected [" +
           plan.recipe_rejected->rule_id + "]: " + plan.recipe_rejected->message + "\n";
  }
  if (!plan.recipe_rank) return "";
  const PlanOption& own = plan.options[*plan.recipe_rank];
  std::string out = "your layout: " + option_letter(*plan.recipe_rank) + " " + own.layout.label() +
                    ", rank " + std::to_string(*plan.recipe_rank + 1) + " of " +
                    std::to_string(plan.options.size());
  if (own.estimate.fits_memory) return out + "\n";
  out += "; it does not fit (needs " + format_fixed(own.estimate.memory_gib(), 1) + " of " +
         format_limit_gib(own.estimate.memory_limit_gib) + " GiB per GPU)";
  if (plan.recipe_fit.empty()) return out + " and no listed change makes it fit\n";
  out += ". The least changes that make it fit:\n";
  for (const std::string& line : plan.recipe_fit)
    out += "  - " + line + "\n";
  return out;
}

}  // namespace

std::string format_plan_text(const PlanResult& plan, const PlanReportContext& c) {
  std::string out = header(plan, c);
  size_t shown = c.top == 0 ? plan.options.size() : std::min(c.top, plan.options.size());
  if (shown > 0) out += decision_table(plan, shown, c);
  const std::vector<size_t> rows = shown > 0 ? listed_rows(plan, shown) : std::vector<size_t>{};
  if (rows.size() < plan.options.size()) {
    out += "(" + std::to_string(plan.options.size() - rows.size()) + " more; --top 0 lists all)\n";
  }
  std::vector<const PlanOption*> listed;
  listed.reserve(rows.size());
  for (size_t i : rows)
    listed.push_back(&plan.options[i]);
  out += band_legend(listed);
  out += your_layout_lines(plan);
  out += "\n";
  for (size_t i = 0; i < plan.summary.size(); ++i) {
    out += (i == 0 ? "" : "  - ") + plan.summary[i] + "\n";
  }
  for (size_t i = 0; i < shown && i < 5; ++i) {
    const PlanOption& o = plan.options[i];
    if (o.recommended) continue;
    out += "\n" + option_letter(i) + ": " + o.layout.label() + "\n";
    for (const std::string& r : o.reasons)
      out += "  - " + r + "\n";
  }
  if (plan.options.empty() && !plan.rejection_reasons.empty()) {
    // Nothing passed: the main reasons, counted, without needing --show-rejected.
    out += "\nmain rejection reasons:\n";
    size_t listed = std::min<size_t>(plan.rejection_reasons.size(), 5);
    for (size_t i = 0; i < listed; ++i) {
      const RejectionReason& r = plan.rejection_reasons[i];
      out += "  - " + std::to_string(r.count) + " x [" + r.rule_id + "] " + r.example + "\n";
    }
    if (listed < plan.rejection_reasons.size()) {
      out += "  (" + std::to_string(plan.rejection_reasons.size() - listed) +
             " more reasons; --show-rejected lists every layout)\n";
    }
  }
  if (!c.confirm.empty()) out += "\nconfirm: " + c.confirm + "\n";
  if (c.show_rejected) out += rejected_section(plan, c);
  return out;
}

namespace {

void term_rows(TextTable& t, const std::vector<const PlanOption*>& options) {
  using Getter = double (*)(const Estimate&);
  struct Row {
    const char* name;
    Getter get;
    bool memory;
    bool per_ring_step = false;  ///< 0 means the layout has no ring: "-", not a time.
  };
  static const Row rows[] = {
      {"step time", [](const Estimate& e) { return e.time.step_s; }, false},
      {"  GEMMs", [](const Estimate& e) { return e.time.gemm_s; }, false},
      {"  attention", [](const Estimate& e) { return e.time.attention_s; }, false},
      {"  recompute", [](const Estimate& e) { return e.time.recompute_s; }, false},
      {"  TP/SP comm (exposed)", [](const Estimate& e) { return e.time.tp_comm_s; }, false},
      {"  CP a2a (exposed)", [](const Estimate& e) { return e.time.cp_a2a_s; }, false},
      {"  CP all-gather (exposed)", [](const Estimate& e) { return e.time.cp_allgather_s; }, false},
      {"  CP ring exposed", [](const Estimate& e) { return e.time.cp_ring_exposed_s; }, false},
      {"  CP ring hidden (not in total)", [](const Estimate& e) { return e.time.cp_ring_hidden_s; },
       false},
      {"  DP grad sync (exposed)", [](const Estimate& e) { return e.time.dp_comm_s; }, false},
      {"  PP bubble", [](const Estimate& e) { return e.time.pp_bubble_s; }, false},
      {"  PP send/recv", [](const Estimate& e) { return e.time.pp_comm_s; }, false},
      {"  elementwise kernels", [](const Estimate& e) { return e.time.elementwise_s; }, false},
      {"  MoE router/permute", [](const Estimate& e) { return e.time.moe_permute_s; }, false},
      {"  EP dispatch/combine", [](const Estimate& e) { return e.time.ep_a2a_s; }, false},
      {"  launch overhead", [](const Estimate& e) { return e.time.overhead_s; }, false},
      {"  slowest GPU's delay", [](const Estimate& e) { return e.time.straggler_s; }, false},
      {"ring step compute", [](const Estimate& e) { return e.time.ring_step_compute_s; }, false,
       true},
      {"ring step transfer", [](const Estimate& e) { return e.time.ring_step_transfer_s; }, false,
       true},
      {"memory/GPU (GiB)", [](const Estimate& e) { return e.memory.total; }, true},
      {"  weights", [](const Estimate& e) { return e.memory.weights; }, true},
      {"  gradients", [](const Estimate& e) { return e.memory.gradients; }, true},
      {"  optimizer", [](const Estimate& e) { return e.memory.optimizer; }, true},
      {"  activations", [](const Estimate& e) { return e.memory.activations; }, true},
      {"  CP buffers", [](const Estimate& e) { return e.memory.cp_buffers; }, true},
      {"  logits", [](const Estimate& e) { return e.memory.logits; }, true},
      {"  reserved", [](const Estimate& e) { return e.memory.reserved; }, true},
  };
  for (const Row& row : rows) {
    std::vector<std::string> cells{row.name};
    for (const PlanOption* o : options) {
      if (o == nullptr) {
        cells.push_back("-");
        continue;
      }
      double v = row.get(o->estimate);
      // A ring step always computes: a zero step is a layout without a ring (CP1, a2a).
      if (row.per_ring_step && o->estimate.time.ring_step_compute_s <= 0) {
        cells.push_back("-");
        continue;
      }
      cells.push_back(row.memory ? format_gib(v) : seconds(v));
    }
    t.row(std::move(cells));
  }
}

std::string validation_cell(const CompareEntry& e) {
  int errors = 0;
  int warnings = 0;
  for (const Diagnostic& d : e.option.diagnostics) {
    errors += d.severity() == Severity::kError;
    warnings += d.severity() == Severity::kWarning;
  }
  if (errors > 0)
    return "INVALID (" + std::to_string(errors) + (errors == 1 ? " error)" : " errors)");
  if (warnings > 0) {
    return "ok (" + std::to_string(warnings) + (warnings == 1 ? " warning)" : " warnings)");
  }
  return "ok";
}

}  // namespace

std::string format_compare_text(const std::vector<CompareEntry>& entries, const Hardware& hw,
                                const PlanReportContext& c) {
  std::ostringstream out;
  out << "hcp-plan compare: " << c.recipe << " on " << c.nodes << " x " << c.gpus_per_node << " "
      << hw.gpu_name << " (" << c.cluster << ")\n\n";
  std::vector<std::string> head{""};
  std::vector<std::string> layout{"layout"};
  std::vector<std::string> valid{"validation"};
  std::vector<std::string> tokens{"tokens/s/GPU"};
  std::vector<std::string> fits{"fits memory"};
  std::vector<const PlanOption*> priced;
  for (size_t i = 0; i < entries.size(); ++i) {
    const CompareEntry& e = entries[i];
    head.push_back(option_letter(i) + (e.option.recommended ? " *" : ""));
    layout.push_back(e.option.layout.label());
    valid.push_back(validation_cell(e));
    tokens.push_back(e.priced ? tokens_cell(e.option) : "-");
    fits.push_back(!e.priced ? "-" : e.option.estimate.fits_memory ? "yes" : "no");
    priced.push_back(e.priced ? &e.option : nullptr);
  }
  // The layouts' labels make the widest row: too wide for the width, they go above the table.
  auto table = [&](bool with_layout) {
    TextTable t(head);
    if (with_layout) t.row(layout);
    t.row(valid);
    t.row(tokens);
    t.row(fits);
    term_rows(t, priced);
    return t;
  };
  TextTable t = table(true);
  if (c.width > 0 && t.cells_width() > c.width) {
    t = table(false);
    for (size_t i = 0; i < entries.size(); ++i)
      out << option_letter(i) << ": " << entries[i].option.layout.label() << "\n";
    out << "\n";
  }
  out << t.str(c.width, c.color) << band_legend(priced);
  for (size_t i = 0; i < entries.size(); ++i) {
    const CompareEntry& e = entries[i];
    out << "\n"
        << option_letter(i) << ": " << e.option.layout.label()
        << (e.option.recommended ? " (recommended)" : "") << "\n";
    if (!e.priced) out << "  - cannot be priced: " << e.model_error << "\n";
    for (const std::string& r : e.option.reasons)
      out << "  - " << r << "\n";
    for (const Diagnostic& d : e.option.diagnostics) {
      if (d.severity() == Severity::kInfo) continue;
      out << "  " << diagnostic_headline(d) << "\n";
    }
  }
  return out.str();
}

}  // namespace hcp
