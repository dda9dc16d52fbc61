// End to end: Megatron-LM arguments are checked against the flags Megatron-LM's parser knows
// (generated from upstream by scripts/gen_mlm_flags.py), in --mlm-args text, @FILE argument
// lists and functional-test model_config.yaml, in every command that reads them; fix hints for
// Megatron-LM inputs speak Megatron-LM flag names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = "tests/fixtures/corpus/gpt3_mcore_te_tp2_pp2_cp2.yaml";

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("hcp_mlm_flags_" + std::to_string(getpid()) + "_" + name))
      .string();
}

/// A copy of the corpus config with its --context-parallel-size flag misspelt.
std::string misspelt_config() {
  std::string text = read_whole_file(std::string(HCP_SOURCE_DIR) + "/" + kCorpus);
  std::string typo =
      std::regex_replace(text, std::regex("--context-parallel-size:"), "--context-paralel-size:");
  EXPECT_NE(typo, text);
  std::string path = temp_path("model_config.yaml");
  std::ofstream(path) << typo;
  return path;
}

TEST(MlmFlags, UnknownFlagInMlmArgsIsBadInputWithDidYouMean) {
  // Before: exit 0 with CP silently 1.
  auto r =
      run_cli("validate --mlm-args '--context-paralel-size 4 --seq-length 8192' --world-size 4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown Megatron-LM argument '--context-paralel-size' (did you mean "
                       "'--context-parallel-size'?)"),
            std::string::npos)
      << r.err;
}

TEST(MlmFlags, UnknownFlagInModelConfigIsLocatedInEveryFormat) {
  std::string path = misspelt_config();
  auto text = run_cli("validate " + path);
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find(path + ":"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("did you mean '--context-parallel-size'?"), std::string::npos);
  auto json = run_cli("validate " + path + " --format json");
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(json.out.find("\"key\": \"--context-paralel-size\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"framework\": \"mlm\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"fix\": \"use '--context-parallel-size'\""), std::string::npos)
      << json.out;
  auto sarif = run_cli("validate " + path + " --format sarif");
  EXPECT_EQ(sarif.exit_code, 2);
  EXPECT_NE(sarif.out.find("--context-paralel-size"), std::string::npos);
  fs::remove(path);
}

TEST(MlmFlags, EveryCommandReadingMlmInputsRejectsTheTypo) {
  std::string config = misspelt_config();
  std::string args = temp_path("args.txt");
  std::ofstream(args) << "--num-layers 4\n--sequnce-parallel  # typo\n";
  for (const std::string& command :
       {"plan " + config + " --nodes 1", "groups " + config + " --world-size 8",
        "preflight " + config + " --nodes 1", "compare " + config + " --option tp=2",
        "plan --mlm-args @" + args + " --nodes 1"}) {
    SCOPED_TRACE(command);
    auto r = run_cli(command);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("unknown Megatron-LM argument"), std::string::npos) << r.err;
  }
  auto r = run_cli("validate --mlm-args @" + args);
  EXPECT_NE(r.err.find("@" + args +
                       ":2:1: unknown Megatron-LM argument '--sequnce-parallel' "
                       "(did you mean '--sequence-parallel'?)"),
            std::string::npos)
      << r.err;
  fs::remove(config);
  fs::remove(args);
}

TEST(MlmFlags, PrefixesAreNotAbbreviations) {
  // allow_abbrev=False upstream: a unique prefix is still an unknown flag.
  auto r = run_cli("validate --mlm-args '--context-parallel 2' --world-size 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'--context-parallel'"), std::string::npos) << r.err;
}

TEST(MlmFlags, KnownButUnmodelledFlagsAreAccepted) {
  auto r = run_cli(
      "validate --mlm-args '--log-interval 1 --bf16 --use-distributed-optimizer "
      "--context-parallel-size 2 --seq-length 8192 --num-layers 2 --hidden-size 1024 "
      "--num-attention-heads 16' --world-size 2 --te-version 2.8.0");
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("unknown Megatron-LM argument"), std::string::npos) << r.err;
}

