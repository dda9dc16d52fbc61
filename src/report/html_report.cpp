// HTML form of the plan and compare reports: tables and inline SVG charts written directly as
// markup (no scripts, no external assets).
#include "hcp/html_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "hcp/layout.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

constexpr int64_t kMaxDrawnNodes = 64;

/// One row of the page: an option with its letter and, for compare, whether the rules and the
/// model accepted it. Only priced rows are charted.
struct Row {
  std::string letter;
  const PlanOption* option = nullptr;
  bool priced = true;
  std::string status;  ///< Why a compared layout is invalid or unpriced ("" when fine).
};

/// What a page shows besides the rows.
struct Page {
  std::string title;
  std::vector<Row> rows;
  std::vector<std::string> summary;  ///< Sentences under the title.
  std::string order;                 ///< How the rows are ordered, in words.
  double limit_gib = 0;              ///< Memory per GPU the options must fit in.
};

std::string pct(double fraction) {
  return (fraction >= 0 ? "+" : "") + format_fixed(100 * fraction, 0) + "%";
}

/// "12345 (+-8%)" when the option carries an error band.
std::string tokens_text(const PlanOption& o) {
  std::string text = format_rate(o.estimate.tokens_per_s_per_gpu);
  if (o.band.relative > 0)
    text += " &#177;" + format_fixed(100 * std::expm1(o.band.relative), 0) + "%";
  return text;
}

const Row* recommended_row(const Page& page) {
  for (const Row& row : page.rows) {
    if (row.option->recommended) return &row;
  }
  return nullptr;
}

// --- axes ------------------------------------------------------------------------------------

/// A linear axis from `bottom` to `top` drawn between two pixel positions, ticked every `step`.
struct Axis {
  double bottom = 0;
  double top = 1;
  double step = 1;
  double from_px = 0;
  double to_px = 1;
  double at(double value) const {
    return from_px + (value - bottom) / (top - bottom) * (to_px - from_px);
  }
};

/// An axis over [min_value, max_value] with about five ticks at 1, 2 or 5 times a power of ten;
/// its ends are the ticks at or beyond the values.
Axis make_axis(double min_value, double max_value, double from_px, double to_px) {
  Axis axis;
  axis.from_px = from_px;
  axis.to_px = to_px;
  double span = max_value - min_value > 0 ? max_value - min_value : std::max(1.0, max_value);
  double raw = span / 5;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  axis.step = 10 * power;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) {
      axis.step = m * power;
      break;
    }
  }
  axis.bottom = std::floor(min_value / axis.step + 1e-9) * axis.step;
  axis.top = std::max(axis.bottom + axis.step, std::ceil(max_value / axis.step - 1e-9) * axis.step);
  return axis;
}

std::vector<double> tick_values(const Axis& axis) {
  std::vector<double> values;
  auto ticks = static_cast<int>(std::lround((axis.top - axis.bottom) / axis.step));
  for (int k = 0; k <= ticks; ++k)
    values.push_back(axis.bottom + k * axis.step);
  return values;
}

std::string tick_label(const Axis& axis, double value) {
  int digits = axis.step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(axis.step) - 1e-9));
  return format_fixed(value, digits);
}

/// A horizontal axis at pixel row y, with gridlines up to `grid_top`, ticks and a title.
void write_x_axis(std::ostream& out, const Axis& axis, double y, double grid_top,
                  const std::string& title) {
  out << "<g class=\"x-axis\"><line class=\"axis\" x1=\"" << format_fixed(axis.from_px, 1)
      << "\" y1=\"" << y << "\" x2=\"" << format_fixed(axis.to_px, 1) << "\" y2=\"" << y
      << "\"/>\n";
  for (double v : tick_values(axis)) {
    std::string x = format_fixed(axis.at(v), 1);
    out << "<g class=\"tick\"><line class=\"grid\" x1=\"" << x << "\" y1=\"" << grid_top
        << "\" x2=\"" << x << "\" y2=\"" << y + 4 << "\"/><text x=\"" << x << "\" y=\"" << y + 17
        << "\" text-anchor=\"middle\">" << tick_label(axis, v) << "</text></g>\n";
  }
  out << "<text class=\"axis-title\" x=\"" << format_fixed((axis.from_px + axis.to_px) / 2, 1)
      << "\" y=\"" << y + 34 << "\" text-anchor=\"middle\">" << title << "</text></g>\n";
}

