// The shipped fit (recipes/corpus/fitted_constants.json) as compiled into the binary.
#pragma once

#include <string_view>

namespace hcp::accuracy::detail {

/// Return the text of recipes/corpus/fitted_constants.json as it was at build time (CMake
/// generates the definition from the file: shipped_fit_text.cpp.in).
std::string_view shipped_fit_text();

/// Return the constants of that file alone, one per line: generation, name, value and source
/// (apply_fit()'s wording for a fitted constant), tab-separated (CMake extracts them at configure
/// time, CMakeLists.txt), so that shipped_constants() reads them without parsing the whole file.
std::string_view shipped_constants_text();

}  // namespace hcp::accuracy::detail
