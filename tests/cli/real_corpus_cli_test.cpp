// The real-input corpus (tests/fixtures/real): configurations upstream ran or ships, each checked
// through the binary with upstream's outcome asserted. Sources: tests/fixtures/real/*/SOURCES.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

struct Dump {
  std::string file;
  int world_size = 0;
  std::string gpu;  ///< The GPU the workload config is for (b200, gb300, h100, vr200, ...).
};

/// The dryrun dumps with the world size of the workload config each came from.
std::vector<Dump> bridge_dumps() {
  std::ifstream in(HCP_SOURCE_DIR "/tests/fixtures/real/bridge/world_sizes.tsv");
  std::vector<Dump> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Dump d;
    fields >> d.file >> d.world_size >> d.gpu;
    out.push_back(d);
  }
  return out;
}

/// The one dump whose model.seq_length (16384) differs from dataset.seq_length (4096): Bridge's
/// ConfigContainer.validate rejects it (config.py, CP042).
constexpr const char* kMismatchedSeqLength = "llama3_8b_sft_gb200_fp8_mx_v1.yaml";

/// The one dump that writes pipeline_model_parallel_layout null with 61 layers on PP 8, VP 2: as
/// written MCore asserts the even split (transformer_block.py:155-159, CP008). Bridge's recipe
/// sets the layout from (PP, VP) (scripts/performance/configs/deepseek/deepseek_llm_pretrain.py
/// :69-73 -> recipes/deepseek/deepseek_v3.py:37-49 @ a9497c6: (8, 2) is embedding + 4 layers, 14
/// stages of 4, then 1 layer, MTP and loss); the dump does not record it.
constexpr const char* kLayoutNotRecorded = "deepseek_v3_pretrain_h100_fp8_sc_v2.yaml";
/// The layout as a Hydra string override (quoted for Hydra inside the shell's double quotes).
constexpr const char* kDeepSeekLayout8x2 =
    "\"model.pipeline_model_parallel_layout='Et*4|(t*4|)*14tmL'\"";

/// The validate option naming the shipped cluster profile of a dump's GPU (CP115 prices the
/// layout on its memory); VR200 has none, so CP115 is ignored for those dumps.
std::string cluster_option(const Dump& d) {
  if (d.gpu == "h100") return " --cluster dgx-h100";
  if (d.gpu == "b200") return " --cluster dgx-b200";
  if (d.gpu == "b300") return " --cluster dgx-b300";
  if (d.gpu == "gb200") return " --cluster gb200-nvl72";
  if (d.gpu == "gb300") return " --cluster gb300-nvl72";
  return " --ignore CP115";
}

TEST(RealCorpus, AllBridgeDryrunDumpsAreListed) {
  EXPECT_EQ(bridge_dumps().size(), 32u);
}

// Each ran on its GPU: plan's memory model, priced on the dump's own cluster (CP115), finds that it
// fits there, as the rules find nothing (issue #29).
TEST(RealCorpus, BridgeDryrunDumpsValidateAtTheirWorldSize) {
  for (const Dump& d : bridge_dumps()) {
    CliResult r = run_cli("validate tests/fixtures/real/bridge/" + d.file + " --world-size " +
                          std::to_string(d.world_size) + cluster_option(d));
    if (d.file == kMismatchedSeqLength) {
      EXPECT_EQ(r.exit_code, 1) << d.file << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("[CP042]"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(": 1 error,"), std::string::npos) << r.out;
      continue;
    }
    if (d.file == kLayoutNotRecorded) {
      EXPECT_EQ(r.exit_code, 1) << d.file << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("[CP008]"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(": 1 error,"), std::string::npos) << r.out;
      r = run_cli("validate tests/fixtures/real/bridge/" + d.file + " --world-size " +
                  std::to_string(d.world_size) + cluster_option(d) + " " + kDeepSeekLayout8x2);
    }
    EXPECT_EQ(r.exit_code, 0) << d.file << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << d.file << "\n" << r.out;
  }
}