/// A vertical axis at pixel column x (the axis runs from_px at the bottom to to_px at the top).
void write_y_axis(std::ostream& out, const Axis& axis, double x, double grid_right,
                  const std::string& title) {
  out << "<g class=\"y-axis\"><line class=\"axis\" x1=\"" << x << "\" y1=\""
      << format_fixed(axis.from_px, 1) << "\" x2=\"" << x << "\" y2=\""
      << format_fixed(axis.to_px, 1) << "\"/>\n";
  for (double v : tick_values(axis)) {
    std::string y = format_fixed(axis.at(v), 1);
    out << "<g class=\"tick\"><line class=\"grid\" x1=\"" << x - 4 << "\" y1=\"" << y << "\" x2=\""
        << grid_right << "\" y2=\"" << y << "\"/><text x=\"" << x - 7 << "\" y=\"" << y
        << "\" dy=\"4\" text-anchor=\"end\">" << tick_label(axis, v) << "</text></g>\n";
  }
  double middle = (axis.from_px + axis.to_px) / 2;
  out << "<text class=\"axis-title\" x=\"14\" y=\"" << format_fixed(middle, 1)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << format_fixed(middle, 1) << ")\">"
      << title << "</text></g>\n";
}

// --- throughput versus memory ------------------------------------------------------------------

constexpr int kChartWidth = 720;
constexpr double kPlotLeft = 80;
constexpr double kPlotRight = 700;

/// Where a point's letter goes: right of the point, moved down while it would overlap a letter
/// already placed.
std::pair<double, double> label_position(std::vector<std::pair<double, double>>& placed, double x,
                                         double y) {
  double lx = x + 9;
  double ly = y - 6;
  bool clash = true;
  while (clash) {
    clash = false;
    for (const auto& [px, py] : placed) {
      if (std::abs(px - lx) < 18 && std::abs(py - ly) < 12) {
        ly = py + 13;
        clash = true;
      }
    }
  }
  placed.emplace_back(lx, ly);
  return {lx, ly};
}

void write_point(std::ostream& out, const Row& row, const Axis& x, const Axis& y,
                 std::vector<std::pair<double, double>>& labels) {
  const PlanOption& o = *row.option;
  const Estimate& e = o.estimate;
  double cx = x.at(e.memory_gib());
  double cy = y.at(e.tokens_per_s_per_gpu);
  bool banded = o.band.relative > 0;
  double low = banded ? o.band.tokens_per_s_per_gpu_low : e.tokens_per_s_per_gpu;
  double high = banded ? o.band.tokens_per_s_per_gpu_high : e.tokens_per_s_per_gpu;
  std::string css = std::string("point") + (o.recommended ? " recommended" : "") +
                    (o.recipe_layout ? " own" : "") + (e.fits_memory ? "" : " over");
  out << "<g class=\"" << css << "\" data-option=\"" << row.letter << "\" data-gib=\""
      << format_fixed(e.memory_gib(), 3) << "\" data-tokens=\""
      << format_fixed(e.tokens_per_s_per_gpu, 1) << "\" data-low=\"" << format_fixed(low, 1)
      << "\" data-high=\"" << format_fixed(high, 1) << "\"><title>" << row.letter << " "
      << xml_escape(o.layout.label()) << ": " << tokens_text(o) << " tokens/s/GPU, "
      << format_fixed(e.memory_gib(), 1) << " GiB</title>\n";
  if (banded) {
    std::string px = format_fixed(cx, 1);
    for (double v : {low, high}) {
      out << "<line class=\"err-cap\" x1=\"" << format_fixed(cx - 4, 1) << "\" x2=\""
          << format_fixed(cx + 4, 1) << "\" y1=\"" << format_fixed(y.at(v), 1) << "\" y2=\""
          << format_fixed(y.at(v), 1) << "\"/>";
    }
    out << "<line class=\"err-bar\" x1=\"" << px << "\" x2=\"" << px << "\" y1=\""
        << format_fixed(y.at(low), 1) << "\" y2=\"" << format_fixed(y.at(high), 1) << "\"/>\n";
  }
  out << "<circle cx=\"" << format_fixed(cx, 1) << "\" cy=\"" << format_fixed(cy, 1) << "\" r=\""
      << (o.recommended || o.recipe_layout ? 7 : 5) << "\"/>";
  auto [lx, ly] = label_position(labels, cx, cy);
  out << "<text x=\"" << format_fixed(lx, 1) << "\" y=\"" << format_fixed(ly, 1) << "\">"
      << row.letter << "</text></g>\n";
}

