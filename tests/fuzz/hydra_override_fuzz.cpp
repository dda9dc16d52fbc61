// Hydra overrides: every line of the input is one override token, parsed on its own and then
// applied in order to a small recipe (struct mode, schema type checks, interpolations).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "hcp/recipe.h"

namespace {
const char kRecipe[] =
    "model:\n"
    "  tensor_model_parallel_size: 2\n"
    "  context_parallel_size: 2\n"
    "  hierarchical_context_parallel_sizes: [2, 1]\n"
    "  cp_comm_type: a2a+p2p\n"
    "  seq_length: 8192\n"
    "  num_attention_heads: 32\n"
    "train:\n"
    "  global_batch_size: 16\n"
    "  micro_batch_size: 1\n"
    "dataset:\n"
    "  seq_length: ${model.seq_length}\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts =
      hcp::fuzz::split_parts(std::string("%%\n") + std::string(hcp::fuzz::as_text(data, size)));
  int index = 1;
  for (const std::string& line : parts.lines)
    (void)hcp::parse_override(line, index++);
  static const hcp::Result<hcp::Recipe> base = hcp::load_recipe_text(kRecipe, "base.yaml");
  HCP_FUZZ_CHECK(base.ok(), "the base recipe loads");
  hcp::Recipe recipe = *base;
  if (hcp::apply_overrides(recipe, parts.lines)) {
    (void)hcp::resolve_interpolations(recipe);
    (void)hcp::layout_of(recipe);
  }
  return 0;
}
