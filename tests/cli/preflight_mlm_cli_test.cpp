// `hcp-plan preflight` on the Megatron-LM argument form: functional-test configs (MODEL_ARGS and
// their ENV_VARS) and raw --mlm-args lists.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::run_cli;

const std::string kNode = " --nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt";
const std::string kCorpus = "tests/fixtures/corpus/";

/// Llama-3-8B-like arguments with CP 8 over a2a: 4 KV heads cannot be split 8 ways.
const std::string kA2aArgs =
    "--tensor-model-parallel-size 1 --context-parallel-size 8 --cp-comm-type a2a "
    "--num-attention-heads 32 --group-query-attention --num-query-groups 4 --seq-length 131072 "
    "--hidden-size 4096 --num-layers 32 --bf16";

TEST(PreflightMlmCli, FunctionalTestConfigUsesItsEnvVars) {
  // The config's ENV_VARS set CUDA_DEVICE_MAX_CONNECTIONS=1, so CP111 stays quiet without --env.
  auto r = run_cli("preflight " + kCorpus +
                   "gpt3_mcore_cp2_pp2_ep2_te_4experts2parallel_nondeterministic.yaml --nodes 1" +
                   kNode + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"CUDA_DEVICE_MAX_CONNECTIONS\": \"1\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("CP111"), std::string::npos) << r.out;
}

TEST(PreflightMlmCli, RawArgumentsAreCheckedLikeARecipe) {
  auto r = run_cli("preflight --mlm-args \"" + kA2aArgs +
                   "\" --nodes 1 --env CUDA_DEVICE_MAX_CONNECTIONS=1" + kNode);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("NO-GO: 1 error", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("error: [CP032]"), std::string::npos) << r.out;
  auto fixed = run_cli("preflight --mlm-args \"" + kA2aArgs +
                       "\" --nodes 1 --env CUDA_DEVICE_MAX_CONNECTIONS=1 -cp 4" + kNode);
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
}

TEST(PreflightMlmCli, OneLaunchAtATime) {
  auto several =
      run_cli("preflight " + kCorpus + "gpt3_mcore_reruns_resume_check_grads.yaml" + kNode);
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_NE(several.err.find("the config has 5 argument sections"), std::string::npos)
      << several.err;
  auto both = run_cli("preflight llama3_8b_128k --mlm-args \"" + kA2aArgs + "\"" + kNode);
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("either RECIPE or --mlm-args"), std::string::npos) << both.err;
  auto none = run_cli("preflight" + kNode);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("give the RECIPE to check (or --mlm-args)"), std::string::npos)
      << none.err;
  auto bad = run_cli("preflight --mlm-args \"--context-parallel-size four\"" + kNode);
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << "one line: " << bad.err;
}

}  // namespace
}  // namespace hcp
