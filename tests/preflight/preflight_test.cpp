// preflight module: launch shape, environment files, NCCL variables, node checks and verdict.
#include "hcp/preflight.h"

#include "preflight/preflight_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace hcp {
namespace {

using namespace preflight_fixtures;

std::vector<std::string> ids(const std::vector<Diagnostic>& ds, Severity at_least) {
  std::vector<std::string> out;
  for (const auto& d : ds)
    if (d.severity() >= at_least) out.push_back(d.id());
  return out;
}

bool has_id(const std::vector<Diagnostic>& ds, const std::string& id, Severity s) {
  return std::any_of(ds.begin(), ds.end(),
                     [&](const Diagnostic& d) { return d.id() == id && d.severity() == s; });
}

TEST(LaunchShape, SlurmUsesGpusOnNodeNotOneTaskPerNode) {
  auto s = launch_shape_from({{"SLURM_NNODES", "4"},
                              {"SLURM_NTASKS_PER_NODE", "1"},
                              {"SLURM_GPUS_ON_NODE", "8"},
                              {"SLURM_JOB_NODELIST", "dgx-[01-04]"}},
                             std::nullopt, std::nullopt);
  ASSERT_TRUE(s.ok()) << s.error().str();
  EXPECT_EQ(s->source, "slurm");
  EXPECT_EQ(s->nodes, 4);
  EXPECT_EQ(s->gpus_per_node, 8);
  EXPECT_EQ(s->world_size, 32);
  EXPECT_EQ(s->nodelist, "dgx-[01-04]");
}

TEST(LaunchShape, SlurmOneTaskPerNodeLeavesGpusUnknown) {
  auto s = launch_shape_from({{"SLURM_NNODES", "2"}, {"SLURM_NTASKS_PER_NODE", "1"}}, std::nullopt,
                             std::nullopt);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->gpus_per_node);
  EXPECT_FALSE(s->world_size);
  auto per_gpu = launch_shape_from({{"SLURM_NNODES", "2"}, {"SLURM_NTASKS_PER_NODE", "8(x2)"}},
                                   std::nullopt, std::nullopt);
  ASSERT_TRUE(per_gpu.ok()) << per_gpu.error().str();
  EXPECT_EQ(per_gpu->world_size, 16);
}

TEST(LaunchShape, TorchrunDerivesNodes) {
  auto s = launch_shape_from({{"WORLD_SIZE", "16"}, {"LOCAL_WORLD_SIZE", "8"}}, std::nullopt,
                             std::nullopt);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->source, "torchrun");
  EXPECT_EQ(s->nodes, 2);
  EXPECT_EQ(s->gpus_per_node, 8);
  EXPECT_FALSE(launch_shape_from({{"WORLD_SIZE", "12"}, {"LOCAL_WORLD_SIZE", "8"}}, std::nullopt,
                                 std::nullopt)
                   .ok());
}

TEST(LaunchShape, OpenMpiOneRankPerNode) {
  auto s = launch_shape_from({{"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"}},
                             std::nullopt, std::nullopt);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->source, "openmpi");
  EXPECT_EQ(s->nodes, 3);
  EXPECT_FALSE(s->gpus_per_node);
}

TEST(LaunchShape, CommandLineAndOverrides) {
  auto s = launch_shape_from({}, 2, 4);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->source, "command line");
  EXPECT_EQ(s->world_size, 8);
  auto over =
      launch_shape_from({{"SLURM_NNODES", "4"}, {"SLURM_GPUS_ON_NODE", "8"}}, std::nullopt, 4);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(over->source, "slurm");
  EXPECT_EQ(over->world_size, 16);
  EXPECT_FALSE(over->notes.empty());
  auto alone = launch_shape_from({}, std::nullopt, std::nullopt);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->nodes, 1);
  EXPECT_FALSE(alone->gpus_per_node);
}

