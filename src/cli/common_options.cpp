// Helpers shared by several subcommands.
#include "common_options.h"

#include <cstdlib>

namespace hcp::cli {
namespace {

/// Rank of this process as the MPI launcher tells it (before MPI_Init); "0" outside MPI.
std::string launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(var)) return v;
  return "0";
}

/// Capture paths may hold "{rank}" so each MPI rank reads its own node's capture.
std::string per_rank(std::string path) {
  const std::string token = "{rank}";
  for (auto at = path.find(token); at != std::string::npos; at = path.find(token))
    path.replace(at, token.size(), launcher_rank());
  return path;
}

}  // namespace

Result<Topology> load_topology_captures(const std::vector<std::string>& hwloc_xml,
                                        const std::vector<std::string>& nccl_topo,
                                        const std::vector<std::string>& smi_topo) {
  Topology merged;
  bool first = true;
  auto add = [&](Result<Topology> t) -> Status {
    if (!t) return t.error();
    if (first) {
      merged = *t;
      first = false;
    } else {
      merge_topology(merged, *t);
    }
    return Ok{};
  };
  for (const auto& f : hwloc_xml)
    if (auto s = add(load_hwloc_xml(per_rank(f))); !s) return s.error();
  for (const auto& f : nccl_topo)
    if (auto s = add(load_nccl_topo(per_rank(f))); !s) return s.error();
  for (const auto& f : smi_topo)
    if (auto s = add(load_nvidia_smi_topo(per_rank(f))); !s) return s.error();
  return merged;
}

}  // namespace hcp::cli