/// The key under the scatter ("your layout" only when the recipe's own layout is charted).
void write_scatter_key(std::ostream& out, double y, bool own_shown) {
  struct Key {
    const char* css;
    const char* text;
  };
  double x = kPlotLeft;
  for (Key key : {Key{"point", "option"}, Key{"point recommended", "recommended"},
                  Key{"point own", "your layout"}, Key{"point over", "does not fit"}}) {
    if (!own_shown && std::string(key.text) == "your layout") continue;
    out << "<g class=\"key " << key.css << "\"><circle cx=\"" << x + 6 << "\" cy=\"" << y - 4
        << "\" r=\"5\"/><text x=\"" << x + 16 << "\" y=\"" << y << "\">" << key.text
        << "</text></g>\n";
    x += 130;
  }
  out << "<text x=\"" << x << "\" y=\"" << y << "\">bars: error band</text>\n";
}

void write_scatter(std::ostream& out, const Page& page) {
  double max_gib = page.limit_gib;
  double min_tokens = 0;
  double max_tokens = 0;
  for (const Row& row : page.rows) {
    if (!row.priced) continue;
    const PlanOption& o = *row.option;
    bool banded = o.band.relative > 0;
    double low = banded ? o.band.tokens_per_s_per_gpu_low : o.estimate.tokens_per_s_per_gpu;
    double high = banded ? o.band.tokens_per_s_per_gpu_high : o.estimate.tokens_per_s_per_gpu;
    max_gib = std::max(max_gib, o.estimate.memory_gib());
    min_tokens = min_tokens > 0 ? std::min(min_tokens, low) : low;
    max_tokens = std::max(max_tokens, high);
  }
  constexpr double kTop = 20;
  constexpr double kBottom = 330;
  // Memory from zero (the limit in view); throughput around the options, error bars included.
  Axis x = make_axis(0, max_gib * 1.05, kPlotLeft, kPlotRight);
  double margin = 0.05 * std::max(max_tokens - min_tokens, 0.05 * max_tokens);
  Axis y = make_axis(std::max(0.0, min_tokens - margin), max_tokens + margin, kBottom, kTop);
  out << "<h2>Throughput versus memory</h2>\n<svg id=\"throughput-memory-chart\" "
         "xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << kChartWidth << "\" height=\"400\" viewBox=\"0 0 " << kChartWidth << " 400\">\n";
  double limit_x = x.at(page.limit_gib);
  out << "<rect class=\"over-area\" x=\"" << format_fixed(limit_x, 1) << "\" y=\"" << kTop
      << "\" width=\"" << format_fixed(std::max(0.0, kPlotRight - limit_x), 1) << "\" height=\""
      << kBottom - kTop << "\"><title>does not fit in memory</title></rect>\n";
  write_x_axis(out, x, kBottom, kTop, "Memory per GPU (GiB)");
  write_y_axis(out, y, kPlotLeft, kPlotRight, "Tokens/s/GPU");
  out << "<line class=\"mem-limit\" data-gib=\"" << format_fixed(page.limit_gib, 3) << "\" x1=\""
      << format_fixed(limit_x, 1) << "\" y1=\"" << kTop << "\" x2=\"" << format_fixed(limit_x, 1)
      << "\" y2=\"" << kBottom << "\"/><text class=\"limit-label\" x=\""
      << format_fixed(limit_x - 4, 1) << "\" y=\"" << kTop + 12 << "\" text-anchor=\"end\">limit "
      << format_fixed(page.limit_gib, 1) << " GiB</text>\n";
  std::vector<std::pair<double, double>> labels;
  for (const Row& row : page.rows) {
    if (row.priced) write_point(out, row, x, y, labels);
  }
  bool own_shown = std::any_of(page.rows.begin(), page.rows.end(), [](const Row& row) {
    return row.priced && row.option->recipe_layout;
  });
  write_scatter_key(out, 392, own_shown);
  out << "</svg>\n";
}