TEST(LaunchShape, BadValuesAreErrors) {
  auto bad = launch_shape_from({{"SLURM_NNODES", "four"}}, std::nullopt, std::nullopt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("SLURM_NNODES='four'"), std::string::npos);
  EXPECT_FALSE(launch_shape_from({{"WORLD_SIZE", "0"}}, std::nullopt, std::nullopt).ok());
  // An empty count is not "unset": read so, SLURM_NNODES= became one node.
  for (const char* name : {"SLURM_NNODES", "SLURM_GPUS_ON_NODE", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
                           "OMPI_COMM_WORLD_SIZE"}) {
    auto empty = launch_shape_from({{"SLURM_JOB_ID", "7"}, {name, ""}}, std::nullopt, std::nullopt);
    if (std::string(name).rfind("SLURM", 0) != 0)
      empty = launch_shape_from({{name, ""}}, std::nullopt, std::nullopt);
    ASSERT_FALSE(empty.ok()) << name;
    EXPECT_EQ(empty.error().message, std::string(name) +
                                         " is set but empty (a launcher sets it "
                                         "to a positive integer)");
  }
  EXPECT_FALSE(launch_shape_from({}, 0, 8).ok());
}

TEST(EnvFile, ReadsExportsQuotesAndComments) {
  auto env = load_env_file(kDir + "slurm_4x8.env");
  ASSERT_TRUE(env.ok()) << env.error().str();
  EXPECT_EQ(env->at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
  EXPECT_EQ(env->at("NCCL_IB_HCA"), "mlx5");
  EXPECT_EQ(env->at("SLURM_NNODES"), "4");
  EXPECT_EQ(env->count("# Recorded Slurm job environment: 4 nodes x 8 GPUs, one preflight task"),
            0u);
}

TEST(EnvFile, BadLinesAndMissingFiles) {
  std::string path = ::testing::TempDir() + "/bad.env";
  std::ofstream(path) << "A=1\nnot an assignment\n";
  auto bad = load_env_file(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().location.line, 2);
  EXPECT_FALSE(load_env_file(kDir + "missing.env").ok());
}

TEST(NvlinkDomain, FullyConnectedNodesAndNone) {
  EXPECT_EQ(nvlink_domain_of(capture("dgx_h100_healthy.txt")), 8);
  EXPECT_EQ(nvlink_domain_of(capture("hgx_h100_4gpu.txt")), 4);
  EXPECT_EQ(nvlink_domain_of(Topology{}), 0);
  auto pairs = load_nvidia_smi_topo(
      HCP_FIXTURES_DIR "/topologies/nvidia-smi/pcie_8xA100-80GB_NVLink-bridge-pairs_TRUNCATED.txt");
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(nvlink_domain_of(*pairs), 2);  // NVLink bridges join GPU 0-1, 2-3, 4-5, 6-7.
  Topology cube = *pairs;                  // GPU 2-3 unlinked: blocks of 2 no longer hold.
  cube.nvlink.matrix[2][3] = cube.nvlink.matrix[3][2] = 0;
  EXPECT_EQ(nvlink_domain_of(cube), 1);
  Topology quads = *pairs;  // 0-3 and 4-7 fully meshed, no link between the halves.
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j)
      quads.nvlink.matrix[i][j] = (i != j && i / 4 == j / 4) ? 4 : 0;
  EXPECT_EQ(nvlink_domain_of(quads), 4);
}

TEST(NcclEnv, IbHcaNamingAbsentOrNoNics) {
  Topology node = capture("dgx_h100_healthy.txt");
  LaunchShape launch = shape(4, 8);
  Recipe r = recipe();
  EXPECT_TRUE(nccl_env_findings({{"NCCL_IB_HCA", "mlx5"}}, node, launch, r).empty());
  auto absent = nccl_env_findings({{"NCCL_IB_HCA", "=mlx5_0,mlx5_9"}}, node, launch, r);
  EXPECT_TRUE(has_id(absent, "PF101", Severity::kError));
  auto partial = nccl_env_findings({{"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"}}, node, launch, r);
  EXPECT_EQ(ids(partial, Severity::kWarning), std::vector<std::string>{"PF101"});
  EXPECT_TRUE(has_id(partial, "PF101", Severity::kWarning));
  auto none = nccl_env_findings({{"NCCL_IB_HCA", "^mlx5"}}, node, launch, r);
  EXPECT_TRUE(has_id(none, "PF101", Severity::kError));
}

