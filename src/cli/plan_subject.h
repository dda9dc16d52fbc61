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
  inputs.recipe = sources.recipe;
  inputs.loaded = std::move(subject->recipe);
  inputs.overrides = std::move(overrides);
  return true;
}

}  // namespace hcp::cli
