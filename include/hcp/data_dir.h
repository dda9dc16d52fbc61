// Where hcp-plan finds its shipped data (recipes/, recipes/clusters/) at run time.
#pragma once

#include <string>
#include <vector>

namespace hcp {

/// Return the directories that may hold shipped recipes, most specific first: $HCP_PLAN_DATA_DIR,
/// <binary>/../share/hcp-plan/recipes (an installed or unpacked package uses its own data), the
/// source tree the binary was built from, and the compiled-in install prefix.
std::vector<std::string> recipe_search_dirs();

/// Return the path of a shipped data file relative to a recipes dir ("clusters/dgx-h100.yaml"),
/// or an empty string when no search dir holds it.
std::string find_data_file(const std::string& relative);

}  // namespace hcp
