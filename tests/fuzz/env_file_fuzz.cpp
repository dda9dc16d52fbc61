// Launcher environment files (preflight --env-file) and the launch shape read from them.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/preflight.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static hcp::fuzz::ScratchFile file("-launch.env");
  auto env = hcp::load_env_file(file.write(hcp::fuzz::as_text(data, size)));
  if (!env) return 0;
  auto shape = hcp::launch_shape_from(*env, std::nullopt, std::nullopt);
  if (shape && shape->world_size) {
    HCP_FUZZ_CHECK(*shape->world_size > 0, "a launch has GPUs");
  }
  return 0;
}
