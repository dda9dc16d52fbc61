// Megatron-Bridge launcher semantics the validator must reproduce (issue 15): a recipe's env_vars
// are the launch environment's defaults; the distributed optimizer is synced between ddp and
// optimizer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

std::string write_recipe(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("hcp_bridge_sem_" + std::to_string(getpid()) + "_" + name + ".yaml"))
                         .string();
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kCp2 =
    "model:\n  num_layers: 4\n  hidden_size: 1024\n  num_attention_heads: 16\n"
    "  context_parallel_size: 2\n  seq_length: 8192\ndataset:\n  seq_length: 8192\n";

TEST(BridgeSemantics, EnvVarsFeedTheEnvironmentRules) {
  // Without env_vars, CP111 cannot check CUDA_DEVICE_MAX_CONNECTIONS.
  std::string none = write_recipe("none", kCp2);
  CliResult unknown = run_cli("validate " + none + " --world-size 8");
  EXPECT_NE(unknown.out.find("launch environment unknown"), std::string::npos) << unknown.out;
  // env_vars with the wrong value: CP111 fires from the recipe's own defaults.
  std::string bad =
      write_recipe("bad", std::string(kCp2) + "env_vars:\n  CUDA_DEVICE_MAX_CONNECTIONS: 8\n");
  CliResult fired = run_cli("validate " + bad + " --world-size 8");
  EXPECT_NE(fired.out.find("[CP111]"), std::string::npos) << fired.out << fired.err;
  // --env wins over the recipe's default (os.environ.setdefault keeps the real value).
  CliResult over =
      run_cli("validate " + bad + " --world-size 8 --env CUDA_DEVICE_MAX_CONNECTIONS=1");
  EXPECT_EQ(over.out.find("[CP111]"), std::string::npos) << over.out;
  // The right default: no CP111 and the environment is known.
  std::string good =
      write_recipe("good", std::string(kCp2) + "env_vars:\n  CUDA_DEVICE_MAX_CONNECTIONS: 1\n");
  CliResult ok = run_cli("validate " + good + " --world-size 8");
  EXPECT_EQ(ok.out.find("[CP111]"), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("launch environment unknown"), std::string::npos) << ok.out;
  // An override that adds env_vars counts too.
  CliResult added =
      run_cli("validate " + none + " --world-size 8 '++env_vars={CUDA_DEVICE_MAX_CONNECTIONS:8}'");
  EXPECT_NE(added.out.find("[CP111]"), std::string::npos) << added.out << added.err;
  for (const std::string& p : {none, bad, good})
    std::filesystem::remove(p);
}

}  // namespace
}  // namespace hcp::testing
