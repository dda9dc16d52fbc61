// The planner: enumerate TP / CP / PP / cp_comm_type / HCP layouts for a recipe on a cluster,
// drop the ones the rule registry rejects, estimate the rest with the cost model and rank them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/diagnostic.h"
#include "hcp/model.h"
#include "hcp/recipe.h"
#include "hcp/rules.h"

namespace hcp {

/// What to plan for.
struct PlanRequest {
  Recipe recipe;        ///< The recipe with overrides applied; candidates are set on copies.
  Environment env;      ///< world_size, gpus_per_node, nvlink_domain, te_version, ... for rules.
  Hardware hardware;    ///< Achieved rates (profile + calibration).
  TrainingSetup setup;  ///< Global batch, recompute, optimizer, memory limit.
  int64_t max_pp = 1;   ///< Largest pipeline size searched (the recipe's own PP is always in).
  bool keep_rejected = false;  ///< Collect rejected candidates (for --show-rejected).
  /// The fitted constants and error bands (prepare_plan: the shipped fit); null: no bands, so
  /// only identical predictions tie.
  const accuracy::FittedModel* fit = nullptr;
};

/// A candidate the rules (or the model) turned down.
struct RejectedOption {
  Layout layout;
  std::string rule_id;  ///< Rejecting rule ("CP013"); "model" when the cost model refused it.
  std::string message;  ///< The first error's message.
};

/// One ranked option.
struct PlanOption {
  Layout layout;
  Estimate estimate;
  std::vector<Diagnostic> diagnostics;  ///< Warnings and infos the rules reported (no errors).
  std::vector<std::string> notes;       ///< Short tags for the table ("a2a on NVLink").
  std::vector<std::string> reasons;     ///< Sentences with numbers.
  bool recommended = false;
  /// The prediction's error band (accuracy::band_for of its regime); zero width without a fit.
  accuracy::Band band;
  bool recipe_layout = false;  ///< This is the recipe's own layout.
  /// Within model error of the fastest option that fits (the bands overlap).
  bool tie_with_best = false;
};

/// Rejected candidates counted by the rejecting rule, with the first rejection's message.
struct RejectionReason {
  std::string rule_id;
  std::string example;  ///< The message of the first layout this rule rejected.
  int64_t count = 0;
};

/// The result of a search.
struct PlanResult {
  ModelDims model;
  Hardware hardware;
  TrainingSetup setup;
  int64_t world_size = 0;
  int64_t candidates = 0;                ///< Layouts enumerated.
  std::vector<PlanOption> options;       ///< Accepted layouts, the recommended one first.
  std::vector<RejectedOption> rejected;  ///< Only when keep_rejected.
  int64_t rejected_count = 0;
  /// Every rejection counted by rule, most frequent first (kept also without keep_rejected).
  std::vector<RejectionReason> rejection_reasons;
  /// Slower EP / VPP variants of a layout whose faster variant passed the rules: priced by the
  /// model, not checked by the rules and not listed.
  int64_t pruned_count = 0;
  std::vector<std::string> summary;  ///< Why the recommended option wins, in sentences.
  /// Rank (index into options) of the recipe's own layout; nullopt when the rules or the model
  /// rejected it (recipe_rejected then says why) or the recipe's sizes do not divide the world.
  std::optional<size_t> recipe_rank;
  std::optional<RejectedOption> recipe_rejected;
  std::optional<Layout> recipe_layout;  ///< The recipe's own layout on this world.
  /// When the recipe's own layout is listed but does not fit in memory: the least changes that
  /// make it fit, in sentences (a stronger recompute of the same layout; the nearest option that
  /// fits). Empty otherwise.
  std::vector<std::string> recipe_fit;
  /// The option that fits with the fewest sizes changed from the recipe's own layout (TP, CP, PP,
  /// VP, EP, cp_comm_type, HCP; the faster on a tie), when the recipe's own does not fit.
  std::optional<size_t> recipe_fit_option;
};

/// The lightest recompute stronger than the request's under which `own` (the recipe's layout of
/// `model`) fits in memory, in plan's words ("the same layout with --recompute full: 61.0 of 80
/// GiB per GPU, 1729 tokens/s/GPU"); nullopt when none does.
std::optional<std::string> recompute_that_fits(const ModelDims& model, const PlanRequest& request,
                                               const Layout& own);

/// CP115, the memory finding of `validate`: the recipe's own layout on request.env.world_size
/// GPUs priced with plan's memory model (estimate()) on `cluster` (the profile's name, for the
/// message); a warning with the model's figure, its band (kMemoryBand) and, as its fix, the least
/// change plan names (recompute_that_fits) when the layout does not fit. Nullopt when it fits,
/// the world size is unknown, or the model cannot price the layout (the rules say why).
std::optional<Diagnostic> memory_fit_finding(const PlanRequest& request,
                                             const std::string& cluster);

/// Return every candidate layout for `world` GPUs: TP over the divisors of the NVLink domain that
/// divide the world, PP 1..max_pp, CP over the divisors of the rest, DP derived; cp_comm_type p2p,
/// all_gather, a2a and a2a+p2p with every [a, p], a, p > 1; for models with sliding-window
/// layers also per-layer pairs (windowed layers a2a or all_gather). Expert parallelism stays 1
/// and VPP 1 (see search_layouts for the full space).
std::vector<Layout> enumerate_layouts(const ModelDims& model, int64_t world, int nvlink_domain,
                                      int64_t max_pp);

/// What the planner searches besides TP, CP, PP and the comm type.
struct SearchSpace {
  int64_t max_pp = 1;
  /// Expert tensor parallel size of every candidate (unset: follows TP).
  std::optional<int64_t> etp;
  /// Virtual pipeline sizes tried for PP > 1 (each must divide layers / PP); empty: 1 only.
  std::vector<int64_t> vpp = {1, 2, 4, 8};
  /// Expert parallel sizes tried for MoE models (each must divide the experts and
  /// TP x CP x DP / ETP); empty: 1 only.
  std::vector<int64_t> ep;
  /// Layouts that must be in the space (the recipe's own); added when not enumerated.
  std::vector<Layout> include;
};

/// Return the candidates of the full space: enumerate_layouts' grid times VPP (PP > 1) and EP
/// (MoE), plus `space.include`.
std::vector<Layout> search_layouts(const ModelDims& model, int64_t world, int nvlink_domain,
                                   const SearchSpace& space);

/// Return a copy of `recipe` with the layout applied (hcp::apply: tensor/context/pipeline
/// parallel sizes, cp_comm_type (a per-layer list over the model's sliding-window layers for
/// mixed types), hierarchical sizes), with sequence parallelism on exactly when TP > 1.
Recipe recipe_with_layout(const Recipe& recipe, const Layout& layout);

/// Return the layout a recipe describes on `world` GPUs (hcp::layout_of over the model's
/// sliding-window layers, DP derived; the error names the key when the sizes do not divide the
/// world or a comm type is unknown).
Result<Layout> layout_on(const Recipe& recipe, int64_t world);

/// Run one layout through the rules and the model. The option's diagnostics hold every finding
/// (errors included) and `rejected` is set when a rule reported an error.
struct EvaluatedOption {
  PlanOption option;
  std::optional<RejectedOption> rejected;
};
EvaluatedOption evaluate_layout(const PlanRequest& request, const ModelDims& model,
                                const Layout& layout);

/// Return the fields a planner variant changes (EP, ETP, VP: variant_fields()) in which `a` and
/// `b` differ.
LayoutFields differing_variant_fields(const Layout& a, const Layout& b);
/// Return true when a rejection by the rule `rule_id` holds for every variant of a layout whose
/// variants differ in `differing`: the rule reads none of those fields (Rule::reads), so it
/// rejects them all. Never for the cost model's rejections ("model") or an ID outside the catalog.
bool rejection_holds_for_every_variant(std::string_view rule_id, const LayoutFields& differing);

/// Search, rank (the recommended option first, then options that fit in memory by step time,
/// then the rest) and explain. The space
/// always holds the recipe's own layout (its PP, VPP and EP even beyond max_pp) and searches
/// VPP and EP; result.recipe_rank says where it ranks. Errors: the recipe lacks model sizes, or
/// the world size is unknown.
Result<PlanResult> plan(const PlanRequest& request);

/// Return the order of plan's options (rank_options) in words, for reports ("Rows are ranked:
/// ...").
std::string plan_order_text();
/// Return the tie rule of explain_options in words, for reports ("Two options are a tie ...").
std::string tie_rule_text();
/// Return which cp_comm_types of `options` (null entries skipped) no run behind their bands used,
/// in one sentence for reports ("no published run behind these bands used cp_comm_type a2a+p2p
/// (their CP runs used p2p), so ..."); "" when every option's exchange has runs.
std::string unmeasured_exchange_text(const std::vector<const PlanOption*>& options);
/// Return the memory terms as plan's reasons list them ("weights 15.0, grads 29.9, ..., reserved
/// 6.0", GiB); CP115's message gives the same list.
std::string memory_terms_text(const MemoryBreakdown& memory);
/// Return the letter that names the option of rank i in text and reports: A, B, ..., Z, AA, AB, ...
std::string option_letter(size_t index);

/// One layout given to `compare`: its estimate (when the model can price it) and every rule
/// finding, errors included.
struct CompareEntry {
  PlanOption option;        ///< diagnostics hold all findings; estimate valid when priced.
  bool valid = true;        ///< No rule reported an error.
  bool priced = true;       ///< The model produced an estimate.
  std::string model_error;  ///< Why it could not be priced (when !priced).
};

/// Price and validate the given layouts (DP derived from the world size; a layout with DP 0, whose
/// TP*CP*PP does not divide the world, is validated on the world and not priced). Entries come back
/// in the user's order (their letters stay A, B, ...), with notes and reasons; the recommended one
/// is chosen among the valid, fitting options by the tie rule of explain_options.
Result<std::vector<CompareEntry>> compare_layouts(const PlanRequest& request,
                                                  const std::vector<Layout>& layouts);

/// The command-line inputs of `plan` and `compare`, before they are checked.
struct PlanInputs {
  std::string recipe;                    ///< Path or shipped recipe name.
  std::vector<std::string> overrides;    ///< Hydra overrides, in order.
  std::optional<int64_t> nodes;          ///< --nodes
  std::optional<int64_t> gpus_per_node;  ///< --gpus-per-node (default: the profile's)
  std::string cluster;                   ///< --cluster NAME or path (default "dgx-h100")
  /// The profile of `cluster` when the caller has loaded it already: used as read, not again.
  std::optional<ClusterProfile> cluster_profile;
  std::string topology;                    ///< --topology FILE (cluster-profile YAML)
  std::string calibration;                 ///< --calibration FILE
  std::string recompute;                   ///< --recompute none|selective|full ("" = recipe's)
  std::optional<int64_t> global_batch;     ///< --global-batch
  std::optional<double> memory_limit_gib;  ///< --memory-limit
  std::string te_version;                  ///< --te-version X.Y.Z
  std::string mcore_version;               ///< --mcore-version X.Y.Z
  /// --framework: "megatron" (the recipe's own semantics), "bridge" or "mlm" (whose semantics
  /// the rules apply, as validate's --framework). The cost model prices Megatron-Core with
  /// Transformer Engine only, so nothing else is accepted.
  std::string framework;
  int64_t max_pp = 1;          ///< --max-pp
  bool show_rejected = false;  ///< --show-rejected
  /// A recipe the caller loaded (Megatron-LM config, --mlm-args, --hf-config), overrides
  /// applied: used instead of `recipe` and `overrides` when set.
  std::optional<Recipe> loaded;
  /// False: no error bands (the request's fit stays null, the shipped fit file is not read):
  /// for a caller that only prices (validate's CP115).
  bool bands = true;
};

/// A checked plan request plus what the reports name.
struct PreparedPlan {
  PlanRequest request;
  ClusterProfile profile;
  std::string recipe_label;   ///< Recipe name for the report.
  std::string cluster_label;  ///< Profile name or topology file.
};

/// Load the recipe, apply overrides, read the cluster profile (or topology file) and the
/// calibration, and build the rule environment. Every error is bad input (exit 2) and names the
/// option or file. The world size stays unset when --nodes is absent.
Result<PreparedPlan> prepare_plan(const PlanInputs& inputs);

/// Return the layout of a `compare --option` on top of the recipe's own layout: given keys
/// replace the recipe's; DP is derived from `world` (or taken from the option when the world is
/// unknown), and is 0 when TP*CP*PP does not divide `world` (compare_layouts then reports the
/// rules' CP001 for it). Errors name the option text.
Result<Layout> layout_from_option(const Recipe& recipe, const std::string& option_text,
                                  std::optional<int64_t> world);

/// Fill notes and reasons of the options and mark the recommended one. The reference is the
/// fastest option that fits (and is eligible). Options whose error band overlaps the
/// reference's are a tie (tie_with_best); among ties the recommendation goes to the one with
/// more memory headroom (by at least 1 GiB), then the simpler transport (no CP, a2a, p2p or
/// all_gather before a2a+p2p; then fewer collectives leaving the NVLink domain), then the
/// faster, and its reasons say so ("within model error of A (...); preferred for 13.0 GiB more
/// headroom"). `eligible` (may be empty) marks the options that may be recommended (compare:
/// the valid ones); `letters` (may be empty: A, B, ... by position) name the options in words.
void explain_options(std::vector<PlanOption>& options, std::vector<std::string>* summary,
                     bool recommend, const std::vector<bool>& eligible = {},
                     const std::vector<std::string>& letters = {});

}  // namespace hcp
