// Helpers shared by several subcommands: reading topology captures given on the command line.
#pragma once

#include <string>
#include <vector>

#include "hcp/topology.h"

namespace hcp::cli {

/// Load and merge topology captures (hwloc XML, NCCL topology XML, `nvidia-smi topo -m` text),
/// in that order. A path may hold "{rank}", replaced by the MPI launcher's rank of this process
/// so each rank reads its own node's capture. Error (bad input) on the first unreadable file.
Result<Topology> load_topology_captures(const std::vector<std::string>& hwloc_xml,
                                        const std::vector<std::string>& nccl_topo,
                                        const std::vector<std::string>& smi_topo);

}  // namespace hcp::cli
