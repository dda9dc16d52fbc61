// The shipped fit (recipes/corpus/fitted_constants.json) as compiled into the binary.
#pragma once

#include <string_view>

namespace hcp::accuracy::detail {

/// Return the text of recipes/corpus/fitted_constants.json as it was at build time (CMake
/// generates the definition from the file: shipped_fit_text.cpp.in).
std::string_view shipped_fit_text();

}  // namespace hcp::accuracy::detail