// --- stacked per-term charts -------------------------------------------------------------------

struct Segment {
  const char* css;
  const char* label;
  double value;
};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<Segment> step_segments(const TimeBreakdown& t) {
  return {
      {"t-gemm", "GEMM", t.gemm_s},
      {"t-attention", "attention", t.attention_s},
      {"t-recompute", "recompute", t.recompute_s},
      {"t-other-compute", "other compute", t.elementwise_s + t.moe_permute_s + t.overhead_s},
      {"t-cp", "exposed CP comm", t.cp_a2a_s + t.cp_allgather_s + t.cp_ring_exposed_s},
      {"t-tp", "TP comm", t.tp_comm_s},
      {"t-bubble", "pipeline bubble", t.pp_bubble_s},
      {"t-transfers", "DP, PP and EP transfers", t.dp_comm_s + t.pp_comm_s + t.ep_a2a_s},
      {"t-straggler", "slowest GPU's delay", t.straggler_s},
  };
}

std::vector<Segment> memory_segments(const MemoryBreakdown& m) {
  return {
      {"m-weights", "weights", m.weights / kGiB},
      {"m-gradients", "gradients", m.gradients / kGiB},
      {"m-optimizer", "optimizer", m.optimizer / kGiB},
      {"m-activations", "activations", m.activations / kGiB},
      {"m-cp", "CP buffers", m.cp_buffers / kGiB},
      {"m-logits", "logits", m.logits / kGiB},
      {"m-reserved", "reserved (context, NCCL)", m.reserved / kGiB},
  };
}

/// One stacked horizontal bar chart: a bar per priced row, a segment per term.
struct StackedChart {
  const char* id;
  const char* heading;
  const char* axis_title;
  const char* unit;
  int digits;
  std::vector<Segment> (*segments)(const PlanOption&);
  double (*total)(const PlanOption&);
  double limit = 0;  ///< Drawn as line.mem-limit when > 0.
};

constexpr double kBarLeft = 50;
constexpr double kBarRight = 640;
constexpr int kRowHeight = 24;

void write_legend(std::ostream& out, const std::vector<Segment>& segments, double y) {
  for (size_t i = 0; i < segments.size(); ++i) {
    double x = kBarLeft + static_cast<double>(i % 3) * 220;
    size_t legend_row = i / 3;  // three entries a row
    double row_y = y + static_cast<double>(legend_row) * 18;
    out << "<g class=\"legend\"><rect class=\"" << segments[i].css << "\" x=\"" << x << "\" y=\""
        << row_y - 10 << "\" width=\"12\" height=\"12\"/><text x=\"" << x + 16 << "\" y=\"" << row_y
        << "\">" << segments[i].label << "</text></g>\n";
  }
}

