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

/// Fill notes and reasons of ranked options (first = reference) and mark the recommended one
/// (the fastest that fits). Used by plan() and compare.
void explain_options(std::vector<PlanOption>& options, const Hardware& hw,
                     std::vector<std::string>* summary, bool recommend);

}  // namespace hcp
