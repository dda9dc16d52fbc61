// The pre-commit hook script (scripts/hcp-plan-hook.sh) in a clean clone: no binary anywhere, so
// it builds hcp-plan once with cmake (a stand-in cmake here, which records its arguments and
// "builds" a wrapper around the real binary), reuses it, and says how when it cannot build.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_shell;

const std::string kRecipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";
const std::string kBad = HCP_FIXTURES_DIR "/report/bad_hcp.yaml";
const std::string kCluster = " --nodes 4 --gpus-per-node 8 --te-version 2.18.0";

/// A clone of the repository as pre-commit checks it out, reduced to the hook script, with a
/// stand-in cmake that logs its arguments.
struct CleanClone {
  fs::path root;
  fs::path log;
  explicit CleanClone(const std::string& cmake_body) {
    root = fs::temp_directory_path() /
           ("hcp_hook_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root / "scripts");
    for (const char* script : {"hcp-plan-hook.sh", "hcp-plan-locate.sh"})
      fs::copy_file(HCP_SOURCE_DIR "/scripts/" + std::string(script), root / "scripts" / script);
    log = root / "cmake.log";
    std::ofstream(root / "fake-cmake") << "#!/bin/sh\necho \"$*\" >> '" << log.string() << "'\n"
                                       << cmake_body;
    fs::permissions(root / "fake-cmake", fs::perms::owner_all);
  }
  ~CleanClone() { fs::remove_all(root); }

  /// Run the hook from the clone with no hcp-plan on PATH and no HCP_PLAN_BIN.
  CliResult hook(const std::string& args, const std::string& cmake = "") const {
    return run_shell("cd '" + root.string() + "' && env -u HCP_PLAN_BIN PATH=/usr/bin:/bin " +
                     "HCP_PLAN_CMAKE='" + (cmake.empty() ? (root / "fake-cmake").string() : cmake) +
                     "' scripts/hcp-plan-hook.sh " + args);
  }
};

/// The stand-in's build step writes build/hcp-plan, a wrapper of the real binary.
const std::string kBuildsWrapper =
    "if [ \"$1\" = --build ]; then printf '#!/bin/sh\\nexec %s \"$@\"\\n' '" HCP_BINARY
    "' > \"$2/hcp-plan\"; chmod +x \"$2/hcp-plan\"; fi\n";

bool hcp_plan_on_system_path() {
  return run_shell("PATH=/usr/bin:/bin command -v hcp-plan").exit_code == 0;
}

TEST(PreCommitHook, BuildsTheBinaryOnceInACleanClone) {
  if (hcp_plan_on_system_path()) GTEST_SKIP() << "hcp-plan is installed in /usr/bin";
  CleanClone clone(kBuildsWrapper);
  CliResult first = clone.hook("--format gcc '" + kRecipe + "'" + kCluster);
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.err.find("building hcp-plan once in " + (clone.root / "build").string()),
            std::string::npos)
      << first.err;
  std::string calls = read_whole_file(clone.log.string());
  std::string root = clone.root.string();
  EXPECT_NE(calls.find("-S " + root + " -B " + root +
                       "/build -DCMAKE_BUILD_TYPE=Release "
                       "-DHCP_BUILD_TESTS=OFF -DHCP_BUILD_BENCHMARKS=OFF -DHCP_CUDA=OFF\n"),
            std::string::npos)
      << calls;
  EXPECT_NE(calls.find("--build " + root + "/build --target hcp-plan -j "), std::string::npos)
      << calls;
  // Later runs use the built binary: no second build; errors fail the hook with their line.
  CliResult second = clone.hook("--format gcc '" + kBad + "'" + kCluster);
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_NE(second.out.find(kBad + ":25:"), std::string::npos) << second.out;
  EXPECT_EQ(second.err.find("building"), std::string::npos) << second.err;
  EXPECT_EQ(read_whole_file(clone.log.string()), calls);
}

TEST(PreCommitHook, WithoutBinaryOrCmakeSaysHow) {
  if (hcp_plan_on_system_path()) GTEST_SKIP() << "hcp-plan is installed in /usr/bin";
  CleanClone clone("");
  CliResult r = clone.hook("'" + kRecipe + "'", "/nonexistent/cmake");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no hcp-plan binary and no cmake to build one: set HCP_PLAN_BIN"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("make deps"), std::string::npos) << r.err;
}

TEST(PreCommitHook, AFailedBuildShowsItsLogTail) {
  if (hcp_plan_on_system_path()) GTEST_SKIP() << "hcp-plan is installed in /usr/bin";
  CleanClone clone("echo 'CMake Error: Could not find yaml-cpp'\nexit 1\n");
  CliResult r = clone.hook("'" + kRecipe + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("CMake Error: Could not find yaml-cpp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the build failed"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(clone.root / "build/hcp-plan"));
}

TEST(PreCommitHook, HcpPlanBinMustBeExecutable) {
  CleanClone clone("");
  CliResult r =
      run_shell("cd '" + clone.root.string() +
                "' && HCP_PLAN_BIN=/nonexistent/hcp-plan scripts/hcp-plan-hook.sh x.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("HCP_PLAN_BIN=/nonexistent/hcp-plan is not an executable file"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(clone.log));
}

}  // namespace
}  // namespace hcp