void write_bar(std::ostream& out, const StackedChart& chart, const Row& row, const Axis& axis,
               int y) {
  const PlanOption& o = *row.option;
  double total = chart.total(o);
  out << "<g class=\"bar\" data-option=\"" << row.letter << "\" data-total=\""
      << format_fixed(total, 6) << "\"><text x=\"0\" y=\"" << y + 16 << "\">" << row.letter
      << "</text>\n";
  double x = kBarLeft;
  for (const Segment& s : chart.segments(o)) {
    double w = axis.at(s.value) - kBarLeft;
    out << "<rect class=\"seg " << s.css << "\" x=\"" << format_fixed(x, 2) << "\" y=\"" << y + 3
        << "\" width=\"" << format_fixed(w, 2) << "\" height=\"18\" data-value=\""
        << format_fixed(s.value, 6) << "\"><title>" << row.letter << " " << s.label << ": "
        << format_fixed(s.value, chart.digits) << " " << chart.unit << "</title></rect>\n";
    x += w;
  }
  out << "<text x=\"" << format_fixed(x + 6, 2) << "\" y=\"" << y + 16 << "\">"
      << format_fixed(total, chart.digits) << " " << chart.unit << "</text></g>\n";
}

void write_stacked_chart(std::ostream& out, const Page& page, const StackedChart& chart) {
  double longest = chart.limit;
  int bars = 0;
  for (const Row& row : page.rows) {
    if (!row.priced) continue;
    longest = std::max(longest, chart.total(*row.option));
    ++bars;
  }
  Axis axis = make_axis(0, longest, kBarLeft, kBarRight);
  std::vector<Segment> legend = chart.segments(PlanOption{});
  double axis_y = 8 + bars * kRowHeight;
  int height = static_cast<int>(axis_y) + 60 + static_cast<int>((legend.size() + 2) / 3) * 18;
  out << "<h2>" << chart.heading << "</h2>\n<svg id=\"" << chart.id
      << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kChartWidth << "\" height=\""
      << height << "\" viewBox=\"0 0 " << kChartWidth << " " << height << "\">\n";
  write_x_axis(out, axis, axis_y, 4, chart.axis_title);
  int drawn = 0;
  for (const Row& row : page.rows) {
    if (row.priced) write_bar(out, chart, row, axis, 6 + kRowHeight * drawn++);
  }
  if (chart.limit > 0) {
    std::string x = format_fixed(axis.at(chart.limit), 1);
    out << "<line class=\"mem-limit\" data-gib=\"" << format_fixed(chart.limit, 3) << "\" x1=\""
        << x << "\" y1=\"2\" x2=\"" << x << "\" y2=\"" << axis_y << "\"><title>limit "
        << format_fixed(chart.limit, 1) << " GiB</title></line>\n";
  }
  write_legend(out, legend, axis_y + 58);
  out << "</svg>\n";
}

void write_breakdown_charts(std::ostream& out, const Page& page) {
  StackedChart step{"step-time-chart",
                    "Step time per term",
                    "Step time (s)",
                    "s",
                    2,
                    [](const PlanOption& o) { return step_segments(o.estimate.time); },
                    [](const PlanOption& o) { return o.estimate.time.step_s; }};
  write_stacked_chart(out, page, step);
  StackedChart memory{"memory-chart",
                      "Memory per GPU per term",
                      "Memory per GPU (GiB)",
                      "GiB",
                      1,
                      [](const PlanOption& o) { return memory_segments(o.estimate.memory); },
                      [](const PlanOption& o) { return o.estimate.memory_gib(); },
                      page.limit_gib};
  write_stacked_chart(out, page, memory);
}

// --- decision table ----------------------------------------------------------------------------

std::string row_notes(const Row& row) {
  std::string notes = row.status;
  for (const std::string& note : row.option->notes)
    notes += (notes.empty() ? "" : "; ") + note;
  return notes;
}

void write_table_row(std::ostream& out, const Row& row) {
  const PlanOption& o = *row.option;
  const Estimate& e = o.estimate;
  out << "<tr class=\"option" << (o.recommended ? " recommended" : "")
      << (o.recipe_layout ? " own" : "") << (o.tie_with_best ? " tie" : "") << "\" data-option=\""
      << row.letter << "\"><td>" << row.letter << (o.recommended ? " (recommended)" : "")
      << (o.recipe_layout ? " (your layout)" : "") << "</td><td class=\"text\">"
      << xml_escape(o.layout.label()) << "</td>";
  if (row.priced) {
    out << "<td>" << format_fixed(e.time.step_s, 3) << "</td><td>" << tokens_text(o) << "</td><td>"
        << format_fixed(e.memory_gib(), 1) << " / " << format_fixed(e.memory_limit_gib, 1)
        << "</td><td>" << (e.fits_memory ? "yes" : "no") << "</td>";
  } else {
    out << "<td colspan=\"4\" class=\"text\">not priced</td>";
  }
  out << "<td class=\"text notes\">" << xml_escape(row_notes(row)) << "</td></tr>\n";
}

