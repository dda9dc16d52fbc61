// Megatron-LM's process groups (megatron/core/parallel_state.py, initialize_model_parallel) and
// where they land on nodes and NVLink domains.
//
// Two ways in:
//  * build_groups() materialises every group exactly as upstream creates it (member order = the
//    ring order TE uses), for `hcp-plan groups` and for tests against the oracle;
//  * place_group_kind() / layout_locality() answer placement questions in closed form, without
//    building any group, for the planner's inner loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/recipe.h"

namespace hcp {

/// The inputs of initialize_model_parallel that shape the groups (upstream defaults): a layout
/// on a world of ranks, and the settings beside it.
struct GroupOptions {
  int64_t world_size = 1;
  /// tp, pp, cp, ep, etp (unset: = tp), vpp (checked, does not change groups), hcp and the rank
  /// order. Its dp, comm types and sequence parallelism are not read: DP follows from world_size.
  Layout layout;
  int64_t num_distributed_optimizer_instances = 1;
  int64_t gtp_remat = 1;                  ///< main's GTP weight-rematerialisation factor (decoder).
  int64_t egtp_remat = 1;                 ///< The same for the expert generator.
  bool hybrid_context_parallel = false;   ///< main: --hybrid-context-parallel.
  bool dynamic_context_parallel = false;  ///< dev: --dynamic-context-parallel.
  int64_t min_dynamic_context_parallel_size = 1;
  int64_t rank_offset = 0;
};

/// Return the group options of a recipe's parallel layout on `world_size` ranks: layout_of(),
/// with ETP resolved against the recipe's TP, and model.hybrid_context_parallel,
/// model.dynamic_context_parallel, model.min_dynamic_context_parallel_size and
/// ddp.num_distributed_optimizer_instances.
GroupOptions group_options_of(const Recipe& recipe, int64_t world_size);

/// Why a group options cannot be laid out.
struct LayoutError {
  enum class Kind {
    kBadInput,  ///< Not a layout at all (size < 1, unknown order token): usage error.
    kRejected,  ///< Upstream rejects it (RuntimeError / AssertionError in parallel_state).
  };
  Kind kind = Kind::kRejected;
  std::string rule_id;    ///< Catalog ID ("CP001", "CP005", "CP013", ...); empty when none.
  std::string exception;  ///< Upstream exception class ("RuntimeError", "AssertionError").
  std::string message;    ///< Upstream's message (verbatim where upstream has one).
  std::string key;        ///< Config key it is about, e.g. "model.context_parallel_size".
  /// The rule's own text (hcp::size_rules, the same as validate prints); empty without a rule.
  std::string rule_message = {};

  /// Return "[CP001] rule message"; without a rule, `Megatron raises RuntimeError: "..."` (the
  /// upstream message quoted) or the message itself.
  std::string str() const;
};

/// Check a config the way initialize_model_parallel does, in upstream order; return the first
/// problem, or nullopt when the layout is valid. Cheap: builds no group.
std::optional<LayoutError> check_group_options(const GroupOptions& config);

/// The groups of one kind, all of the same size, stored flat (group-major).
struct GroupSet {
  int64_t group_size = 0;
  std::vector<int> ranks;  ///< count() * group_size global ranks.

  /// Return the number of groups.
  size_t count() const { return group_size ? ranks.size() / static_cast<size_t>(group_size) : 0; }
  /// Return the members of group i, in upstream (ring) order.
  std::span<const int> group(size_t i) const {
    return {ranks.data() + i * static_cast<size_t>(group_size), static_cast<size_t>(group_size)};
  }
  /// Return the groups as nested lists.
  std::vector<std::vector<int>> lists() const;
};

/// One named group kind ("tp", "cp", "dp_cp", ..., see build_groups).
struct NamedGroups {
  std::string name;
  GroupSet groups;
};

/// Every process group of one layout, in upstream creation order.
struct RankGroups {
  GroupOptions config;
  int64_t dp = 1;             ///< W / (TP*PP*CP*GTP)
  int64_t expert_dp = 1;      ///< W / (ETP*EP*PP*EGTP)
  int64_t etp = 1;            ///< Resolved expert TP.
  std::string decoder_order;  ///< Order string after gtp_remat injection and appended axes.
  std::string expert_order;
  std::vector<int64_t> decoder_sizes;  ///< Axis sizes in decoder_order.
  std::vector<int64_t> expert_sizes;

