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
    fields >> d.file >> d.world_size;
    out.push_back(d);
  }
  return out;
}

/// The one dump whose model.seq_length (16384) differs from dataset.seq_length (4096): Bridge's
/// ConfigContainer.validate rejects it (config.py, CP042).
constexpr const char* kMismatchedSeqLength = "llama3_8b_sft_gb200_fp8_mx_v1.yaml";

TEST(RealCorpus, AllBridgeDryrunDumpsAreListed) {
  EXPECT_EQ(bridge_dumps().size(), 32u);
}

TEST(RealCorpus, BridgeDryrunDumpsValidateAtTheirWorldSize) {
  for (const Dump& d : bridge_dumps()) {
    CliResult r = run_cli("validate tests/fixtures/real/bridge/" + d.file + " --world-size " +
                          std::to_string(d.world_size));
    if (d.file == kMismatchedSeqLength) {
      EXPECT_EQ(r.exit_code, 1) << d.file << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("[CP042]"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(": 1 error,"), std::string::npos) << r.out;
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << d.file << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << d.file << "\n" << r.out;
  }
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
    CliResult r = run_cli(std::string("validate --hf-config tests/fixtures/real/hf/") + name +
                          " --world-size 8 model.context_parallel_size=2");
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
