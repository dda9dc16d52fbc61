// Megatron-LM argument lists ("--context-parallel-size 4 ..."), as --mlm-args gives them:
// tokenised, mapped to Bridge keys and turned into a recipe.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/mlm_args.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = hcp::fuzz::as_text(data, size);
  if (!text.empty() && text.front() == '@') return 0;  // @FILE reads a file: not this harness's
  auto config = hcp::load_mlm_args(text);
  if (config) HCP_FUZZ_CHECK(!config->sections.empty(), "a config has a section");
  auto args = hcp::parse_mlm_argument_text(text, "fuzz.args", 1);
  if (args) (void)hcp::recipe_from_mlm_arguments(*args, "fuzz.args");
  return 0;
}
