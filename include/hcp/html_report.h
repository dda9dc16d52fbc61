// Self-contained HTML report of `plan --html FILE`: decision table, step-time and memory charts
// and the rank placement of the recommended option, as inline SVG (no scripts, no fetches).
#pragma once

#include <string>

#include "hcp/plan_report.h"

namespace hcp {

/// Return one HTML document with these elements, for people and for tests:
///  * table#decision-table, one tr.option per listed option (tr.recommended for the winner);
///  * svg#step-time-chart, one g.bar per option (data-option = its letter) of rect.seg-compute,
///    rect.seg-cp-comm (exposed CP), rect.seg-tp-comm, rect.seg-bubble, rect.seg-other
///    (DP and PP transfers); the segments of a bar add up to its step time;
///  * svg#memory-chart, one rect.mem-bar per option and line.mem-capacity at the GPU limit;
///  * svg#placement, the recommended option's ranks drawn as g.node (one per node) of
///    rect.gpu (data-rank, data-cp-group, data-tp-group), coloured by CP group;
///  * section#diagnostics, one li.diagnostic per finding of the recommended option.
/// Text is HTML-escaped. Large worlds draw the first 64 nodes and say so.
std::string format_plan_html(const PlanResult& plan, const PlanReportContext& context);

}  // namespace hcp
