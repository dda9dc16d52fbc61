// End to end: `hcp-plan validate` with Megatron-LM configs (functional-test YAML detected by its
// MODEL_ARGS key, --mlm-args text and @file), --hf-config, --python / --detect-env, --env.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::run_cli;

const std::string kCorpus = "tests/fixtures/corpus/";
const std::string kHcpConfig = kCorpus + "gpt3_mcore_te_tp1_pp2_cp4_a2a_p2p_nondeterministic.yaml";

std::string temp_file(const std::string& name, const std::string& text, bool executable = false) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  if (executable) chmod(path.c_str(), 0755);
  return path;
}

TEST(ValidateMlmCli, FunctionalTestConfigIsDetectedAndClean) {
  auto r = run_cli("validate " + kHcpConfig + " --framework mlm --world-size 8");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 errors"), std::string::npos) << r.out;
}

TEST(ValidateMlmCli, MultiSectionConfigNamesTheSection) {
  auto r = run_cli("validate " + kCorpus +
                   "gpt3_mcore_reruns_resume_check_grads.yaml --framework mlm --world-size 8 "
                   "--format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["summary"]["errors"], 0);
}

TEST(ValidateMlmCli, RawArgumentsWithErrorsExitOneWithLocations) {
  auto r = run_cli(
      "validate --mlm-args '--tensor-model-parallel-size 1 --context-parallel-size 4 "
      "--cp-comm-type a2a+p2p --num-layers 4 --num-attention-heads 8 --seq-length 4096' "
      "--framework mlm --world-size 8 --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto json = nlohmann::json::parse(r.out);
  bool cp012 = false;
  for (const auto& d : json["diagnostics"]) {
    if (d["id"] == "CP012") {
      cp012 = true;
      EXPECT_EQ(d["location"]["file"], "<command line>");
      EXPECT_GT(d["location"]["column"].get<int>(), 0);
    }
  }
  EXPECT_TRUE(cp012) << r.out;
}

TEST(ValidateMlmCli, ArgsFileAndOverrides) {
  std::string args = temp_file("cli_args.txt",
                               "--tensor-model-parallel-size 2 --context-parallel-size 2\n"
                               "--num-layers 4 --num-attention-heads 8 --seq-length 4095 --bf16\n");
  auto bad = run_cli("validate --mlm-args @" + args + " --world-size 4");
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("[CP040]"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("@" + args + ":2:"), std::string::npos) << bad.out;
  auto fixed = run_cli("validate --mlm-args @" + args +
                       " model.seq_length=4096 dataset.seq_length=4096 --world-size 4");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
}

TEST(ValidateMlmCli, ShorthandFlagAfterMlmArgsKeepsItsValue) {
  // "-sl 4096": CLI11 puts "4096" in the RECIPE slot; it must go back after "-sl".
  std::string args = temp_file("cli_args_sl.txt",
                               "--tensor-model-parallel-size 2 --context-parallel-size 2\n"
                               "--num-layers 4 --num-attention-heads 8 --seq-length 4095 --bf16\n");
  auto fixed = run_cli("validate --mlm-args @" + args + " -sl 4096 --world-size 4");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_NE(fixed.out.find(": 0 errors"), std::string::npos) << fixed.out;
  auto still_bad = run_cli("validate --mlm-args @" + args + " -sl 4094 --world-size 4");
  EXPECT_EQ(still_bad.exit_code, 1) << still_bad.out << still_bad.err;
  EXPECT_NE(still_bad.out.find("seq_length 4094 % (2*2) = 2"), std::string::npos) << still_bad.out;
}

bool has_rule(const std::string& json_text, const std::string& id) {
  auto json = nlohmann::json::parse(json_text);
  for (const auto& d : json["diagnostics"])
    if (d["id"] == id) return true;
  return false;
}

// The MLM loader maps --bf16/--fp16 (absent: fp32), --qk-clip and --enable-cuda-graph, so the
// rules that read them fire for a Megatron-LM launch as they do for a Bridge recipe.
TEST(ValidateMlmCli, PrecisionQkClipAndCudaGraphFlagsReachTheRules) {
  const std::string base =
      "validate --framework mlm --world-size 4 --te-version 2.8.0 --format json --mlm-args "
      "'--tensor-model-parallel-size 2 --context-parallel-size 2 --num-layers 4 "
      "--num-attention-heads 8 --seq-length 4096";
  auto fp32 = run_cli(base + "'");
  EXPECT_EQ(fp32.exit_code, 1) << fp32.out << fp32.err;
  EXPECT_TRUE(has_rule(fp32.out, "CP074")) << fp32.out;
  auto bf16 = run_cli(base + " --bf16'");
  EXPECT_EQ(bf16.exit_code, 0) << bf16.out << bf16.err;
  EXPECT_FALSE(has_rule(bf16.out, "CP074")) << bf16.out;
  auto qk_clip = run_cli(base + " --bf16 --qk-clip'");
  EXPECT_TRUE(has_rule(qk_clip.out, "CP073")) << qk_clip.out;
  auto graph = run_cli(base +
                       " --bf16 --hybrid-context-parallel --calculate-per-token-loss "
                       "--dataloader-type single --enable-cuda-graph'");
  EXPECT_TRUE(has_rule(graph.out, "CP080")) << graph.out;
  auto impl = run_cli(base +
                      " --bf16 --hybrid-context-parallel --calculate-per-token-loss "
                      "--dataloader-type single --cuda-graph-impl local'");
  EXPECT_NE(impl.out.find("\"severity\": \"warning\""), std::string::npos) << impl.out;
}

TEST(ValidateMlmCli, BadMlmInputIsExitTwo) {
  auto r = run_cli("validate --mlm-args '--context-parallel-size four'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expects an integer"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli("validate --mlm-args @/nonexistent/args.txt").exit_code, 2);
  EXPECT_EQ(run_cli("validate " + kHcpConfig + " --mlm-args '--context-parallel-size 2'").exit_code,
            2);
  EXPECT_EQ(run_cli("validate").exit_code, 2);
}

TEST(ValidateMlmCli, HfConfigAloneWithShorthandLayout) {
  auto r = run_cli(
      "validate --hf-config tests/fixtures/hf/gpt_oss_20b.json ++model.context_parallel_size=2 "
      "++model.expert_model_parallel_size=8 --world-size 16 --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto json = nlohmann::json::parse(r.out);
  bool sinks = false;
  for (const auto& d : json["diagnostics"])
    sinks = sinks || d["id"] == "CP065";
  EXPECT_TRUE(sinks) << r.out;
  EXPECT_EQ(run_cli("validate --hf-config /nonexistent.json").exit_code, 2);
}

TEST(ValidateMlmCli, PythonEnvironmentFeedsVersionRules) {
  std::string python = temp_file("cli_fake_python",
                                 "#!/bin/sh\necho transformer_engine=1.11.0\n"
                                 "echo megatron-core=0.12.0\necho megatron-bridge=\n"
                                 "echo torch=2.5.0\necho nccl=\n",
                                 true);
  auto r = run_cli("validate llama3_8b_128k --world-size 32 --python " + python + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto json = nlohmann::json::parse(r.out);
  bool te_rule = false;
  bool missing_reported = false;
  for (const auto& d : json["diagnostics"]) {
    te_rule = te_rule || d["id"] == "CP018";
    std::string message = d["message"];
    missing_reported =
        missing_reported || message == "megatron-bridge is not installed in " + python;
  }
  EXPECT_TRUE(te_rule) << "TE 1.11 lacks a2a+p2p: " << r.out;
  EXPECT_TRUE(missing_reported) << r.out;
  auto explicit_te = run_cli("validate llama3_8b_128k --world-size 32 --te-version 2.18 --python " +
                             python + " --format json");
  EXPECT_EQ(explicit_te.out.find("\"CP018\""), std::string::npos) << "--te-version wins";
}

TEST(ValidateMlmCli, MissingInterpreterIsExitThree) {
  auto r = run_cli("validate llama3_8b_128k --python /nonexistent/python3");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("not found"), std::string::npos) << r.err;
}

TEST(ValidateMlmCli, LaunchEnvironmentOption) {
  auto r = run_cli("validate " + kHcpConfig +
                   " --framework mlm --world-size 8 --env CUDA_DEVICE_MAX_CONNECTIONS=8");
  EXPECT_EQ(r.exit_code, 1) << "--env wins over the config's ENV_VARS: " << r.out;
  EXPECT_NE(r.out.find("[CP111]"), std::string::npos) << r.out;
  auto bare = run_cli(
      "validate --mlm-args '--tensor-model-parallel-size 2 --seq-length 4096' "
      "--framework mlm --world-size 2 --env CUDA_DEVICE_MAX_CONNECTIONS=8");
  EXPECT_EQ(bare.exit_code, 1) << bare.out << bare.err;
  EXPECT_NE(bare.out.find("[CP111]"), std::string::npos) << bare.out;
  // A bare NAME is train.sh's --env, named as a launcher option (issue #29,
  // run_recipe_cli_test.cpp); a value that is another option is still bad input.
  auto name = run_cli("validate llama3_8b_128k --env NOEQUALS");
  EXPECT_EQ(name.exit_code, 0) << name.out << name.err;
  EXPECT_NE(name.out.find("launcher options ignored: --env"), std::string::npos) << name.out;
  EXPECT_EQ(run_cli("validate llama3_8b_128k --env --world-size 8").exit_code, 2);
}

}  // namespace
}  // namespace hcp