  /// Kinds, in creation order: dp_cp, [intra_partial_dp_cp], dp, [gtp_remat, gtp_remat_dp,
  /// gtp_remat_dp_cp], cp, mp, tp, pp, embd, pos_embd, tp_dp_cp, tp_dp, tp_cp,
  /// [expt_gtp_remat], ep, expt_tp, tp_ep, tp_ep_pp, expt_dp, [intra_partial_expt_dp,
  /// inter_partial_expt_dp], intra_dist_opt_instance. Bracketed ones only when they exist.
  std::vector<NamedGroups> kinds;
  /// Hierarchical CP: hcp[level] holds the level's sub-groups of every CP group (level 0 = a2a,
  /// level 1 = p2p ring). Empty without hierarchical_context_parallel_sizes.
  std::vector<GroupSet> hcp;
  /// Hybrid (main) or dynamic (dev) DP x CP groups: size -> groups (a trailing slice may be
  /// shorter than its size). Empty unless enabled.
  std::map<int64_t, std::vector<std::vector<int>>> hybrid_dp_cp;
  std::map<int64_t, std::vector<std::vector<int>>> dynamic_dp_cp;
  /// TransformerEngine-side limits of the HCP setting (not errors in parallel_state).
  std::vector<std::string> warnings;

  /// Return the groups of a kind, or nullptr when this layout has none of that name.
  const GroupSet* find(std::string_view name) const;
};

/// Build every group of a layout. Errors: the first problem check_group_options() finds, as
/// "[ID] message" with the key set.
Result<RankGroups> build_groups(const GroupOptions& config);

/// How ranks map onto machines: node(r) = r / gpus_per_node, domain(r) = r / nvlink_domain
/// (Megatron asks the launcher to put adjacent ranks on the same node).
struct NodeShape {
  int64_t gpus_per_node = 8;
  int64_t nvlink_domain = 8;  ///< GPUs sharing NVLink (72 on GB200 NVL72; 1 on PCIe boxes).
};

/// Where the groups of one kind land.
struct GroupPlacement {
  int64_t group_size = 0;
  int64_t num_groups = 0;
  int64_t cross_node_groups = 0;    ///< Groups with members on more than one node.
  int64_t max_nodes_spanned = 0;    ///< The most nodes one group touches.
  int64_t cross_domain_groups = 0;  ///< Groups that leave one NVLink domain.
  int64_t max_domains_spanned = 0;  ///< The most NVLink domains one group touches.

  /// Return true when every group stays inside one node.
  bool intra_node() const { return cross_node_groups == 0; }
  /// Return true when every group stays inside one NVLink domain.
  bool intra_domain() const { return cross_domain_groups == 0; }
};

/// Placement of materialised groups (members need not be sorted).
GroupPlacement place(const std::vector<std::vector<int>>& groups, const NodeShape& shape);
GroupPlacement place(const GroupSet& groups, const NodeShape& shape);
/// Convenience form of the above.
GroupPlacement place(const std::vector<std::vector<int>>& groups, int gpus_per_node,
                     int nvlink_domain);

/// Return the group kinds place_group_kind() answers in closed form: the get_ranks kinds of
/// RankGroups (dp_cp, dp, cp, mp, tp, pp, tp_dp_cp, tp_dp, tp_cp, ep, expt_tp, tp_ep,
/// tp_ep_pp, expt_dp) and "hcp_L<k>" for each HCP level.
std::vector<std::string> closed_form_kinds(const GroupOptions& config);

/// Placement of one group kind computed without building any group (cost independent of the
/// world size, apart from the group size). Same numbers as place(build_groups(c)->find(kind)).
/// Errors: invalid config (as build_groups) or a kind without closed form.
Result<GroupPlacement> place_group_kind(const GroupOptions& config, std::string_view kind,
                                        const NodeShape& shape);

/// place_group_kind() for several kinds of one config, resolving its rank grids once; the
/// placements come back in the order of `kinds`.
Result<std::vector<GroupPlacement>> place_group_kinds(const GroupOptions& config,
                                                      std::span<const std::string_view> kinds,
                                                      const NodeShape& shape);

/// The placement questions the planner asks about one layout, in closed form.
struct LayoutLocality {
  GroupPlacement tp;
  GroupPlacement cp;
  GroupPlacement dp;
  GroupPlacement ep;
  std::optional<GroupPlacement> hcp_a2a;  ///< Level 0 of HCP, when set.
  std::optional<GroupPlacement> hcp_p2p;  ///< Level 1 of HCP, when there are two levels.

  /// Return true when the HCP a2a level leaves the NVLink domain (rule CP020's concern).
  bool a2a_leaves_domain() const { return hcp_a2a && !hcp_a2a->intra_domain(); }
};

/// Return the locality of the TP, CP, DP, EP and HCP groups of a valid layout.
Result<LayoutLocality> layout_locality(const GroupOptions& config, const NodeShape& shape);

/// Parse hierarchical CP sizes written as "8,2", "8x2" or "[8, 2]". Errors name the input.
Result<std::vector<int64_t>> parse_hcp_sizes(std::string_view text);

}  // namespace hcp
