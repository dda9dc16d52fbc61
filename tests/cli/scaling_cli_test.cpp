// Bounded work (issue #28): each command's run time grows near-linearly in its input. Every test
// runs hcp-plan on an input of size n and of size 4n, a few times each, and checks that the least
// CPU time of the larger run is under 8 times that of the smaller one: linear work gives 4x, the
// n log n of sorting and the cache misses of a larger heap about 5x, a quadratic algorithm 16x.
// (Doubling with a bound of 2.5 left too little room: n log n plus a loaded CI machine measured
// 2.65x once.) CPU time of the child (user + system, from wait4) rather than wall time, so a busy
// machine does not fail the test; the sizes put the smaller run well above start-up time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp::testing {
namespace {

constexpr int64_t kSizeFactor = 4;
constexpr double kMaxGrowth = 8.0;
constexpr int kRepetitions = 3;

/// The input files written for the current test (removed when it has measured).
std::vector<std::string>& written() {
  static std::vector<std::string> paths;
  return paths;
}

/// Run hcp-plan with `args` from the source directory, output discarded; return its CPU seconds,
/// or a negative value when it did not exit with `want_exit`.
double cpu_seconds(const std::vector<std::string>& args, int want_exit) {
  std::vector<std::string> argv = {HCP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (std::string& a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    if (chdir(HCP_SOURCE_DIR) != 0) _exit(126);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != want_exit) return -1;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// The least CPU time of kRepetitions runs of each command, run in turn (a, b, a, b, ...) so that
/// a busy spell of the machine (another test shard beside this one) slows both alike; -1 when a
/// run fails.
std::pair<double, double> least_cpu_seconds(const std::vector<std::string>& a,
                                            const std::vector<std::string>& b, int want_exit) {
  double best_a = 1e300;
  double best_b = 1e300;
  for (int i = 0; i < kRepetitions; ++i) {
    const double ta = cpu_seconds(a, want_exit);
    const double tb = cpu_seconds(b, want_exit);
    if (ta < 0 || tb < 0) return {ta < 0 ? ta : best_a, tb < 0 ? tb : best_b};
    best_a = std::min(best_a, ta);
    best_b = std::min(best_b, tb);
  }
  return {best_a, best_b};
}

/// Run the command on size n and kSizeFactor * n (`args_for` builds the arguments, writing any
/// input file) and check the growth. `floor_s`: the smaller run must take at least this long, so
/// the ratio measures the work, not the start-up.
void expect_near_linear(const std::function<std::vector<std::string>(int64_t)>& args_for, int64_t n,
                        int want_exit = 0, double floor_s = 0.05) {
  const std::vector<std::string> small_args = args_for(n);
  const std::vector<std::string> large_args = args_for(kSizeFactor * n);
  const auto [small, large] = least_cpu_seconds(small_args, large_args, want_exit);
  for (const std::string& path : written())
    std::remove(path.c_str());
  written().clear();
  ASSERT_GE(small, 0) << "size " << n << " did not exit " << want_exit;
  ASSERT_GE(large, 0) << "size " << kSizeFactor * n << " did not exit " << want_exit;
  EXPECT_GE(small, floor_s) << "size " << n << " is too small to time";
  EXPECT_LT(large, kMaxGrowth * small) << "size " << n << ": " << small << " s CPU; size "
                                       << kSizeFactor * n << ": " << large << " s CPU";
}

std::string scratch(const std::string& name) {
  return ::testing::TempDir() + "/scaling_" + std::to_string(getpid()) + "_" + name;
}

std::string write_file(const std::string& name, const std::string& text) {
  std::string path = scratch(name);
  std::ofstream(path) << text;
  written().push_back(path);
  return path;
}

TEST(Scaling, ValidateMlmTestConfigSections) {
  // A Megatron-LM test config with n MODEL_ARGS_<i> sections, each with a MODEL_ENV_VARS entry.
  expect_near_linear(
      [](int64_t n) {
        std::string env = "MODEL_ENV_VARS:\n";
        std::string args;
        for (int64_t i = 0; i < n; ++i) {
          env += "  MODEL_ARGS_" + std::to_string(i) + ":\n    GPUS_PER_NODE: 8\n";
          args += "MODEL_ARGS_" + std::to_string(i) + ":\n  --num-layers: 4\n";
        }
        return std::vector<std::string>{
            "validate", write_file("sections_" + std::to_string(n) + ".yaml", env + args)};
      },
      3000);
}

TEST(Scaling, ValidateUnknownKeys) {
  // A recipe with n unknown keys: one warning each, folded in the report.
  expect_near_linear(
      [](int64_t n) {
        std::string text = "model:\n  tensor_model_parallel_size: 1\n";
        for (int64_t i = 0; i < n; ++i)
          text += "  no_such_key_" + std::to_string(i) + ": 1\n";
        return std::vector<std::string>{"validate",
                                        write_file("unknown_" + std::to_string(n) + ".yaml", text)};
      },
      5000);
}

TEST(Scaling, PlanOneNodeOfManyGpus) {
  expect_near_linear(
      [](int64_t n) {
        return std::vector<std::string>{"plan", "llama3_8b_128k",  "--nodes",
                                        "1",    "--gpus-per-node", std::to_string(n)};
      },
      262144);
}

TEST(Scaling, CompareManyOptions) {
  expect_near_linear(
      [](int64_t n) {
        std::vector<std::string> args = {"compare", "llama3_8b_128k", "--nodes", "4"};
        for (int64_t i = 0; i < n; ++i) {
          args.emplace_back("--option");
          args.emplace_back(i % 2 == 0 ? "tp=4,cp=2" : "tp=2,cp=4");
        }
        return args;
      },
      2000);
}

TEST(Scaling, GroupsWorldAndShownGroups) {
  expect_near_linear(
      [](int64_t n) {
        return std::vector<std::string>{"groups", "--world-size", std::to_string(n),    "--tp",
                                        "2",      "--show",       std::to_string(n / 4)};
      },
      262144);
}

/// `dcp` on n synthetic sequences in one step (no --global-batch), with `variant` when given.
std::vector<std::string> dcp_one_step_args(int64_t n, const char* variant) {
  std::vector<std::string> args = {"dcp",
                                   "--synthetic",
                                   "lognormal:1024:1.5:" + std::to_string(n) + ":8192",
                                   "--dp",
                                   "16",
                                   "--cp",
                                   "4",
                                   "--max-seqlen-per-dp-cp-rank",
                                   "2048"};
  if (variant != nullptr) {
    args.emplace_back("--variant");
    args.emplace_back(variant);
  }
  return args;
}

TEST(Scaling, DcpWholeInputAsOneStep) {
  expect_near_linear([](int64_t n) { return dcp_one_step_args(n, nullptr); }, 200000);
}

TEST(Scaling, DcpBucketedVariantsWholeInputAsOneStep) {
  // The bucketed variants re-bucket the leftovers for every micro-batch (they were capped at
  // 65,536 sequences a step while that cost the square of the step).
  for (const char* variant : {"dev_pr2000", "main_hybrid"}) {
    SCOPED_TRACE(variant);
    expect_near_linear([variant](int64_t n) { return dcp_one_step_args(n, variant); }, 200000);
  }
}

TEST(Scaling, SimulateHeads) {
  expect_near_linear(
      [](int64_t n) {
        return std::vector<std::string>{
            "simulate",   "--seq-length", "512",  "--heads", std::to_string(n),
            "--head-dim", "64",           "--cp", "4",       "--cp-comm-type",
            "p2p",        "--causal"};
      },
      4);
}

TEST(Scaling, CheckLogIterations) {
  // The head of a real-shaped Megatron-LM log (its arguments) and n short iteration lines (about
  // 70 bytes each: 200,000 make 14 MB, the larger run 56 MB).
  const std::string log = read_whole_file(HCP_FIXTURES_DIR "/logs/mlm_hcp_ok.log");
  const std::string head = log.substr(0, log.find("0:  [2026-11-20 10:01:00"));
  expect_near_linear(
      [&head](int64_t n) {
        std::string text = head;
        const std::string of = "/ " + std::to_string(n) + " | elapsed time per iteration (ms): ";
        for (int64_t i = 1; i <= n; ++i)
          text += " iteration " + std::to_string(i) + of + "29000.0 |\n";
        const std::string path = write_file("log_" + std::to_string(n) + ".log", text);
        return std::vector<std::string>{"check-log", path};
      },
      200000);
}

TEST(Scaling, ProbeNcclTopologyNics) {
  // An NCCL topology with 8 GPUs and n NICs under one switch.
  expect_near_linear(
      [](int64_t n) {
        std::string xml =
            "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"ffffffff\" arch=\"x86_64\" "
            "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n    <pci "
            "busid=\"ffff:ff:01.0\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" "
            "link_width=\"16\">\n";
        auto pci = [](int64_t bus, int64_t dev, const char* cls) {
          char id[32];
          std::snprintf(id, sizeof id, "%04llx:%02llx:00.0", static_cast<long long>(bus),
                        static_cast<long long>(dev));
          return std::string("      <pci busid=\"") + id + "\" class=\"" + cls +
                 "\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n";
        };
        for (int64_t g = 0; g < 8; ++g)
          xml += pci(g, 0, "0x030200");
        for (int64_t i = 0; i < n; ++i)
          xml += pci(0x100 + i / 256, i % 256, "0x020700");
        xml += "    </pci>\n  </cpu>\n</system>\n";
        return std::vector<std::string>{
            "probe", "--no-nvml",   "--gpu-name",
            "H100",  "--nccl-topo", write_file("nics_" + std::to_string(n) + ".xml", xml)};
      },
      20000);
}

TEST(Scaling, PreflightRepeatedHcaNames) {
  // The recorded 4 x 8 Slurm job with NCCL_IB_HCA naming n distinct HCAs the node does not have:
  // one PF101 finding each (a repeated name is reported once), folded in the report.
  expect_near_linear(
      [](int64_t n) {
        std::string env = read_whole_file(HCP_FIXTURES_DIR "/preflight/slurm_4x8.env");
        env += "NCCL_IB_HCA=mlx5_0";
        for (int64_t i = 0; i < n; ++i)
          env += ",mlx5_" + std::to_string(1000 + i);
        const std::string fixtures = HCP_FIXTURES_DIR;
        return std::vector<std::string>{
            "preflight",         "llama3_8b_128k",
            "--env-file",        write_file("env_" + std::to_string(n) + ".env", env + "\n"),
            "--nvidia-smi-topo", fixtures + "/preflight/dgx_h100_healthy.txt",
            "--python",          fixtures + "/preflight/python_good"};
      },
      50000, 1);
}

}  // namespace
}  // namespace hcp::testing