void write_table(std::ostream& out, const Page& page) {
  out << "<h2>Decision table</h2>\n<div class=\"scroll\"><table id=\"decision-table\">\n"
         "<thead><tr><th>Option</th><th>Layout</th><th>Step time (s)</th>"
         "<th>Tokens/s/GPU</th><th>Memory (GiB)</th><th>Fits</th><th>Notes</th></tr></thead>\n"
         "<tbody>\n";
  for (const Row& row : page.rows)
    write_table_row(out, row);
  out << "</tbody>\n</table></div>\n";
}

// --- words -------------------------------------------------------------------------------------

void write_how_to_read(std::ostream& out, const Page& page) {
  out << "<section id=\"how-to-read\">\n<h2>How to read this report</h2>\n<p id=\"order\">"
      << xml_escape(page.order) << "</p>\n";
  std::map<std::string, const PlanOption*> regimes;
  for (const Row& row : page.rows) {
    if (row.priced && row.option->band.relative > 0)
      regimes.emplace(row.option->band.regime, row.option);
  }
  if (regimes.empty()) {
    out << "<p class=\"band none\">No error bands: the predictions carry no fitted error, so "
           "only identical predictions tie.</p>\n";
  } else {
    out << "<p>Every throughput is a prediction of the cost model. Its error band (the error "
           "bars, and &#177; in the table) is the spread of the model's past errors, measured "
           "over predicted, on the validation corpus in the option's regime "
           "(<code>hcp-plan accuracy</code> shows them):</p>\n<ul>\n";
    for (const auto& [regime, o] : regimes) {
      double tokens = o->estimate.tokens_per_s_per_gpu;
      out << "<li><p class=\"band\">" << xml_escape(regime) << ": "
          << pct(o->band.tokens_per_s_per_gpu_low / tokens - 1) << " to "
          << pct(o->band.tokens_per_s_per_gpu_high / tokens - 1)
          << " of the predicted throughput; half-width for ties &#177;"
          << format_fixed(100 * std::expm1(o->band.relative), 0) << "%.</p></li>\n";
    }
    out << "</ul>\n";
    std::vector<const PlanOption*> priced;
    for (const Row& row : page.rows) {
      if (row.priced) priced.push_back(row.option);
    }
    std::string unmeasured = unmeasured_exchange_text(priced);
    if (!unmeasured.empty()) {
      unmeasured[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(unmeasured[0])));
      out << "<p id=\"unmeasured-exchange\">" << xml_escape(unmeasured) << ".</p>\n";
    }
  }
  out << "<p id=\"tie-rule\">" << xml_escape(tie_rule_text()) << "</p>\n</section>\n";
}

// --- placement ---------------------------------------------------------------------------------

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
  int64_t width = 80 + per_node * 44;
  out << "<p>Colour = CP group; the number is the global rank (Megatron order tp-cp-ep-dp-pp)."
      << (drawn < nodes
              ? " First " + std::to_string(drawn) + " of " + std::to_string(nodes) + " nodes shown."
              : "")
      << "</p>\n<svg id=\"placement\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
      << "\" height=\"" << drawn * 40 << "\" viewBox=\"0 0 " << width << " " << drawn * 40
      << "\">\n";
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

// --- page --------------------------------------------------------------------------------------

