// No NaN or inf is printed anywhere (issue 28): every command, in every output format, over inputs
// that are hostile but accepted (bandwidths, TFLOP/s and memory at the edges of their physical
// ranges, sequences of 1 and 2^31 - 1 tokens, step times of a nanosecond and of a week, world
// sizes at the 2^20 cap) prints only finite numbers, on stdout, on stderr and in -o files.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "cli/cli_runner.h"
#include "support/scratch_dir.h"

namespace hcp {
namespace {

using testing::CliResult;

/// A scratch directory whose path holds no "nan" or "inf" (the reports echo input paths).
class Edge : public testing::ScratchDir {
 public:
  Edge() : ScratchDir("hcp_edge") {}
};

/// The first non-finite token ("nan", "-nan", "inf", "-inf", "infinity", as C++ streams, printf
/// and to_string write them) in `text` with what precedes it, or "" when there is none. Words
/// such as "info" and prose such as "gives NaN" are not numbers.
std::string first_non_finite(const std::string& text) {
  static const std::regex token("(^|[^A-Za-z0-9_])(-?nan|-?inf|infinity)($|[^A-Za-z0-9_])");
  std::smatch m;
  if (!std::regex_search(text, m, token)) return "";
  const size_t at = static_cast<size_t>(m.position(0));
  return text.substr(at < 120 ? 0 : at - 120, 160);
}

/// `text` with every line "KEY: VALUE" of a cluster profile whose key is in `values` replaced.
std::string with_fields(std::string text,
                        const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [key, value] : values) {
    size_t at = text.find("\n" + key + ":");
    if (at == std::string::npos) continue;
    size_t end = text.find('\n', at + 1);
    text.replace(at + 1, end - at - 1, key + ": " + value);
  }
  return text;
}

/// A calibration file whose summary figures are all `value`.
std::string calibration_with(const std::string& value) {
  std::string text =
      testing::read_whole_file(HCP_SOURCE_DIR "/tests/fixtures/calibration/h100_node.json");
  for (const char* key : {"attention_tflops", "intra_node_a2a_gbps", "intra_node_p2p_gbps",
                          "inter_node_a2a_gbps", "inter_node_p2p_gbps"}) {
    const std::string quoted = "\"" + std::string(key) + "\": ";
    size_t at = text.find(quoted);
    size_t end = text.find_first_of(",\n}", at + quoted.size());
    text.replace(at + quoted.size(), end - at - quoted.size(), value);
  }
  return text;
}

/// A Megatron-LM log whose iterations alternate between `step_ms` values and TFLOP/s values.
std::string log_with(const std::string& world, const std::vector<std::string>& step_ms,
                     const std::vector<std::string>& tflops) {
  std::string text =
      "------------------------ arguments ------------------------\n"
      "  world_size ...................................... " +
      world +
      "\n  context_parallel_size ........................... 1\n"
      "-------------------- end of arguments ---------------------\n";
  for (int i = 1; i <= 30; ++i) {
    text += " [2024-06-01 10:00:00] iteration " + std::to_string(i) +
            "/     100 | consumed samples:           32 | elapsed time per iteration (ms): " +
            step_ms[i % step_ms.size()] +
            " | throughput per GPU (TFLOP/s/GPU): " + tflops[i % tflops.size()] + " |\n";
  }
  return text;
}

/// The inputs of the test, written once into a scratch directory.
struct EdgeInputs {
  Edge dir;
  std::string slow_profile, fast_profile, one_gpu_profile, slow_cal, fast_cal;
  std::string fast_log, slow_log, mixed_log, tiny_lengths, huge_lengths;

