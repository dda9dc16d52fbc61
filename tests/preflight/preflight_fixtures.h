// Inputs shared by the preflight tests: captures, the shipped recipe and a healthy launch.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hcp/preflight.h"

namespace hcp::preflight_fixtures {

inline const std::string kDir = HCP_FIXTURES_DIR "/preflight/";

inline Topology capture(const std::string& name) {
  auto topo = load_nvidia_smi_topo(kDir + name);
  EXPECT_TRUE(topo.ok()) << topo.error().str();
  return topo.ok() ? *topo : Topology{};
}

inline Recipe recipe(const std::vector<std::string>& overrides = {}) {
  auto r = load_recipe_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml");
  EXPECT_TRUE(r.ok()) << r.error().str();
  if (!overrides.empty()) {
    Status applied = apply_overrides(*r, overrides);
    EXPECT_TRUE(applied.ok()) << applied.error().str();
  }
  return *r;
}

inline LaunchShape shape(int64_t nodes, int64_t gpus) {
  auto s = launch_shape_from({}, nodes, gpus);
  EXPECT_TRUE(s.ok());
  return *s;
}

/// A healthy DGX H100 node of a 4 x 8 launch with a current Python environment.
inline PreflightInput healthy_input() {
  PreflightInput in;
  in.recipe = recipe();
  in.launch = shape(4, 8);
  in.node = capture("dgx_h100_healthy.txt");
  in.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  in.python = parse_python_env_output(
      "transformer_engine=2.10.0\nmegatron-core=0.16.1\nmegatron-bridge=0.3.0\ntorch=2.7.1\n"
      "nccl=2.27.3\n",
      "py");
  return in;
}

}  // namespace hcp::preflight_fixtures