void write_diagnostics(std::ostream& out, const PlanOption* option) {
  out << "<section id=\"diagnostics\">\n<h2>Diagnostics of the recommended option</h2>\n<ul>\n";
  if (option != nullptr) {
    for (const Diagnostic& d : option->diagnostics) {
      out << "<li class=\"diagnostic " << severity_name(d.severity()) << "\">"
          << severity_name(d.severity()) << ": " << (d.id().empty() ? "" : "[" + d.id() + "] ")
          << xml_escape(d.message) << "</li>\n";
    }
    if (option->diagnostics.empty()) out << "<li class=\"none\">No findings.</li>\n";
  } else {
    out << "<li class=\"none\">No option is recommended.</li>\n";
  }
  out << "</ul>\n</section>\n";
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:16px;max-width:1000px;color:#222;line-height:1.35}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.4em}"
    "svg{max-width:100%;height:auto;display:block}svg text{font-size:12px;fill:#222}"
    ".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}"
    "td.text{text-align:left}td.notes{min-width:14em}"
    "tr.recommended{background:#e8f4e8;font-weight:bold}tr.own{outline:2px solid #333}"
    "pre{background:#f4f4f4;padding:6px;white-space:pre-wrap;word-break:break-all}"
    ".axis{stroke:#333}.grid{stroke:#ddd}.axis-title{font-weight:bold}"
    ".over-area{fill:#fbe9e9}.mem-limit{stroke:#b00;stroke-width:2;stroke-dasharray:5 3}"
    ".limit-label{fill:#b00}.err-bar,.err-cap{stroke:#555;stroke-width:1.5}"
    ".point circle{fill:#4e79a7;stroke:#fff}.point.recommended circle{fill:#2e8b3e}"
    ".point.over circle{fill:#e15759}.point.own circle{stroke:#000;stroke-width:2.5}"
    ".t-gemm{fill:#4e79a7}.t-attention{fill:#a0cbe8}.t-recompute{fill:#9c755f}"
    ".t-other-compute{fill:#bab0ac}.t-cp{fill:#e15759}.t-tp{fill:#f28e2b}"
    ".t-bubble{fill:#d4a6c8}.t-transfers{fill:#76b7b2}.t-straggler{fill:#8c8c8c}"
    ".m-weights{fill:#4e79a7}"
    ".m-gradients{fill:#a0cbe8}.m-optimizer{fill:#f28e2b}.m-activations{fill:#59a14f}"
    ".m-cp{fill:#e15759}.m-logits{fill:#edc948}.m-reserved{fill:#bab0ac}"
    "rect.gpu{stroke:#333}li.error{color:#b00}li.warning{color:#a60}";

void write_head(std::ostream& out, const std::string& title, const HtmlProvenance& provenance) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
      << xml_escape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>"
      << xml_escape(title) << "</h1>\n<p id=\"provenance\">Written by hcp-plan "
      << xml_escape(provenance.version) << " (commit <code>" << xml_escape(provenance.commit)
      << "</code>) on " << xml_escape(provenance.generated_at) << " with:</p>\n"
      << "<pre id=\"command-line\">" << xml_escape(provenance.command_line) << "</pre>\n";
}

/// The recommendation and why, as the planner words it.
void write_recommendation(std::ostream& out, const Page& page) {
  out << "<section id=\"recommendation\">\n<h2>Recommendation</h2>\n<ul>\n";
  for (const std::string& line : page.summary)
    out << "<li class=\"reason\">" << xml_escape(line) << "</li>\n";
  if (page.summary.empty()) out << "<li class=\"reason none\">No option is recommended.</li>\n";
  out << "</ul>\n</section>\n";
}

/// Everything below the recommendation and the recipe's own layout.
void write_page(std::ostream& out, const Page& page, const PlanReportContext& context) {
  write_scatter(out, page);
  write_how_to_read(out, page);
  write_table(out, page);
  write_breakdown_charts(out, page);
  const Row* best = recommended_row(page);
  if (best != nullptr) write_placement(out, *best->option, context);
  write_diagnostics(out, best != nullptr ? best->option : nullptr);
  out << "</body>\n</html>\n";
}

std::string page_title(const std::string& command, const PlanReportContext& context) {
  return "hcp-plan " + command + ": " + context.recipe + " on " + std::to_string(context.nodes) +
         " x " + std::to_string(context.gpus_per_node) + " GPUs";
}