TEST(MlmFlags, FixHintsSpeakMlmFlagNames) {
  // CP 3 on 4096 tokens: the sequence rule fires; its fix names MLM flags.
  auto mlm = run_cli(
      "validate --mlm-args '--context-parallel-size 3 --seq-length 4096 --num-layers 4 "
      "--hidden-size 1024 --num-attention-heads 16' --world-size 3");
  EXPECT_EQ(mlm.exit_code, 1) << mlm.err;
  EXPECT_NE(mlm.out.find("fix: make --seq-length a multiple of 2 * --context-parallel-size"),
            std::string::npos)
      << mlm.out;
  // The same recipe in Bridge form keeps Bridge names; --framework mlm switches them.
  auto bridge = run_cli("validate llama3_8b_128k model.context_parallel_size=3 --world-size 24");
  EXPECT_NE(bridge.out.find("context_parallel_size"), std::string::npos);
  EXPECT_EQ(bridge.out.find("--context-parallel-size"), std::string::npos) << bridge.out;
  auto forced = run_cli(
      "validate llama3_8b_128k model.context_parallel_size=3 --world-size 24 --framework mlm "
      "--format json");
  EXPECT_NE(forced.out.find("--context-parallel-size"), std::string::npos) << forced.out;
}

TEST(MlmFlags, PreflightFixHintsSpeakMlmFlagNames) {
  // TP 4 on NVLink-bridge pairs: PF204's fix names the MLM flag for an MLM launch.
  const std::string node =
      " --nodes 1 --wide --nvidia-smi-topo "
      "tests/fixtures/topologies/nvidia-smi/pcie_8xA100-80GB_NVLink-bridge-pairs_TRUNCATED.txt";
  auto mlm = run_cli(
      "preflight --mlm-args '--tensor-model-parallel-size 4 --num-layers 4 --hidden-size 1024 "
      "--num-attention-heads 16 --seq-length 4096'" +
      node);
  EXPECT_NE(mlm.out.find("[PF204]"), std::string::npos) << mlm.out << mlm.err;
  EXPECT_NE(mlm.out.find("fix: keep --tensor-model-parallel-size within the NVLink domain"),
            std::string::npos)
      << mlm.out;
  auto bridge = run_cli("preflight llama32_1b_128k -tp 4 -cp 2 model.cp_comm_type=p2p" + node);
  EXPECT_NE(bridge.out.find("fix: keep tensor_model_parallel_size within"), std::string::npos)
      << bridge.out;
}

}  // namespace
}  // namespace hcp::testing

namespace hcp::testing {
namespace {

const std::string kLlama128k =
    "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 "
    "--group-query-attention --num-query-groups 8 --seq-length 131072 "
    "--max-position-embeddings 131072 --micro-batch-size 1 --global-batch-size 32 --bf16 "
    "--context-parallel-size 8";

// Before: "recompute none" and CP115's OOM whatever the recompute flags said.
TEST(MlmFlags, RecomputeFlagsArePriced) {
  auto none = run_cli("plan --nodes 4 --top 1 --mlm-args '" + kLlama128k + "'");
  EXPECT_NE(none.out.find("recompute none"), std::string::npos) << none.out;
  for (const std::string& flags :
       {std::string("--recompute-granularity full --recompute-method uniform "
                    "--recompute-num-layers 1"),
        std::string("--recompute-granularity selective"), std::string("--recompute-activations")}) {
    auto plan = run_cli("plan --nodes 4 --top 1 --mlm-args '" + kLlama128k + " " + flags + "'");
    EXPECT_EQ(plan.exit_code, 0) << flags << plan.err;
    const bool full = flags.find("full") != std::string::npos;
    EXPECT_NE(plan.out.find(full ? "recompute full" : "recompute selective"), std::string::npos)
        << flags << ": " << plan.out;
  }
  auto oom = run_cli("validate --world-size 32 --mlm-args '" + kLlama128k + "'");
  EXPECT_NE(oom.out.find("CP115"), std::string::npos) << oom.out;
  auto fits = run_cli("validate --world-size 32 --mlm-args '" + kLlama128k +
                      " --recompute-granularity full --recompute-method uniform "
                      "--recompute-num-layers 1'");
  EXPECT_EQ(fits.out.find("CP115"), std::string::npos) << fits.out;
}

// Before: exit 0, "0 errors"; Megatron-LM's argparse stops at "invalid choice".
TEST(MlmFlags, ValueOutsideArgparseChoicesIsBadInput) {
  auto r =
      run_cli("validate --world-size 32 -q --mlm-args '" + kLlama128k + " --fp8-format banana'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--fp8-format: invalid choice 'banana'; Megatron-LM's argparse accepts "
                       "only 'e4m3', 'hybrid'"),
            std::string::npos)
      << r.err;
  auto dash = run_cli("validate --world-size 32 -q --mlm-args '" + kLlama128k +
                      " -- --context-parallel-size 2'");
  EXPECT_EQ(dash.exit_code, 2);
  EXPECT_NE(dash.err.find("'--' ends the options"), std::string::npos) << dash.err;
}

}  // namespace
}  // namespace hcp::testing
