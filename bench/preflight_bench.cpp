// Speed of one node's preflight and of rank 0's cluster report (parsing every node's JSON and
// merging), up to a 1,024-node job.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "hcp/preflight.h"

namespace {

hcp::PreflightInput node_input(int nodes) {
  hcp::PreflightInput in;
  in.recipe = *hcp::load_recipe_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml");
  in.launch = *hcp::launch_shape_from({}, nodes, 8);
  in.node = *hcp::load_nvidia_smi_topo(HCP_FIXTURES_DIR "/preflight/dgx_h100_healthy.txt");
  in.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}, {"NCCL_IB_HCA", "mlx5"}};
  in.python = hcp::parse_python_env_output(
      "transformer_engine=2.10.0\nmegatron-core=0.16.1\ntorch=2.7.1\nnccl=2.27.3\n", "py");
  return in;
}

void BM_PreflightOneNode(benchmark::State& state) {
  hcp::PreflightInput in = node_input(4);
  for (auto _ : state)
    benchmark::DoNotOptimize(hcp::run_preflight(in));
}
BENCHMARK(BM_PreflightOneNode)->Unit(benchmark::kMicrosecond);

/// Rank 0's work: every node's wire text parsed back, merged, compared and formatted.
void BM_ClusterReport(benchmark::State& state) {
  int nodes = static_cast<int>(state.range(0));
  hcp::PreflightInput in = node_input(nodes);
  std::vector<std::string> messages;
  for (int rank = 0; rank < nodes; ++rank) {
    hcp::NodePreflight node;
    node.rank = rank;
    node.host = "node" + std::to_string(rank);
    node.report = hcp::run_preflight(in);
    node.topology = in.node;
    messages.push_back(hcp::node_preflight_to_json(node).dump());
  }
  for (auto _ : state) {
    std::vector<hcp::NodePreflight> all;
    for (size_t rank = 0; rank < messages.size(); ++rank)
      all.push_back(*hcp::node_preflight_from_json(nlohmann::json::parse(messages[rank]), "bench"));
    auto report = hcp::aggregate_preflight(std::move(all));
    benchmark::DoNotOptimize(hcp::cluster_preflight_text(report));
  }
  state.SetComplexityN(nodes);
}
BENCHMARK(BM_ClusterReport)->Arg(8)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
