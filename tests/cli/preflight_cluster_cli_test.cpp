// `hcp-plan preflight` under mpirun with one rank per "node": rank 0 prints the cluster report,
// every rank exits with the cluster verdict. Each rank reads its own capture through {rank}.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::kMpirun;
using hcp::testing::run_cli;

const std::string kFix = "tests/fixtures/preflight/";
/// The same, letting every rank finish when one exits non-zero (Open MPI aborts the others by
/// default); mpirun then exits 0, so these tests read each rank's code from kReportExit.
const std::string kMpirunAllRanks = kMpirun + " --mca orte_abort_on_non_zero_status 0";

bool have_mpirun() {
  return std::system("command -v mpirun >/dev/null 2>&1") == 0;
}

/// The preflight arguments of one group of ranks; `topo_dir` holds node{rank}.txt.
std::string preflight_args(const std::string& topo_dir, const std::string& env,
                           const std::string& python, const std::string& extra = "") {
  return "preflight llama3_8b_128k --nvidia-smi-topo '" + kFix + "cluster/" + topo_dir +
         "/node{rank}.txt' --env-file " + kFix + "cluster/" + env + " --python " + kFix + python +
         " " + extra;
}

/// Runs the command after it and reports its exit code on stderr ("rank 2 exit 1"), so a test
/// sees every rank's exit code, not only the first non-zero one mpirun returns.
const std::string kReportExit =
    "sh -c '\"$0\" \"$@\"; c=$?; echo \"rank $OMPI_COMM_WORLD_RANK exit $c\" >&2; exit $c'";

/// Run `healthy_ranks` ranks on healthy/node{rank}.txt and one last rank with `last_args`, every
/// rank reporting its own exit code on stderr (kReportExit).
hcp::testing::CliResult run_with_odd_last_rank(int healthy_ranks, const std::string& last_args) {
  std::string args = preflight_args("healthy", "healthy.env", "python_good") + " : -np 1 " +
                     kReportExit + " '" HCP_BINARY "' " + last_args;
  return run_cli(args,
                 kMpirunAllRanks + " -np " + std::to_string(healthy_ranks) + " " + kReportExit);
}

#define SKIP_WITHOUT_MPI(result)                                   \
  if ((result).err.find("built without MPI") != std::string::npos) \
  GTEST_SKIP() << "hcp-plan built without MPI"

TEST(PreflightClusterCli, FourHealthyNodesAreGoOnEveryRank) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not installed (apt-get install openmpi-bin)";
  auto r = run_cli(preflight_args("healthy", "healthy.env", "python_good"), kMpirun + " -np 4");
  SKIP_WITHOUT_MPI(r);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("GO for the cluster: 4 nodes; 0 errors", 0), 0u) << r.out;
  // One report (rank 0), four node lines.
  EXPECT_EQ(r.out.find("GO for the cluster", 1), std::string::npos) << r.out;
  for (const char* line : {"  rank 0  node0.txt  GO", "  rank 3  node3.txt  GO"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  EXPECT_NE(r.out.find("on every node"), std::string::npos) << r.out;
}

TEST(PreflightClusterCli, OddNodeMakesEveryRankExitNoGo) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not installed (apt-get install openmpi-bin)";
  // Ranks 0-2 read healthy/node{rank}.txt; rank 3 reads odd/node3.txt (4 GPUs) with NVLS off.
  auto r = run_with_odd_last_rank(3, preflight_args("odd", "nvls_off.env", "python_good"));
  SKIP_WITHOUT_MPI(r);
  for (int rank = 0; rank < 4; ++rank)
    EXPECT_NE(r.err.find("rank " + std::to_string(rank) + " exit 1"), std::string::npos)
        << "rank " << rank << "\n"
        << r.err;
  EXPECT_EQ(r.out.rfind("NO-GO for the cluster: 4 nodes, 1 failing (node3.txt)", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("node3.txt: 4 GPUs (majority: 8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[PF201] 4 GPUs visible, the launch asks for 8 per node"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[PF302] NCCL_NVLS_ENABLE differs across the nodes: 0 on node3.txt"),
            std::string::npos)
      << r.out;
}

TEST(PreflightClusterCli, DifferentTeOnOneNodeIsNamedInJson) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not installed (apt-get install openmpi-bin)";
  std::string args = preflight_args("healthy", "healthy.env", "python_good", "--format json") +
                     " : -np 1 '" + HCP_BINARY + "' " +
                     preflight_args("healthy", "healthy.env", "python_old_te", "--format json");
  auto r = run_cli(args, kMpirun + " -np 3");
  SKIP_WITHOUT_MPI(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["verdict"], "NO-GO");
  EXPECT_EQ(j["nodes"].size(), 4u);
  EXPECT_EQ(j["nodes"][3]["verdict"], "NO-GO");
  bool named = false;
  for (const auto& d : j["diagnostics"])
    if (d["id"] == "PF301" && d["hosts"] == nlohmann::json::array({"node3.txt"})) named = true;
  EXPECT_TRUE(named) << j["diagnostics"].dump(1);
}

TEST(PreflightClusterCli, BadInputOnOneRankStopsEveryRank) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not installed (apt-get install openmpi-bin)";
  // Ranks 0 and 1 read healthy captures; rank 2 asks for a capture that does not exist.
  auto r = run_with_odd_last_rank(2, preflight_args("missing", "healthy.env", "python_good"));
  SKIP_WITHOUT_MPI(r);
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_NE(r.err.find("rank " + std::to_string(rank) + " exit 2"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("rank 2  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not checked (exit 2)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

// The MPI calls live in libhcp_mpi.so, loaded only when a command joins an MPI job: without it,
// the cluster report is an environment error that names the plugin and HCP_MPI_PLUGIN.
TEST(PreflightClusterCli, MissingMpiPluginIsNamed) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not installed (apt-get install openmpi-bin)";
  auto r = run_cli(preflight_args("healthy", "healthy.env", "python_good"),
                   "HCP_MPI_PLUGIN=/nonexistent/libhcp_mpi.so " + kMpirun + " -np 1");
  SKIP_WITHOUT_MPI(r);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // the environment lacks a part
  EXPECT_NE(r.err.find("libhcp_mpi.so was not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("HCP_MPI_PLUGIN"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hcp
