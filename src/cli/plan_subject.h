// The recipe subject of plan and compare: RECIPE / MLM config / --mlm-args / --hf-config loaded
// with the overrides into the planner's inputs (one copy for both commands).
#pragma once

#include <string>
#include <vector>

#include "common_options.h"
#include "hcp/planner.h"
#include "output.h"

namespace hcp::cli {

/// Load the subject of `sources` with `overrides` into `inputs`; print the error and return false
/// when it does not load.
inline bool load_plan_subject(const RecipeSources& sources, std::vector<std::string> overrides,
                              PlanInputs& inputs) {
  auto subject = load_one_recipe_subject(sources, overrides);
  if (!subject) {
    print_error(subject.error().str());
    return false;
  }
  // What the loader warned about (keys Bridge skips, unknown provider fields): validate reports
  // them as findings; here they go to standard error, beside the plan.
  for (const Diagnostic& note : subject->recipe.load_notes) {
    std::string where = note.location.known() ? note.location.str() + ": " : "";
    print_warning(where + note.message);
  }
  inputs.recipe = sources.recipe;
  inputs.loaded = std::move(subject->recipe);
  inputs.overrides = std::move(overrides);
  return true;
}

/// The options plan and compare add beside their layout options: --mcore-version, --framework,
/// --config and --no-config.
inline void add_plan_environment_options(CLI::App& sub, PlanInputs& in, ConfigOptions& config) {
  sub.add_option("--mcore-version", in.mcore_version,
                 "Megatron-Core version the job runs with (for the version-dependent rules)");
  sub.add_option("--framework", in.framework,
                 "megatron (default: the recipe's semantics), bridge or mlm; predictions are for "
                 "Megatron-Core with Transformer Engine");
  add_config_options(sub, config);
}

}  // namespace hcp::cli