TEST(RealCorpus, BridgeExampleOverrideFilesValidateAsBridgeRunsThem) {
  // tests/fixtures/real/bridge_examples/SOURCES.md: every example YAML Bridge ships runs; the one
  // key Bridge skips (optimizer.finetune_lr) is a warning that it sets nothing.
  const std::vector<std::string> files = {"llama32_3b-1b_distill_override_example.yaml",
                                          "nemotron_nano_v2_vl_override_example.yaml",
                                          "nemotron_nano_v2_vl_video.yaml",
                                          "qwen3_next_80b_a3b_finetune_override_example.yaml",
                                          "qwen25_vl_pretrain_override_example.yaml",
                                          "qwen3_vl_pretrain_override_example.yaml",
                                          "quantized_llama3_8b_pretrain_override_example.yaml"};
  for (const std::string& f : files) {
    CliResult r = run_cli("validate tests/fixtures/real/bridge_examples/" + f + " -q --wide");
    EXPECT_EQ(r.exit_code, 0) << f << "\n" << r.out << r.err;
    if (f == "qwen3_next_80b_a3b_finetune_override_example.yaml") {
      EXPECT_NE(r.out.find(": 0 errors, 1 warning"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(f + ":28:16: warning: unknown key 'optimizer.finetune_lr'"),
                std::string::npos)
          << r.out;
      continue;
    }
    EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << f << "\n" << r.out;
  }
}

TEST(RealCorpus, BridgeHcpSkillCardRecommendedPathValidates) {
  // skills/nemo-mbridge-perf-hierarchical-context-parallel/card.yaml @ 067f987d, recommended_path:
  // CP 4, a2a+p2p, hierarchical sizes [2, 2], dist.use_decentralized_pg false. On the shipped
  // 128K llama3 8B recipe (seq_length divisible by 2 x CP, as the card's constraints ask) with TE
  // above the card's 1.12 floor it passes; without the sizes it is the card's first constraint.
  const std::string base = "validate llama3_8b_128k --world-size 8 --te-version 2.18.0 -q ";
  const std::string path =
      "model.context_parallel_size=4 model.cp_comm_type=a2a+p2p "
      "model.hierarchical_context_parallel_sizes=[2,2] dist.use_decentralized_pg=false";
  CliResult ok = run_cli(base + path);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find(": 0 errors"), std::string::npos) << ok.out;
  CliResult no_sizes = run_cli(base +
                               "model.context_parallel_size=4 model.cp_comm_type=a2a+p2p "
                               "model.hierarchical_context_parallel_sizes=null "
                               "dist.use_decentralized_pg=false");
  EXPECT_EQ(no_sizes.exit_code, 1) << no_sizes.out;
  EXPECT_NE(no_sizes.out.find("[CP012]"), std::string::npos) << no_sizes.out;
  CliResult old_te =
      run_cli("validate llama3_8b_128k --world-size 8 --te-version 1.11.0 -q " + path);
  EXPECT_EQ(old_te.exit_code, 1) << old_te.out;
  EXPECT_NE(old_te.out.find("[CP018]"), std::string::npos) << old_te.out;
  CliResult decentralized = run_cli(base +
                                    "model.context_parallel_size=4 model.cp_comm_type=a2a+p2p "
                                    "model.hierarchical_context_parallel_sizes=[2,2] "
                                    "dist.use_decentralized_pg=true");
  // The card's limitation: the decentralized process-group path leaves HCP unset.
  EXPECT_EQ(decentralized.exit_code, 1) << decentralized.out;
  EXPECT_NE(decentralized.out.find("[CP017]"), std::string::npos) << decentralized.out;
}

