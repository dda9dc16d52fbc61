// Recipe YAML (both shapes: partial Bridge trees as in recipes/*.yaml, and full
// ConfigContainer.to_yaml() dumps; the loader tells them apart by their `_target_` keys), then
// the layout the rules read from it. Seeds: corpus/recipe_yaml (partial), corpus/recipe_dump.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto recipe = hcp::load_recipe_text(hcp::fuzz::as_text(data, size), "fuzz.yaml");
  if (!recipe) {
    HCP_FUZZ_CHECK(!recipe.error().str().empty(), "an error has a message");
    return 0;
  }
  (void)hcp::resolve_interpolations(*recipe);
  (void)hcp::layout_of(*recipe);
  return 0;
}
