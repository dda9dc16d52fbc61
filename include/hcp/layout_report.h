// JSON contracts of `hcp-plan groups` and `hcp-plan simulate`, and simulate's text (formatting
// only; the CLI wires).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/layout.h"
#include "hcp/sim.h"

namespace hcp {

/// A groups warning: rule ID ("" when none) and message.
using GroupsWarning = std::pair<std::string, std::string>;

/// The groups JSON: {"valid": true, "world_size", "order", "tp", "cp", "pp", "dp", "ep", "etp",
/// "expert_dp", "hierarchical_context_parallel_sizes", "gpus_per_node", "nvlink_domain",
/// "cluster" (when named), "groups": {kind: [[ranks]]}, "hcp": [level lists], "hybrid_dp_cp" /
/// "dynamic_dp_cp" (when built), "placement": {kind: {"group_size", "num_groups",
/// "cross_node_groups", "max_nodes_spanned", "cross_domain_groups", "max_domains_spanned"}},
/// "warnings": [{"id", "message"}]}; one line per group kind so line tools can read it.
std::string format_groups_json(const RankGroups& groups, const NodeShape& shape,
                               const std::string& cluster,
                               const std::vector<GroupsWarning>& warnings);

/// What the groups text shows besides the groups.
struct GroupsTextOptions {
  std::string cluster;     ///< The cluster profile's name ("" when none was named).
  int show = 3;            ///< Groups listed per kind.
  bool all_kinds = false;  ///< Every group kind upstream builds, not only the main ones.
  size_t width = 100;      ///< Columns the text fits (0: no limit).
};

/// The groups text: the layout, the machine, one table row per group kind (size, count, how many
/// cross nodes and NVLink domains, the first groups), hybrid / dynamic DPxCP sizes, warnings (a
/// rule's ID in its catalog entry's words).
std::string format_groups_text(const RankGroups& groups, const NodeShape& shape,
                               const GroupsTextOptions& options,
                               const std::vector<GroupsWarning>& warnings);

/// The groups JSON of a layout upstream rejects: {"valid": false, "error": {"id", "severity",
/// "message", "key", "location": {"file", "line", "column"}, "upstream_exception"}}.
std::string format_groups_invalid_json(const LayoutError& error, const Location& where);

/// The simulate JSON: max_abs_error, per-rank byte counts (comm, a2a, ring) keyed by rank, the
/// formula's bytes, bytes_match_formula, tolerance, passed, the problem and the rank chunks.
std::string format_simulate_json(const CpSimResult& result, const CpSimOptions& options,
                                 double tolerance, bool passed);

/// The simulate text: the problem, each rank's chunks, the HCP groups, the error against full
/// attention (OK / WRONG at `tolerance`), the bytes each rank sends and the cp_volume formula's.
std::string format_simulate_text(const CpSimResult& result, const CpSimOptions& options,
                                 double tolerance);

}  // namespace hcp
