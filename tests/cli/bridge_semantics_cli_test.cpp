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

// run_recipe.py sets calculate_per_token_loss / average_in_collective for SFT with CP before
// ConfigContainer.validate (Megatron-Bridge 067f987d scripts/training/recipe_runner.py:350-370,
// called from scripts/training/run_recipe.py:513), so CP045 fires for a config handed to
// finetune() directly and not for the same config launched through run_recipe.py.
TEST(BridgeSemantics, RunRecipeLauncherSetsTheSftCpLossSettings) {
  std::string text = std::string(kCp2) +
                     "  enable_offline_packing: true\n  offline_packing_specs:\n"
                     "    packed_sequence_size: 8192\n    pad_seq_to_mult: 4\n"
                     "train:\n  micro_batch_size: 1\n  global_batch_size: 8\n"
                     "ddp:\n  average_in_collective: true\n";
  std::string sft = write_recipe("sft", text);
  CliResult direct = run_cli("validate " + sft + " --world-size 8 --format json");
  EXPECT_EQ(direct.exit_code, 1) << direct.out << direct.err;
  EXPECT_NE(direct.out.find("\"CP045\""), std::string::npos) << direct.out;
  CliResult explicit_direct =
      run_cli("validate " + sft + " --world-size 8 --launcher direct --format json");
  EXPECT_NE(explicit_direct.out.find("\"CP045\""), std::string::npos) << explicit_direct.out;
  CliResult runner =
      run_cli("validate " + sft + " --world-size 8 --launcher run_recipe --format json");
  EXPECT_EQ(runner.out.find("\"CP045\""), std::string::npos) << runner.out << runner.err;
  // CP=1: nothing to sync, and CP045 does not apply either way.
  CliResult cp1 = run_cli("validate " + sft + " --world-size 8 -cp 1 --launcher run_recipe");
  EXPECT_EQ(cp1.out.find("[CP045]"), std::string::npos) << cp1.out;
  // A pretraining dataset (no packing fields) is left alone by the sync.
  std::string pretrain =
      write_recipe("pretrain", std::string(kCp2) + "ddp:\n  average_in_collective: true\n");
  CliResult pre = run_cli("validate " + pretrain +
                          " --world-size 8 --launcher run_recipe "
                          "--format json");
  EXPECT_EQ(pre.out.find("\"CP045\""), std::string::npos) << pre.out;
  EXPECT_EQ(run_cli("validate " + sft + " --launcher torchrun").exit_code, 2);
  for (const std::string& p : {sft, pretrain})
    std::filesystem::remove(p);
}

}  // namespace
}  // namespace hcp::testing