// A value of 100,000 repeated names: each unknown name is reported once, and the findings quote
// a bounded prefix of the value with its size instead of the whole value.
TEST(NcclEnv, IbHcaOfManyRepeatedNamesGivesBoundedFindings) {
  Topology node = capture("dgx_h100_healthy.txt");
  std::string hca = "=mlx5_0:1";
  for (int i = 0; i < 100000; ++i)
    hca += ",mlx5_9";
  auto findings = nccl_env_findings({{"NCCL_IB_HCA", hca}}, node, shape(4, 8), recipe());
  size_t pf101 = 0;
  for (const Diagnostic& d : findings) {
    if (d.id() != "PF101") continue;
    ++pf101;
    EXPECT_LT(d.message.size(), 300u) << d.message.substr(0, 300);
  }
  EXPECT_EQ(pf101, 2u);  // 'mlx5_9' once, and the subset the value pins NCCL to.
  bool counted = false;
  for (const Diagnostic& d : findings)
    counted = counted || d.message.find("(100001 names, ") != std::string::npos;
  EXPECT_TRUE(counted);
  // A short value is still quoted whole.
  auto partial =
      nccl_env_findings({{"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"}}, node, shape(4, 8), recipe());
  ASSERT_FALSE(partial.empty());
  EXPECT_NE(partial.front().message.find("NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'"), std::string::npos)
      << partial.front().message;
}

TEST(NcclEnv, IbHcaNotCheckedAgainstUnnamedNics) {
  Topology unnamed = capture("hgx_h100_4gpu.txt");  // No NIC legend: ports are NIC0..NIC3.
  EXPECT_TRUE(nccl_env_findings({{"NCCL_IB_HCA", "mlx5"}}, unnamed, shape(4, 4), recipe()).empty());
}

TEST(NcclEnv, TransportSwitches) {
  Topology node = capture("dgx_h100_healthy.txt");
  Recipe r = recipe();
  EnvMap env{{"NCCL_NET", "Socket"},
             {"NCCL_IB_DISABLE", "1"},
             {"NCCL_P2P_DISABLE", "1"},
             {"NCCL_NVLS_ENABLE", "0"},
             {"NCCL_SOCKET_IFNAME", "eth0"}};
  auto multi = nccl_env_findings(env, node, shape(4, 8), r);
  for (const char* id : {"PF102", "PF103", "PF104", "PF105", "PF106"})
    EXPECT_TRUE(std::any_of(multi.begin(), multi.end(), [&](const Diagnostic& d) {
      return d.id() == id;
    })) << id;
  auto single = nccl_env_findings(env, node, shape(1, 8), r);
  EXPECT_FALSE(has_id(single, "PF103", Severity::kWarning));
  EXPECT_FALSE(has_id(single, "PF104", Severity::kWarning));
  EXPECT_TRUE(nccl_env_findings({{"NCCL_DEBUG", "INFO"}}, node, shape(4, 8), r).empty());
}

TEST(NodeFindings, HealthyNodeHasNoErrors) {
  auto ds = node_findings(capture("dgx_h100_healthy.txt"), shape(4, 8), recipe());
  EXPECT_TRUE(ids(ds, Severity::kError).empty());
}

TEST(NodeFindings, FewerGpusThanTheLaunchAsks) {
  auto ds = node_findings(capture("hgx_h100_4gpu.txt"), shape(4, 8), recipe());
  EXPECT_TRUE(has_id(ds, "PF201", Severity::kError));
  auto more = node_findings(capture("dgx_h100_healthy.txt"), shape(8, 4),
                            recipe({"model.hierarchical_context_parallel_sizes=[4,4]"}));
  EXPECT_TRUE(has_id(more, "PF201", Severity::kWarning));
  EXPECT_TRUE(has_id(node_findings(Topology{}, shape(1, 8), recipe()), "PF201", Severity::kError));
}

