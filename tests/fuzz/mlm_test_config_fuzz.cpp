// Megatron-LM functional-test model_config.yaml (MODEL_ARGS*, ENV_VARS, merge keys `<<`).
// The loader only takes a path: the input goes to a scratch file.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/mlm_args.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static hcp::fuzz::ScratchFile file("-model_config.yaml");
  const std::string& path = file.write(hcp::fuzz::as_text(data, size));
  (void)hcp::is_mlm_test_config(path);
  auto config = hcp::load_mlm_test_config(path);
  if (config) HCP_FUZZ_CHECK(!config->sections.empty(), "a config has a section");
  return 0;
}