TEST(RealCorpus, BridgeVerifiedLongContextSftRunsValidate) {
  // Megatron-Bridge model verification cards @ 067f987d (examples/model_verification_cards/
  // qwen3-8b/card.yaml and qwen3-30b-a3b/card.yaml, items sft_long_context.H100, verified
  // 2026-07-20): train.sh commands that ran with CP 2 at 32K on H100. Their parallel and CP
  // settings, on the models' Hugging Face configs (tests/fixtures/real/hf), must validate clean.
  const std::string common =
      " --launcher run_recipe --te-version 2.18.0 -q --wide --seq_length 32768 "
      "dataset.enable_offline_packing=true model.cross_entropy_loss_fusion=false ";
  // qwen3_8b_sft_32k_config: TP 4, GBS 8, MBS 1 (its recipe), the card's a2a and packing.
  const std::string qwen3_8b =
      "validate --hf-config tests/fixtures/real/hf/qwen3_8b.json -tp 4 -gb 8 -mb 1" + common +
      "+dataset.offline_packing_specs.pad_seq_to_mult=8 model.sequence_parallel=true "
      "model.cp_comm_type=a2a";
  CliResult small = run_cli(qwen3_8b + " --world-size 8 --context_parallel_size 2");
  EXPECT_EQ(small.exit_code, 0) << small.out << small.err;
  EXPECT_NE(small.out.find(": 0 errors, 0 warnings"), std::string::npos) << small.out;
  // Twice the CP on twice the GPUs is past a2a's limit: 8 KV heads / TP 4 = 2 per rank < CP 4.
  CliResult wide = run_cli(qwen3_8b + " --world-size 16 --context_parallel_size 4");
  EXPECT_EQ(wide.exit_code, 1) << wide.out;
  EXPECT_NE(wide.out.find("[CP032]"), std::string::npos) << wide.out;
  // qwen3_30b_a3b_sft_8gpu_h100_bf16_config on 2 nodes: -tp 8 -pp 1 -ep 8, CP 2 over p2p.
  CliResult moe = run_cli(
      "validate --hf-config tests/fixtures/real/hf/qwen3_30b_a3b.json --world-size 16 "
      "--context_parallel_size 2 -tp 8 -pp 1 -ep 8" +
      common +
      "+dataset.offline_packing_specs.pad_seq_to_mult=16 model.cp_comm_type=p2p "
      "model.recompute_granularity=full model.recompute_method=uniform "
      "model.recompute_num_layers=1");
  EXPECT_EQ(moe.exit_code, 0) << moe.out << moe.err;
  EXPECT_NE(moe.out.find(": 0 errors, 0 warnings"), std::string::npos) << moe.out;
}

TEST(RealCorpus, PackedSftDumpIsSeenAsPacked) {
  // llama3 70B SFT packs offline (packed_sequence_specs.packed_sequence_size 4096): at CP 2
  // with the dump's pad_seq_to_mult 1, the THD padding rule must fire (CP043).
  CliResult r = run_cli(
      "validate tests/fixtures/real/bridge/llama3_70b_sft_gb200_fp8_mx_v1.yaml --world-size 64 "
      "model.context_parallel_size=2");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[CP043]"), std::string::npos) << r.out;
}

TEST(RealCorpus, OverridesOfTheDumpsOwnPackingKeyReachTheRules) {
  // The dump writes dataset.packed_sequence_specs (Bridge a9497c6's field); an override of that
  // key must move what the packing rules read, not only the dump's copy.
  const std::string base =
      "validate tests/fixtures/real/bridge/llama3_70b_sft_gb200_fp8_mx_v1.yaml --world-size 64 "
      "-q --wide model.context_parallel_size=2 model.calculate_per_token_loss=true ";
  CliResult two = run_cli(base + "dataset.packed_sequence_specs.pad_seq_to_mult=2");
  EXPECT_EQ(two.exit_code, 1) << two.out;
  EXPECT_NE(two.out.find("<override 3>:1:47: error: [CP043] packed sub-sequences are padded to a "
                         "multiple of 2, not of 2*CP = 4"),
            std::string::npos)
      << two.out;
  CliResult four = run_cli(base + "dataset.packed_sequence_specs.pad_seq_to_mult=4");
  EXPECT_EQ(four.exit_code, 0) << four.out;
}

