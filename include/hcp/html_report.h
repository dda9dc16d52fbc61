// Self-contained HTML report of `plan` and `compare` (--format html, or --html FILE besides the
// text): who wrote it and how, the decision table, a throughput-versus-memory scatter with error
// bars and the memory limit, per-term stacked step-time and memory charts with axes, the recipe's
// own layout, the bands and the tie rule in words, and the rank placement of the recommended
// option. Inline SVG and CSS only: no scripts, no fetches.
#pragma once

#include <string>
#include <vector>

#include "hcp/plan_report.h"

namespace hcp {

/// Who wrote the page and how: shown at its top.
struct HtmlProvenance {
  std::string version;       ///< hcp-plan version ("0.9.0").
  std::string commit;        ///< Commit the binary was built from; "unknown" when not known.
  std::string command_line;  ///< The command that wrote the page, shell-quoted.
  std::string generated_at;  ///< UTC date and time ("2026-11-26 19:40 UTC").
};

/// Return one HTML document with these elements, for people and for tests:
///  * p#provenance (version, commit, date) and pre#command-line;
///  * section#your-layout: the recipe's own layout, its rank or why it was rejected;
///  * table#decision-table, one tr.option per listed option (tr.recommended for the winner,
///    tr.own for the recipe's layout, listed also when it ranks below --top);
///  * section#how-to-read: the order of rows, each regime's error band (p.band) and the tie rule
///    (p#tie-rule);
///  * svg#throughput-memory-chart: one g.point per priced option (data-option, data-gib,
///    data-tokens, data-low, data-high) with line.err-bar from the band's low to high throughput,
///    line.mem-limit at the GPU limit, and g.x-axis / g.y-axis with g.tick labels;
///  * svg#step-time-chart: one g.bar per priced option (data-option, data-total = step time) of
///    rect.seg (data-value, seconds) per term, which add up to the step time; an x axis;
///  * svg#memory-chart: the same per memory term in GiB (data-total = memory per GPU), with
///    line.mem-limit;
///  * svg#placement, the recommended option's ranks drawn as g.node (one per node) of
///    rect.gpu (data-rank, data-cp-group, data-tp-group), coloured by CP group;
///  * section#diagnostics, one li.diagnostic per finding of the recommended option.
/// Text is HTML-escaped. Large worlds draw the first 64 nodes and say so.
std::string format_plan_html(const PlanResult& plan, const PlanReportContext& context,
                             const HtmlProvenance& provenance);

/// The same page for `compare`: one row per given layout in the user's order (a rule's
/// rejection or the model's refusal in its notes; only priced layouts are charted).
std::string format_compare_html(const std::vector<CompareEntry>& entries,
                                const PlanReportContext& context, const HtmlProvenance& provenance);

}  // namespace hcp
