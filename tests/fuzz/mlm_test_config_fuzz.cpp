// Megatron-LM functional-test model_config.yaml (MODEL_ARGS*, ENV_VARS, merge keys `<<`).
// The loader only takes a path: the input goes to a scratch file.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/mlm_args.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static hcp::fuzz::ScratchFile file("-model_config.yaml");
  const std::string& path = file.write(hcp::fuzz::as_text(data, size));
  auto config = hcp::load_mlm_test_config(path);
  if (!config) return 0;
  HCP_FUZZ_CHECK(!config->sections.empty(), "a config has a section");
  // What loads is recognised as a test config (the CLI asks is_mlm_test_config first). Only
  // then: it parses the YAML again, which doubled the cost of every input.
  HCP_FUZZ_CHECK(hcp::is_mlm_test_config(path), "a config that loads is recognised");
  return 0;
}
