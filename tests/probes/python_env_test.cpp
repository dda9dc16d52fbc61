// Python-environment probe: a fake interpreter (a shell script written at test time) stands in
// for python3, so the tests check the fork/exec plumbing and parsing without any package.
#include "hcp/python_env.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace hcp {
namespace {

/// A folder of this process's own under the test temp folder: two test processes (shards, or two
/// checkouts' suites at once) never write or run each other's scripts.
/// Removed, with the scripts in it, when the process ends.
const std::string& scratch_dir() {
  struct Dir {
    std::string path = ::testing::TempDir() + "/hcp_python_env_" + std::to_string(getpid());
    Dir() { std::filesystem::create_directories(path); }
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

std::string fake_interpreter(const std::string& name, const std::string& body) {
  std::string path = scratch_dir() + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0755);
  return path;
}

TEST(PythonEnv, ParsesVersionsAndMissingPackages) {
  auto env = parse_python_env_output(
      "transformer_engine=2.18.0+e7c550c5\nmegatron-core=0.17.0rc1\nmegatron-bridge=\n"
      "torch=2.8.0a0+5228986c39.nv25.6\nnoise line\n",
      "python3");
  ASSERT_EQ(env.packages.size(), 5u);
  EXPECT_EQ(env.version_of("transformer_engine"), (Version{2, 18, 0, {}}));
  EXPECT_EQ(env.find("transformer_engine")->raw_version, "2.18.0+e7c550c5");
  EXPECT_EQ(env.version_of("megatron-core"), (Version{0, 17, 0, {}}));
  EXPECT_EQ(env.version_of("torch"), (Version{2, 8, 0, {}}));
  EXPECT_FALSE(env.version_of("megatron-bridge"));
  EXPECT_EQ(env.missing(), (std::vector<std::string>{"megatron-bridge", "nccl"}));
}

TEST(PythonEnv, ScriptReadsMetadataWithoutImportingPackages) {
  const std::string& script = python_env_script();
  EXPECT_NE(script.find("importlib"), std::string::npos);
  EXPECT_EQ(script.find("import transformer_engine"), std::string::npos);
  EXPECT_EQ(script.find("import torch"), std::string::npos);
  EXPECT_EQ(script.find("import megatron"), std::string::npos);
}

TEST(PythonEnv, RunsTheInterpreterWithDashC) {
  std::string python = fake_interpreter("fake_python",
                                        "[ \"$1\" = \"-c\" ] || exit 9\n"
                                        "echo transformer_engine=2.10.0\n"
                                        "echo megatron-core=0.16.1\n"
                                        "echo megatron-bridge=0.3.0\n"
                                        "echo torch=2.7.1\n"
                                        "echo nccl=2.27.3\n");
  auto env = probe_python_env(python);
  ASSERT_TRUE(env.ok()) << env.error().str();
  EXPECT_EQ(env->interpreter, python);
  EXPECT_EQ(env->version_of("transformer_engine"), (Version{2, 10, 0, {}}));
  EXPECT_EQ(env->version_of("nccl"), (Version{2, 27, 3, {}}));
  EXPECT_TRUE(env->missing().empty());
}

// Started with stdin and stdout closed (`<&- >&-`, a daemon, a launcher that closes them), the
// probe's pipe takes fds 0 and 1. Before, the write end was closed at exec and a working python3
// read as "did not answer the package probe".
TEST(PythonEnv, WorksWithStdinAndStdoutClosed) {
  std::string python = fake_interpreter("closed_fds_python",
                                        "echo transformer_engine=2.10.0\n"
                                        "echo megatron-core=0.16.1\n"
                                        "echo megatron-bridge=\n"
                                        "echo torch=2.7.1\n"
                                        "echo nccl=\n");
  EXPECT_EXIT(
      {
        close(STDIN_FILENO);
        close(STDOUT_FILENO);
        auto env = probe_python_env(python);
        bool read = env.ok() && env->version_of("megatron-core") == (Version{0, 16, 1, {}});
        _exit(read ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(PythonEnv, ErrorsAreValues) {
  auto missing = probe_python_env("/nonexistent/python3");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("not found"), std::string::npos);
  auto failing = probe_python_env(fake_interpreter("failing_python", "exit 3\n"));
  ASSERT_FALSE(failing.ok());
  EXPECT_NE(failing.error().message.find("status 3"), std::string::npos);
  auto slow = probe_python_env(fake_interpreter("slow_python", "exec sleep 5\n"), 5);
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.error().message.find("timed out"), std::string::npos);
}

// A program that exits 0 without the probe's reply (a shell script, a wrapper printing a banner,
// JSON, a flood of bytes) is not a Python environment: before, each read as "none of the CP
// packages is installed", which nobody had checked. A reply with every line, installed or not,
// is one, CRLF line ends included.
TEST(PythonEnv, AnInterpreterThatDoesNotAnswerTheProbeIsAnError) {
  const std::pair<const char*, const char*> silent[] = {
      {"prints_nothing", "exit 0\n"},
      {"prints_json", "echo '{\"transformer_engine\": \"2.10.0\"}'\n"},
      {"prints_zeros", "head -c 3000000 /dev/zero\n"},
      {"answers_in_part", "echo transformer_engine=2.10.0\necho torch=2.7.1\n"},
      {"names_in_the_middle", "echo xtransformer_engine=1\n"},
  };
  for (const auto& [name, body] : silent) {
    auto env = probe_python_env(fake_interpreter(name, body));
    ASSERT_FALSE(env.ok()) << name;
    EXPECT_NE(env.error().message.find("did not answer the package probe"), std::string::npos)
        << env.error().message;
  }
  auto none = probe_python_env(fake_interpreter(
      "nothing_installed",
      "printf 'transformer_engine=\\r\\nmegatron-core=\\r\\nmegatron-bridge=\\r\\ntorch=\\r\\n"
      "nccl=\\r\\n'\n"));
  ASSERT_TRUE(none.ok()) << none.error().str();
  EXPECT_EQ(none->missing().size(), python_env_package_names().size());
}

// Deadlines cover the whole run, not only the output: an interpreter that closes stdout (EOF on
// the pipe) and keeps running, or prints forever, is killed at the deadline.
TEST(PythonEnv, DeadlineCoversChildrenThatCloseStdoutOrNeverStop) {
  const std::pair<const char*, const char*> cases[] = {
      {"closes_stdout", "exec >&-\nexec sleep 30\n"},
      {"closes_stdout_then_forks", "exec >&-\nsleep 30 &\nwait\n"},
      {"prints_forever", "while :; do echo noise; done\n"},
  };
  // Every script is written and closed before any probe forks: a script still open for writing
  // in this process is inherited by another probe's child, and exec then fails (ETXTBSY).
  std::vector<std::string> interpreters;
  interpreters.reserve(std::size(cases));
  for (const auto& [name, body] : cases)
    interpreters.push_back(fake_interpreter(name, body));
  // The three probes run at once: each waits out its own deadline.
  std::vector<std::future<std::pair<Result<PythonEnvironment>, std::chrono::nanoseconds>>> runs;
  runs.reserve(interpreters.size());
  for (const std::string& interpreter : interpreters) {
    runs.push_back(std::async(std::launch::async, [interpreter] {
      const auto start = std::chrono::steady_clock::now();
      auto env = probe_python_env(interpreter, 50);
      return std::make_pair(std::move(env), std::chrono::steady_clock::now() - start);
    }));
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const char* name = cases[i].first;
    auto [env, took] = runs[i].get();
    ASSERT_FALSE(env.ok()) << name;
    EXPECT_NE(env.error().message.find("timed out after 50 ms"), std::string::npos)
        << name << ": " << env.error().message;
    EXPECT_EQ(env.error().message.find('\n'), std::string::npos) << name;
    EXPECT_LT(took, std::chrono::seconds(5)) << name;
  }
}

TEST(PythonEnv, FeedsTheRulesEnvironmentWithoutOverridingTheCommandLine) {
  auto py = parse_python_env_output("transformer_engine=2.12.0\nmegatron-core=0.16.0\n", "py");
  Environment env;
  env.te_version = Version{2, 18, 0, {}};
  apply_python_env(py, env);
  EXPECT_EQ(env.te_version, (Version{2, 18, 0, {}})) << "--te-version wins";
  EXPECT_EQ(env.mcore_version, (Version{0, 16, 0, {}}));
  EXPECT_FALSE(env.bridge_version);
  auto ds = python_env_diagnostics(py);
  ASSERT_EQ(ds.size(), 4u);  // summary + megatron-bridge, torch, nccl missing
  EXPECT_EQ(ds[0].severity(), Severity::kInfo);
  EXPECT_NE(ds[0].message.find("transformer_engine 2.12.0"), std::string::npos);
  EXPECT_EQ(ds[1].message, "megatron-bridge is not installed in py");
  EXPECT_EQ(ds[1].location.file, "<python py>");
}

// A bare name is looked up on PATH, as execvp would: sh is found there and fails on the script.
TEST(PythonEnv, BareNamesAreFoundOnPath) {
  auto env = probe_python_env("sh");
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.error().message.find("/sh exited with status"), std::string::npos)
      << env.error().message;
}

TEST(PythonEnv, RealPython3ReportsEveryPackage) {
  // Only a missing python3 skips: a probe that hangs past the deadline, or fails, fails the test.
  // Debian's interpreter when there is one (a version manager's `python3` shim on PATH costs more
  // than the probe; the lookup on PATH is the test above), else python3 on PATH.
  constexpr int kDeadlineMs = 10000;
  const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  auto env = probe_python_env(python, kDeadlineMs);
  if (!env.ok() && env.error().message.find("not found") != std::string::npos)
    GTEST_SKIP() << "no python3 on PATH: " << env.error().str();
  ASSERT_TRUE(env.ok()) << env.error().str();
  EXPECT_EQ(env->packages.size(), 5u);
  for (const PythonPackage& p : env->packages) {
    EXPECT_EQ(p.raw_version.empty(), !p.version.has_value()) << p.name;
  }
}

}  // namespace
}  // namespace hcp
