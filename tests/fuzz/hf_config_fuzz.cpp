// Hugging Face config.json applied to an empty recipe (as validate --hf-config does).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/hf_config.h"
#include "hcp/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hcp::Recipe recipe;
  recipe.name = "config.json";
  auto s = hcp::apply_hf_config_text(recipe, hcp::fuzz::as_text(data, size), "config.json");
  if (s) (void)hcp::layout_of(recipe);
  return 0;
}