TEST(NodeFindings, NvlinkDownIsAnError) {
  auto ds = node_findings(capture("dgx_h100_nvlink_down.txt"), shape(4, 8), recipe());
  EXPECT_TRUE(has_id(ds, "TOPO002", Severity::kError));
}

TEST(NodeFindings, TpAndHcpA2aOutsideTheNvlinkDomain) {
  Topology four = capture("hgx_h100_4gpu.txt");
  auto ds = node_findings(four, shape(8, 4), recipe());  // HCP [8, 2] on 4-GPU domains.
  EXPECT_TRUE(has_id(ds, "PF205", Severity::kError));
  auto fits =
      node_findings(four, shape(8, 4), recipe({"model.hierarchical_context_parallel_sizes=[4,4]"}));
  EXPECT_FALSE(has_id(fits, "PF205", Severity::kError));
  auto tp =
      node_findings(four, shape(8, 4),
                    recipe({"model.tensor_model_parallel_size=8", "model.context_parallel_size=2",
                            "model.hierarchical_context_parallel_sizes=[1,2]"}));
  EXPECT_TRUE(has_id(tp, "PF204", Severity::kError));
}

TEST(NodeFindings, MultiNodeNeedsAnRdmaNic) {
  Topology node = capture("dgx_h100_healthy.txt");
  node.nics.clear();
  EXPECT_TRUE(has_id(node_findings(node, shape(4, 8), recipe()), "PF203", Severity::kError));
  EXPECT_FALSE(has_id(node_findings(node, shape(1, 8),
                                    recipe({"model.hierarchical_context_parallel_sizes=[8,1]",
                                            "model.context_parallel_size=8"})),
                      "PF203", Severity::kError));
}

TEST(RunPreflight, HealthyIsGo) {
  PreflightReport r = run_preflight(healthy_input());
  EXPECT_TRUE(r.go) << preflight_text(r);
  EXPECT_EQ(r.summary.errors, 0);
  auto j = preflight_json(r);
  EXPECT_EQ(j["verdict"], "GO");
  for (const char* key : {"verdict", "launch", "environment", "node", "diagnostics"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["launch"]["world_size"], 32);
  EXPECT_EQ(j["node"]["nvlink_domain"], 8);
  EXPECT_EQ(j["environment"]["packages"]["transformer_engine"], "2.10.0");
  EXPECT_EQ(preflight_text(r).rfind("GO: 0 errors", 0), 0u);
}

TEST(RunPreflight, OldTeIsAnEnvironmentFinding) {
  PreflightInput in = healthy_input();
  in.python = parse_python_env_output("transformer_engine=1.11.0\n", "py");
  PreflightReport r = run_preflight(in);
  EXPECT_FALSE(r.go);
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [](const PreflightFinding& f) { return f.diagnostic.id() == "CP018"; });
  ASSERT_NE(it, r.findings.end()) << preflight_text(r);
  EXPECT_EQ(it->source, "environment");
  EXPECT_EQ(it->diagnostic.severity(), Severity::kError);
  EXPECT_EQ(preflight_text(r).rfind("NO-GO: ", 0), 0u);
}

TEST(RunPreflight, RecipeProblemsStayUnderRecipe) {
  PreflightInput in = healthy_input();
  in.recipe = recipe({"model.hierarchical_context_parallel_sizes=[4,2]"});  // 8 != CP 16.
  PreflightReport r = run_preflight(in);
  EXPECT_FALSE(r.go);
  bool recipe_error = std::any_of(r.findings.begin(), r.findings.end(), [](const auto& f) {
    return f.source == "recipe" && f.diagnostic.severity() == Severity::kError;
  });
  EXPECT_TRUE(recipe_error) << preflight_text(r);
}

TEST(DriverVersion, ReadsTheKernelModuleLine) {
  std::string path = ::testing::TempDir() + "/nvidia_version";
  std::ofstream(path) << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 "
                         "18:56:32 UTC 2023\nGCC version:  gcc version 12.2.0\n";
  EXPECT_EQ(read_driver_version(path), "535.129.03");
  EXPECT_EQ(read_driver_version(kDir + "no_such_file"), "");
}

}  // namespace
}  // namespace hcp
