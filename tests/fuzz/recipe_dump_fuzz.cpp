// Recipe YAML in the full-dump shape (Megatron-Bridge ConfigContainer.to_yaml(): `_target_`
// metadata, dtype/callable/enum/partial mappings). Every input is read as the body of a dump:
// the top-level `_target_` line is prepended so the mutations stay in the dump normaliser.
// Seeds: tests/fixtures/recipe.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = "_target_: megatron.bridge.training.config.ConfigContainer\n";
  text.append(hcp::fuzz::as_text(data, size));
  auto recipe = hcp::load_recipe_text(text, "dump.yaml");
  if (!recipe) return 0;
  (void)hcp::resolve_interpolations(*recipe);
  (void)hcp::layout_of(*recipe);
  return 0;
}
