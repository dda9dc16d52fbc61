// Helpers shared by the probes tests (parsing the captures) and the preflight tests (the topology
// findings): fixture paths and a 4-GPU nvidia-smi topo matrix built row by row.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace hcp::testing {

/// Return the path of a capture under tests/fixtures/topologies/.
inline std::string topology_fixture(const std::string& rel) {
  return std::string(HCP_FIXTURES_DIR) + "/topologies/" + rel;
}

/// Return true when `v` holds `s`.
inline bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// The header of a 4-GPU, 1-NIC `nvidia-smi topo -m` matrix.
inline const std::string kSmiHeader4 =
    "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\n";

/// Return a 4-GPU `nvidia-smi topo -m` matrix with these four GPU rows.
inline std::string smi4(const std::string& row0, const std::string& row1, const std::string& row2,
                        const std::string& row3) {
  return kSmiHeader4 + row0 + "\n" + row1 + "\n" + row2 + "\n" + row3 + "\n";
}

}  // namespace hcp::testing