TEST(RealCorpus, CpSftCheckFollowsTheDumpsDatasetClass) {
  // Bridge asserts per-token loss under CP for its SFT dataset classes (isinstance, config.py:
  // 1180-1190 @ a9497c6), packed or not: the SFT dump unpacked still needs it; a pretraining
  // dump (GPTDatasetConfig) does not.
  CliResult sft = run_cli(
      "validate tests/fixtures/real/bridge/llama3_70b_sft_gb200_fp8_mx_v1.yaml --world-size 64 "
      "-q --wide model.context_parallel_size=2 "
      "dataset.packed_sequence_specs.packed_sequence_size=0");
  EXPECT_EQ(sft.exit_code, 1) << sft.out;
  EXPECT_NE(sft.out.find("[CP045]"), std::string::npos) << sft.out;
  EXPECT_EQ(sft.out.find("[CP043]"), std::string::npos) << sft.out;
  CliResult pretrain = run_cli(
      "validate tests/fixtures/real/bridge/gpt_oss_120b_pretrain_gb200_fp8_mx_v1.yaml "
      "--world-size 64 -q --wide model.context_parallel_size=2 "
      "model.calculate_per_token_loss=false");
  EXPECT_NE(pretrain.exit_code, 2) << pretrain.err;
  EXPECT_EQ(pretrain.out.find("[CP045]"), std::string::npos) << pretrain.out;
}

TEST(RealCorpus, PhiWindowsBeyondThePositionsRaiseNoCp064) {
  for (const char* name : {"phi3_5_mini_instruct.json", "phi4_mini_instruct.json"}) {
    CliResult r = run_cli(std::string("validate --hf-config tests/fixtures/real/hf/") + name +
                          " --world-size 8 model.context_parallel_size=2");
    EXPECT_EQ(r.out.find("CP064"), std::string::npos) << name << "\n" << r.out << r.err;
    EXPECT_NE(r.exit_code, 2) << r.err;
  }
}

TEST(RealCorpus, DsaHfConfigsNeedAllGatherUnderCp) {
  // MCore's DSA needs cp_comm_type allgather (CP100); p2p is rejected, allgather is not.
  for (const char* name : {"deepseek_v3_2.json", "glm5.json"}) {
    std::string base = std::string("validate --hf-config tests/fixtures/real/hf/") + name +
                       " --world-size 64 model.context_parallel_size=2 ";
    CliResult p2p = run_cli(base + "model.cp_comm_type=p2p");
    EXPECT_NE(p2p.out.find("[CP100]"), std::string::npos) << name << "\n" << p2p.out << p2p.err;
    CliResult ag = run_cli(base + "model.cp_comm_type=allgather");
    EXPECT_EQ(ag.out.find("[CP100]"), std::string::npos) << name << "\n" << ag.out;
  }
}

// Whole Hub config.json files (tests/fixtures/real/hf/SOURCES.md): each validates clean at a CP
// layout its heads and positions allow; a layout upstream rejects still fails with its ID.
TEST(RealCorpus, WholeHfConfigsValidateClean) {
  for (const char* name : {"llama3_1_8b.json", "qwen2_5_7b.json", "qwen2_5_14b.json",
                           "qwen3_8b.json", "qwen3_30b_a3b.json"}) {
    // The rules' layout at the whole context length, without recompute: plan's memory model says
    // it does not fit in 80 GB (CP115, tests/planner/memory_fit_test.cpp); here the rules are
    // what is checked.
    CliResult r = run_cli(std::string("validate --hf-config tests/fixtures/real/hf/") + name +
                          " --world-size 8 model.context_parallel_size=2 --ignore CP115");
    EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << name << "\n" << r.out;
  }
  // Qwen2.5-7B's 28 heads do not split over TP 8 (MCore's assert, CP030).
  CliResult heads = run_cli(
      "validate --hf-config tests/fixtures/real/hf/qwen2_5_7b.json --world-size 16 "
      "model.tensor_model_parallel_size=8 model.context_parallel_size=2");
  EXPECT_EQ(heads.exit_code, 1) << heads.out << heads.err;
  EXPECT_NE(heads.out.find("[CP030]"), std::string::npos) << heads.out;
}

}  // namespace
}  // namespace hcp::testing
