// The planner: enumerate TP / CP / PP / cp_comm_type / HCP layouts for a recipe on a cluster,
// drop the ones the rule registry rejects, estimate the rest with the cost model and rank them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  int64_t max_pp = 1;   ///< Largest pipeline size searched.
  bool keep_rejected = false;  ///< Collect rejected candidates (for --show-rejected).
};

/// A candidate the rules (or the model) turned down.
struct RejectedOption {
  LayoutChoice layout;
  std::string rule_id;  ///< Rejecting rule ("CP013"); "model" when the cost model refused it.
  std::string message;  ///< The first error's message.
};

/// One ranked option.
struct PlanOption {
  LayoutChoice layout;
  Estimate estimate;
  std::vector<Diagnostic> diagnostics;  ///< Warnings and infos the rules reported (no errors).
  std::vector<std::string> notes;       ///< Short tags for the table ("a2a on NVLink").
  std::vector<std::string> reasons;     ///< Sentences with numbers.
  bool recommended = false;
};

/// The result of a search.
struct PlanResult {
  ModelDims model;
  Hardware hardware;
  TrainingSetup setup;
  int64_t world_size = 0;
  int64_t candidates = 0;                ///< Layouts enumerated.
  std::vector<PlanOption> options;       ///< Accepted layouts, best first.
  std::vector<RejectedOption> rejected;  ///< Only when keep_rejected.
  int64_t rejected_count = 0;
  std::vector<std::string> summary;  ///< Why the recommended option wins, in sentences.
};

/// Return every candidate layout for `world` GPUs: TP over the divisors of the NVLink domain that
/// divide the world, PP 1..max_pp, CP over the divisors of the rest, DP derived; cp_comm_type p2p,
/// all_gather, a2a and a2a+p2p with every [a, p], a, p > 1; for models with sliding-window
/// layers also per-layer pairs (windowed layers a2a or all_gather).
std::vector<LayoutChoice> enumerate_layouts(const ModelDims& model, int64_t world,
                                            int nvlink_domain, int64_t max_pp);

/// Return a copy of `recipe` with the layout's fields set (tensor/context/pipeline parallel
/// sizes, cp_comm_type (a per-layer list for mixed types), hierarchical sizes, sequence
/// parallelism for TP > 1).
Recipe recipe_with_layout(const Recipe& recipe, const LayoutChoice& layout);

/// Return the layout a recipe describes on `world` GPUs (DP derived; the error names the key
/// when the sizes do not divide the world or the comm type is unknown).
Result<LayoutChoice> layout_of(const Recipe& recipe, int64_t world);

/// Run one layout through the rules and the model. The option's diagnostics hold every finding
/// (errors included) and `rejected` is set when a rule reported an error.
struct EvaluatedOption {
  PlanOption option;
  std::optional<RejectedOption> rejected;
};
EvaluatedOption evaluate_layout(const PlanRequest& request, const ModelDims& model,
                                const LayoutChoice& layout);

/// Search, rank (options that fit in memory first, then by step time) and explain. Errors: the
/// recipe lacks model sizes, or the world size is unknown.
Result<PlanResult> plan(const PlanRequest& request);

/// One layout given to `compare`: its estimate (when the model can price it) and every rule
/// finding, errors included.
struct CompareEntry {
  PlanOption option;        ///< diagnostics hold all findings; estimate valid when priced.
  bool valid = true;        ///< No rule reported an error.
  bool priced = true;       ///< The model produced an estimate.
  std::string model_error;  ///< Why it could not be priced (when !priced).
};

/// Price and validate the given layouts (DP derived from the world size). Entries come back best
/// first (priced before unpriced, valid before invalid, fitting before not, then step time), with
/// notes and reasons; the recommended one is the best valid option that fits.
Result<std::vector<CompareEntry>> compare_layouts(const PlanRequest& request,
                                                  const std::vector<LayoutChoice>& layouts);

/// The command-line inputs of `plan` and `compare`, before they are checked.
struct PlanInputs {
  std::string recipe;                      ///< Path or shipped recipe name.
  std::vector<std::string> overrides;      ///< Hydra overrides, in order.
  std::optional<int64_t> nodes;            ///< --nodes
  std::optional<int64_t> gpus_per_node;    ///< --gpus-per-node (default: the profile's)
  std::string cluster;                     ///< --cluster NAME or path (default "dgx-h100")
  std::string topology;                    ///< --topology FILE (cluster-profile YAML)
  std::string calibration;                 ///< --calibration FILE
  std::string recompute;                   ///< --recompute none|selective|full ("" = recipe's)
  std::optional<int64_t> global_batch;     ///< --global-batch
  std::optional<double> memory_limit_gib;  ///< --memory-limit
  std::string te_version;                  ///< --te-version X.Y.Z
  int64_t max_pp = 1;                      ///< --max-pp
  bool show_rejected = false;              ///< --show-rejected
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
/// unknown). Errors name the option text.
Result<LayoutChoice> layout_from_option(const Recipe& recipe, const std::string& option_text,
                                        std::optional<int64_t> world);

/// Fill notes and reasons of ranked options (first = reference) and mark the recommended one
/// (the fastest that fits). Used by plan() and compare.
void explain_options(std::vector<PlanOption>& options, std::vector<std::string>* summary,
                     bool recommend);

}  // namespace hcp
