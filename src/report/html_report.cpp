// HTML form of the plan report: tables and inline SVG charts written directly as markup.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "hcp/html_report.h"
#include "hcp/layout.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

constexpr int64_t kMaxDrawnNodes = 64;

size_t listed_count(const PlanResult& plan, const PlanReportContext& context) {
  if (context.top == 0) return plan.options.size();
  return std::min(plan.options.size(), context.top);
}

const PlanOption* recommended_option(const PlanResult& plan) {
  for (const PlanOption& option : plan.options) {
    if (option.recommended) return &option;
  }
  return plan.options.empty() ? nullptr : &plan.options.front();
}

// --- decision table ---------------------------------------------------------------------------

void write_table(std::ostream& out, const PlanResult& plan, const PlanReportContext& context) {
  out << "<h2>Decision table</h2>\n<table id=\"decision-table\">\n<thead><tr><th>Option</th>"
         "<th>Layout</th><th>Step time (s)</th><th>Tokens/s/GPU</th><th>Memory (GiB)</th>"
         "<th>Fits</th><th>Notes</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < listed_count(plan, context); ++i) {
    const PlanOption& o = plan.options[i];
    std::string notes;
    for (const std::string& note : o.notes)
      notes += (notes.empty() ? "" : "; ") + note;
    out << "<tr class=\"option" << (o.recommended ? " recommended" : "") << "\" data-option=\""
        << option_letter(i) << "\"><td>" << option_letter(i) << "</td><td>"
        << xml_escape(o.layout.label()) << "</td><td>" << format_fixed(o.estimate.time.step_s, 3)
        << "</td><td>" << format_fixed(o.estimate.tokens_per_s_per_gpu, 0) << "</td><td>"
        << format_fixed(o.estimate.memory_gib(), 1) << " / "
        << format_fixed(o.estimate.memory_limit_gib, 1) << "</td><td>"
        << (o.estimate.fits_memory ? "yes" : "no") << "</td><td>" << xml_escape(notes)
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

// --- step time chart --------------------------------------------------------------------------

struct Segment {
  const char* css;
  const char* label;
  double seconds;
};

std::vector<Segment> step_segments(const TimeBreakdown& t) {
  return {
      {"seg-compute", "compute",
       t.gemm_s + t.attention_s + t.recompute_s + t.elementwise_s + t.moe_permute_s + t.overhead_s},
      {"seg-cp-comm", "exposed CP comm", t.cp_a2a_s + t.cp_allgather_s + t.cp_ring_exposed_s},
      {"seg-tp-comm", "TP comm", t.tp_comm_s},
      {"seg-bubble", "pipeline bubble", t.pp_bubble_s},
      {"seg-other", "DP, PP and EP transfers", t.dp_comm_s + t.pp_comm_s + t.ep_a2a_s},
  };
}

constexpr int kLabelWidth = 60;
constexpr int kBarArea = 560;
constexpr int kRowHeight = 26;

void write_legend(std::ostream& out, int y) {
  int x = kLabelWidth;
  for (const Segment& s : step_segments(TimeBreakdown{})) {
    out << "<rect class=\"" << s.css << "\" x=\"" << x << "\" y=\"" << y
        << "\" width=\"12\" height=\"12\"/><text x=\"" << x + 16 << "\" y=\"" << y + 11 << "\">"
        << s.label << "</text>\n";
    x += 130;
  }
}

void write_step_chart(std::ostream& out, const PlanResult& plan, const PlanReportContext& context) {
  size_t n = listed_count(plan, context);
  double longest = 0;
  for (size_t i = 0; i < n; ++i)
    longest = std::max(longest, plan.options[i].estimate.time.step_s);
  if (longest <= 0) longest = 1;
  int height = static_cast<int>(n) * kRowHeight + 40;
  out << "<h2>Step time per option</h2>\n<svg id=\"step-time-chart\" xmlns=\"http://www.w3.org/"
         "2000/svg\" width=\""
      << kLabelWidth + kBarArea + 120 << "\" height=\"" << height << "\">\n";
  for (size_t i = 0; i < n; ++i) {
    const TimeBreakdown& t = plan.options[i].estimate.time;
    int y = static_cast<int>(i) * kRowHeight;
    out << "<g class=\"bar\" data-option=\"" << option_letter(i) << "\" data-step-s=\""
        << format_fixed(t.step_s, 6) << "\"><text x=\"0\" y=\"" << y + 16 << "\">"
        << option_letter(i) << "</text>\n";
    double x = kLabelWidth;
    for (const Segment& s : step_segments(t)) {
      double w = s.seconds / longest * kBarArea;
      out << "<rect class=\"" << s.css << "\" x=\"" << format_fixed(x, 2) << "\" y=\"" << y + 3
          << "\" width=\"" << format_fixed(w, 2) << "\" height=\"18\" data-seconds=\""
          << format_fixed(s.seconds, 6) << "\"><title>" << s.label << ": "
          << format_fixed(s.seconds, 3) << " s</title></rect>\n";
      x += w;
    }
    out << "<text x=\"" << format_fixed(x + 6, 2) << "\" y=\"" << y + 16 << "\">"
        << format_fixed(t.step_s, 2) << " s</text></g>\n";
  }
  write_legend(out, static_cast<int>(n) * kRowHeight + 10);
  out << "</svg>\n";
}

// --- memory chart -----------------------------------------------------------------------------

void write_memory_chart(std::ostream& out, const PlanResult& plan,
                        const PlanReportContext& context) {
  size_t n = listed_count(plan, context);
  double scale_gib = 1;
  for (size_t i = 0; i < n; ++i) {
    scale_gib = std::max({scale_gib, plan.options[i].estimate.memory_gib(),
                          plan.options[i].estimate.memory_limit_gib});
  }
  int height = static_cast<int>(n) * kRowHeight + 10;
  out << "<h2>Memory per GPU</h2>\n<svg id=\"memory-chart\" xmlns=\"http://www.w3.org/2000/svg\" "
         "width=\""
      << kLabelWidth + kBarArea + 120 << "\" height=\"" << height << "\">\n";
  for (size_t i = 0; i < n; ++i) {
    const Estimate& e = plan.options[i].estimate;
    int y = static_cast<int>(i) * kRowHeight;
    double w = e.memory_gib() / scale_gib * kBarArea;
    out << "<text x=\"0\" y=\"" << y + 16 << "\">" << option_letter(i)
        << "</text><rect class=\"mem-bar" << (e.fits_memory ? "" : " over") << "\" data-option=\""
        << option_letter(i) << "\" data-gib=\"" << format_fixed(e.memory_gib(), 3) << "\" x=\""
        << kLabelWidth << "\" y=\"" << y + 3 << "\" width=\"" << format_fixed(w, 2)
        << "\" height=\"18\"/><text x=\"" << format_fixed(kLabelWidth + w + 6, 2) << "\" y=\""
        << y + 16 << "\">" << format_fixed(e.memory_gib(), 1) << " GiB</text>\n";
  }
  if (n > 0) {
    double limit = plan.options.front().estimate.memory_limit_gib;
    double x = kLabelWidth + limit / scale_gib * kBarArea;
    out << "<line class=\"mem-capacity\" data-gib=\"" << format_fixed(limit, 3) << "\" x1=\""
        << format_fixed(x, 2) << "\" y1=\"0\" x2=\"" << format_fixed(x, 2) << "\" y2=\"" << height
        << "\"><title>capacity " << format_fixed(limit, 1) << " GiB</title></line>\n";
  }
  out << "</svg>\n";
}

// --- placement --------------------------------------------------------------------------------

/// Group index of every rank for one group kind.
std::vector<int> group_of_rank(const GroupSet& groups, int64_t world) {
  std::vector<int> index(static_cast<size_t>(world), -1);
  for (size_t g = 0; g < groups.count(); ++g) {
    for (int rank : groups.group(g))
      index[static_cast<size_t>(rank)] = static_cast<int>(g);
  }
  return index;
}

std::string group_colour(int group) {
  static const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[group % 10];
}

/// The groups drawn for a layout: its sizes on its own world, HCP only with a2a+p2p on the
/// full-attention layers, no VPP, Megatron's default rank order.
GroupOptions config_of(const Layout& layout) {
  GroupOptions config;
  config.world_size = layout.world();
  config.layout = layout;
  config.layout.vpp.reset();
  config.layout.order = kDefaultRankOrder;
  if (!(layout.etp > 0)) config.layout.etp.reset();
  config.layout.hcp.clear();
  if (layout.comm == CommType::kA2aP2p) config.layout.hcp = {layout.hcp_a2a(), layout.hcp_p2p()};
  return config;
}

void write_gpu(std::ostream& out, int rank, int local, int cp_group, int tp_group) {
  int x = 70 + local * 44;
  out << "<rect class=\"gpu\" data-rank=\"" << rank << "\" data-cp-group=\"" << cp_group
      << "\" data-tp-group=\"" << tp_group << "\" x=\"" << x << "\" y=\"4\" width=\"40\" "
      << "height=\"30\" fill=\"" << group_colour(cp_group) << "\"><title>rank " << rank
      << ": CP group " << cp_group << ", TP group " << tp_group << "</title></rect><text x=\""
      << x + 4 << "\" y=\"23\">" << rank << "</text>\n";
}

void write_placement(std::ostream& out, const PlanOption& option,
                     const PlanReportContext& context) {
  out << "<h2>Rank placement of the recommended option (" << xml_escape(option.layout.label())
      << ")</h2>\n";
  auto groups = build_groups(config_of(option.layout));
  const GroupSet* cp = groups ? groups->find("cp") : nullptr;
  const GroupSet* tp = groups ? groups->find("tp") : nullptr;
  if (cp == nullptr || tp == nullptr || context.gpus_per_node <= 0) {
    out << "<p id=\"placement-missing\">Placement not drawn: "
        << xml_escape(groups ? "no CP/TP groups" : groups.error().str()) << "</p>\n";
    return;
  }
  int64_t world = groups->config.world_size;
  int64_t per_node = context.gpus_per_node;
  int64_t nodes = (world + per_node - 1) / per_node;
  int64_t drawn = std::min(nodes, kMaxDrawnNodes);
  std::vector<int> cp_of = group_of_rank(*cp, world);
  std::vector<int> tp_of = group_of_rank(*tp, world);
  out << "<p>Colour = CP group; the number is the global rank (Megatron order tp-cp-ep-dp-pp)."
      << (drawn < nodes
              ? " First " + std::to_string(drawn) + " of " + std::to_string(nodes) + " nodes shown."
              : "")
      << "</p>\n<svg id=\"placement\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << 80 + per_node * 44 << "\" height=\"" << drawn * 40 << "\">\n";
  for (int64_t node = 0; node < drawn; ++node) {
    out << "<g class=\"node\" data-node=\"" << node << "\" transform=\"translate(0," << node * 40
        << ")\"><text x=\"0\" y=\"23\">node " << node << "</text>\n";
    for (int64_t local = 0; local < per_node && node * per_node + local < world; ++local) {
      auto rank = static_cast<size_t>(node * per_node + local);
      write_gpu(out, static_cast<int>(rank), static_cast<int>(local), cp_of[rank], tp_of[rank]);
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
}

// --- diagnostics and page ---------------------------------------------------------------------

void write_diagnostics(std::ostream& out, const PlanOption* option) {
  out << "<section id=\"diagnostics\">\n<h2>Diagnostics of the recommended option</h2>\n<ul>\n";
  if (option != nullptr) {
    for (const Diagnostic& d : option->diagnostics) {
      out << "<li class=\"diagnostic " << severity_name(d.severity()) << "\">"
          << severity_name(d.severity()) << ": " << (d.id().empty() ? "" : "[" + d.id() + "] ")
          << xml_escape(d.message) << "</li>\n";
    }
    if (option->diagnostics.empty()) out << "<li class=\"none\">No findings.</li>\n";
  }
  out << "</ul>\n</section>\n";
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "tr.recommended{background:#e8f4e8;font-weight:bold}svg text{font-size:12px}"
    ".seg-compute{fill:#4e79a7}.seg-cp-comm{fill:#e15759}.seg-tp-comm{fill:#f28e2b}"
    ".seg-bubble{fill:#bab0ac}.seg-other{fill:#76b7b2}.mem-bar{fill:#59a14f}"
    ".mem-bar.over{fill:#e15759}.mem-capacity{stroke:#000;stroke-width:2;stroke-dasharray:4 2}"
    "rect.gpu{stroke:#333}li.error{color:#b00}li.warning{color:#a60}";

}  // namespace

std::string format_plan_html(const PlanResult& plan, const PlanReportContext& context) {
  std::ostringstream out;
  std::string title = "hcp-plan: " + context.recipe + " on " + std::to_string(context.nodes) +
                      " x " + std::to_string(context.gpus_per_node) + " GPUs";
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << xml_escape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>"
      << xml_escape(title) << "</h1>\n<p id=\"summary\">Cluster " << xml_escape(context.cluster)
      << "; " << plan.candidates << " layouts enumerated, " << plan.options.size() << " accepted, "
      << plan.rejected_count << " rejected.</p>\n";
  for (const std::string& line : plan.summary)
    out << "<p class=\"reason\">" << xml_escape(line) << "</p>\n";
  write_table(out, plan, context);
  write_step_chart(out, plan, context);
  write_memory_chart(out, plan, context);
  const PlanOption* best = recommended_option(plan);
  if (best != nullptr) write_placement(out, *best, context);
  write_diagnostics(out, best);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace hcp
