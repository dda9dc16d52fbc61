// Reports of `plan` and `compare`: the decision table, the reasons and every cost term, as text
// for people and as JSON (ARCHITECTURE.md §4). Reports only format; the planner computes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hcp/planner.h"
#include "hcp/text_util.h"

namespace hcp {

/// What the plan / compare report shows besides the options.
struct PlanReportContext {
  std::string recipe;   ///< Recipe name or path.
  std::string cluster;  ///< Cluster profile name or topology file.
  int64_t nodes = 0;
  int64_t gpus_per_node = 0;
  size_t top = 8;  ///< Options listed (0: all).
  bool show_rejected = false;
  std::string calibration;  ///< Calibration file, empty when none.
  std::string confirm;      ///< Result of --confirm (empty when not asked).
  /// Columns the text fits (0: no limit): table notes that would pass it go below their row.
  size_t width = kTextWidth;
  bool color = false;  ///< ANSI colour: the recommended row, your layout's row.
};

/// Return the plan as text: header, decision table, recommendation, reasons, rejected layouts.
std::string format_plan_text(const PlanResult& plan, const PlanReportContext& context);
/// Return the plan as JSON: {"options":[{tp, cp, pp, dp, cp_comm_type,
/// hierarchical_context_parallel_sizes, step_time_s, tokens_per_s_per_gpu, memory_gib_per_gpu,
/// fits_memory, recommended, reasons, notes, breakdown, placement, diagnostics}], "summary",
/// "candidates", "rejected_count", "rejected" (with --show-rejected), "model", "hardware"}.
std::string format_plan_json(const PlanResult& plan, const PlanReportContext& context);

/// Return the compared layouts side by side, every term, with each one's rule findings.
std::string format_compare_text(const std::vector<CompareEntry>& entries, const Hardware& hw,
                                const PlanReportContext& context);
/// Return {"options":[... as plan, plus "valid", "priced", "model_error"]} best first.
std::string format_compare_json(const std::vector<CompareEntry>& entries, const Hardware& hw,
                                const PlanReportContext& context);

}  // namespace hcp
