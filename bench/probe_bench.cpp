// Speed of the topology readers and of the findings/JSON over real captures.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <string>

#include "hcp/preflight.h"
#include "hcp/topology.h"

namespace {

std::string read_fixture(const std::string& rel) {
  std::ifstream in(std::string(HCP_FIXTURES_DIR) + "/topologies/" + rel);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void BM_ParseNvidiaSmiTopo(benchmark::State& state) {
  std::string text = read_fixture("nvidia-smi/hgx-h100_8gpu_NV18_10nic_TRUNCATED.txt");
  for (auto _ : state)
    benchmark::DoNotOptimize(hcp::parse_nvidia_smi_topo(text, "bench"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseNvidiaSmiTopo);

void BM_ParseNcclTopoDump(benchmark::State& state) {
  std::string text = read_fixture("nccl/hgx_8xA100-80GB_6xNVSwitch_4xCX6Dx-RoCE_ncclTopoDump.xml");
  for (auto _ : state)
    benchmark::DoNotOptimize(hcp::parse_nccl_topo(text, "bench"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseNcclTopoDump);

void BM_LoadHwlocXml(benchmark::State& state) {
  std::string path = std::string(HCP_FIXTURES_DIR) +
                     "/topologies/hwloc/jureca-dc-gpu_jrc0323_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml";
  for (auto _ : state)
    benchmark::DoNotOptimize(hcp::load_hwloc_xml(path));
}
BENCHMARK(BM_LoadHwlocXml)->Unit(benchmark::kMillisecond);

void BM_FindingsAndJson(benchmark::State& state) {
  auto topo = hcp::parse_nccl_topo(
      read_fixture("nccl/ibmcloud_gx3d_8xH100_4xNVSwitch_8xCX7-RoCE_ncclTopoDump.xml"), "bench");
  for (auto _ : state) {
    benchmark::DoNotOptimize(hcp::topology_findings(*topo));
    benchmark::DoNotOptimize(hcp::topology_to_json(*topo).dump());
  }
}
BENCHMARK(BM_FindingsAndJson);

}  // namespace