  EdgeInputs() {
    const std::string profile =
        testing::read_whole_file(HCP_SOURCE_DIR "/recipes/clusters/dgx-h100.yaml");
    slow_profile = dir.write("slow.yaml", with_fields(profile, {{"nvlink_gbps_per_gpu", "0.001"},
                                                                {"pcie_gbps_per_gpu", "0.001"},
                                                                {"nic_gbits", "0.001"},
                                                                {"bf16_dense_tflops", "0.001"},
                                                                {"gpu_memory_gib", "0.001"}}));
    fast_profile = dir.write("fast.yaml", with_fields(profile, {{"nvlink_gbps_per_gpu", "1e5"},
                                                                {"pcie_gbps_per_gpu", "1e5"},
                                                                {"nic_gbits", "1e6"},
                                                                {"bf16_dense_tflops", "1e6"},
                                                                {"gpu_memory_gib", "1e6"}}));
    one_gpu_profile = dir.write(
        "one.yaml", with_fields(profile, {{"gpus_per_node", "1"}, {"nvlink_domain", "1"}}));
    slow_cal = dir.write("slow.json", calibration_with("0.001"));
    fast_cal = dir.write("fast.json", calibration_with("100000"));
    fast_log = dir.write("fast.log", log_with("1", {"1e-9"}, {"0.001"}));
    slow_log = dir.write("slow.log", log_with("1048576", {"6.048e8"}, {"1e6"}));
    mixed_log = dir.write("mixed.log", log_with("8", {"1e-9", "6.048e8"}, {"0.001", "1e6"}));
    std::string ones;
    for (int i = 0; i < 64; ++i)
      ones += "1\n";
    tiny_lengths = dir.write("tiny.txt", ones);
    huge_lengths = dir.write("huge.txt", "2147483647\n1\n2147483647\n1\n");
  }
};

/// One command line (without --format) and the formats it takes.
struct EdgeCommand {
  std::string args;
  std::vector<std::string> formats;
};

std::vector<EdgeCommand> edge_commands(const EdgeInputs& in) {
  const std::vector<std::string> report = {"text", "json", "sarif", "junit", "github", "gcc"};
  const std::vector<std::string> plan = {"text", "json", "html"};
  const std::vector<std::string> plain = {"text", "json"};
  const std::string r = "llama3_8b_128k ";
  const std::string dcp = " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank ";
  std::vector<EdgeCommand> out = {
      {"plan " + r + "--nodes 2 --gpus-per-node 8 --cluster " + in.slow_profile, plan},
      {"plan " + r + "--nodes 2 --gpus-per-node 8 --cluster " + in.fast_profile, plan},
      {"plan " + r +
           "model.seq_length=1 dataset.seq_length=1 --nodes 1 --gpus-per-node 8 "
           "--cluster " +
           in.fast_profile,
       plan},
      {"plan " + r +
           "model.seq_length=2147483647 dataset.seq_length=2147483647 "
           "model.max_position_embeddings=2147483647 --nodes 2 --gpus-per-node 8",
       plan},
      {"plan " + r + "--nodes 1 --gpus-per-node 1 --cluster " + in.one_gpu_profile, plan},
      {"plan " + r + "--nodes 1 --gpus-per-node 8 --calibration " + in.slow_cal, plan},
      {"plan " + r + "--nodes 1 --gpus-per-node 8 --calibration " + in.fast_cal, plan},
      {"plan " + r + "--nodes 1024 --gpus-per-node 1024", {"json"}},  // the 2^20 cap
      {"compare " + r + "--nodes 2 --gpus-per-node 8 --cluster " + in.slow_profile +
           " --option tp=1,cp=16,cp_comm_type=p2p --option tp=2,cp=8,cp_comm_type=a2a+p2p,hcp=2x4",
       plan},
      {"compare " + r + "--nodes 2 --gpus-per-node 8 --cluster " + in.fast_profile +
           " --option tp=1,cp=16,cp_comm_type=p2p",
       plan},
      {"validate recipes/llama3_8b_128k.yaml --world-size 1048576", report},
      {"validate recipes/llama3_8b_128k.yaml model.seq_length=1 dataset.seq_length=1 "
       "--world-size 8",
       report},
      {"check-log " + in.fast_log, report},
      {"check-log " + in.slow_log, report},
      {"check-log " + in.mixed_log + " " + r, report},
      {"groups " + r + "--world-size 65536", plain},
      {"dcp --lengths " + in.tiny_lengths + dcp + "2147483647", plain},
      {"dcp --lengths " + in.huge_lengths + dcp + "2147483647", plain},
      {"dcp --lengths " + in.tiny_lengths + dcp + "1 --variant dev_pr2000", plain},
      {"dcp --lengths " + in.tiny_lengths + dcp + "1 --variant main_hybrid", plain},
      {"dcp " + r + "--synthetic lognormal:1:0:64:1 --global-batch 32" + dcp + "1", plain},
      {"simulate --seq-length 4 --heads 1 --head-dim 1 --cp 1 --cp-comm-type p2p", plain},
      {"simulate --seq-length 8 --heads 2 --head-dim 1 --cp 2 --cp-comm-type a2a --causal", plain},
      {"accuracy --no-lomo", plain},  // the refits take minutes under ASan; the slices print alike
      {"recipes", plain},
      {"rules", plain},
      {"preflight " + r + "--nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt", plain},
      {"probe --no-nvml --nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt", plain},
  };
  return out;
}

TEST(FiniteOutput, NoCommandPrintsNanOrInfInAnyFormat) {
  EdgeInputs in;
  ASSERT_EQ(first_non_finite(in.slow_profile + in.dir.path("")), "") << "scratch path";
  for (const EdgeCommand& c : edge_commands(in)) {
    for (const std::string& format : c.formats) {
      const std::string file = in.dir.path("report." + format);
      const std::string line = c.args + " --format " + format + " -o " + file;
      CliResult r = testing::run_shell("cd '" HCP_SOURCE_DIR "' && timeout 60 '" HCP_BINARY "' " +
                                       line + " < /dev/null");
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << line << "\n" << r.err;
      const std::string written = testing::read_whole_file(file);
      EXPECT_FALSE(written.empty()) << line << "\n" << r.err;
      EXPECT_EQ(first_non_finite(written), "") << line;
      EXPECT_EQ(first_non_finite(r.out), "") << line;
      EXPECT_EQ(first_non_finite(r.err), "") << line;
      std::remove(file.c_str());
    }
  }
}

TEST(FiniteOutput, TheCheckFindsNonFiniteTokens) {
  // The detector itself: it finds what C++ prints for NaN and inf, not words or prose.
  for (const char* text : {"time: nan ms", "\"x\": -nan,", "speed-up inf", "-inf", "1 infinity"}) {
    EXPECT_NE(first_non_finite(text), "") << text;
  }
  for (const char* text : {"info: ok", "inference", "averaging gives NaN", "Infiniband", "nano"}) {
    EXPECT_EQ(first_non_finite(text), "") << text;
  }
}

}  // namespace
}  // namespace hcp