/// The recipe's own layout: where it ranks, or why the planner has no row for it.
void write_your_layout(std::ostream& out, const PlanResult& plan) {
  out << "<section id=\"your-layout\">\n<h2>Your layout</h2>\n<p>";
  if (plan.recipe_rank) {
    size_t rank = *plan.recipe_rank;
    const PlanOption& o = plan.options[rank];
    out << "The recipe's own layout, " << xml_escape(o.layout.label()) << ", is option "
        << option_letter(rank) << " (rank " << rank + 1 << " of " << plan.options.size()
        << "): " << format_rate(o.estimate.tokens_per_s_per_gpu) << " tokens/s/GPU, "
        << format_fixed(o.estimate.memory_gib(), 1) << " of "
        << format_fixed(o.estimate.memory_limit_gib, 1) << " GiB per GPU"
        << (o.estimate.fits_memory ? "" : " (does not fit)")
        << (o.recommended ? "; it is the recommendation." : ".");
  } else if (plan.recipe_rejected) {
    const RejectedOption& r = *plan.recipe_rejected;
    out << "The recipe's own layout, " << xml_escape(r.layout.label()) << ", was rejected ("
        << xml_escape(r.rule_id) << "): " << xml_escape(r.message);
  } else {
    out << "The recipe's own parallel sizes do not divide this world of " << plan.world_size
        << " GPUs, so it has no row.";
  }
  out << "</p>\n</section>\n";
}

}  // namespace

std::string format_plan_html(const PlanResult& plan, const PlanReportContext& context,
                             const HtmlProvenance& provenance) {
  Page page;
  page.title = page_title("plan", context);
  page.summary = plan.summary;
  page.order = plan_order_text();
  size_t shown =
      context.top == 0 ? plan.options.size() : std::min(plan.options.size(), context.top);
  for (size_t i = 0; i < plan.options.size(); ++i) {
    bool own = plan.recipe_rank && *plan.recipe_rank == i;
    if (i < shown || own) page.rows.push_back(Row{option_letter(i), &plan.options[i], true, ""});
  }
  page.limit_gib = plan.options.empty() ? 0 : plan.options.front().estimate.memory_limit_gib;
  std::ostringstream out;
  write_head(out, page.title, provenance);
  out << "<p id=\"summary\">Cluster " << xml_escape(context.cluster) << "; " << plan.candidates
      << " layouts enumerated, " << plan.options.size() << " accepted, " << plan.rejected_count
      << " rejected.</p>\n";
  write_recommendation(out, page);
  write_your_layout(out, plan);
  write_page(out, page, context);
  return out.str();
}

std::string format_compare_html(const std::vector<CompareEntry>& entries,
                                const PlanReportContext& context,
                                const HtmlProvenance& provenance) {
  Page page;
  page.title = page_title("compare", context);
  page.order = "Rows are in the order of the --option arguments.";
  for (size_t i = 0; i < entries.size(); ++i) {
    const CompareEntry& e = entries[i];
    std::string status;
    for (const Diagnostic& d : e.option.diagnostics) {
      if (status.empty() && d.severity() == Severity::kError)
        status = "rejected [" + d.id() + "]: " + d.message;
    }
    if (status.empty() && !e.priced) status = "the model cannot price it: " + e.model_error;
    page.rows.push_back(Row{option_letter(i), &e.option, e.priced, status});
    if (e.option.recommended) {
      page.summary = {"recommended: " + option_letter(i) + " " + e.option.layout.label()};
      page.summary.insert(page.summary.end(), e.option.reasons.begin(), e.option.reasons.end());
    }
    if (e.priced && page.limit_gib <= 0) page.limit_gib = e.option.estimate.memory_limit_gib;
  }
  std::ostringstream out;
  write_head(out, page.title, provenance);
  out << "<p id=\"summary\">Cluster " << xml_escape(context.cluster) << "; " << entries.size()
      << " layouts compared.</p>\n";
  write_recommendation(out, page);
  write_page(out, page, context);
  return out.str();
}

}  // namespace hcp
