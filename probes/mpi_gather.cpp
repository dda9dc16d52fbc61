// Optional MPI path (built with HCP_WITH_MPI when CMake finds MPI): every rank sends its node's
// topology as JSON to rank 0, which compares the nodes.
#include <cstdlib>

#include "hcp/topology.h"

#ifdef HCP_WITH_MPI
#include <mpi.h>
#endif

namespace hcp {

bool mpi_available() {
#ifdef HCP_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool launched_under_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

#ifdef HCP_WITH_MPI
namespace {

Status gather_strings(const std::string& mine, std::vector<std::string>& all, int rank, int size) {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? size : 0);
  if (MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return Error{"MPI_Gather of message sizes failed", {}, {}};
  std::vector<int> offsets(lens.size(), 0);
  int total = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = total;
    total += lens[i];
  }
  std::string buffer(static_cast<size_t>(total), '\0');
  if (MPI_Gatherv(mine.data(), len, MPI_CHAR, buffer.data(), lens.data(), offsets.data(), MPI_CHAR,
                  0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return Error{"MPI_Gatherv of topologies failed", {}, {}};
  for (size_t i = 0; i < lens.size(); ++i)
    all.push_back(buffer.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lens[i])));
  return Ok{};
}

}  // namespace
#endif

Status mpi_gather_topologies(const Topology& mine, std::vector<Topology>& all, bool& is_root,
                             int& rank) {
  all.clear();
  is_root = true;
  rank = 0;
#ifdef HCP_WITH_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
    return Error{"MPI_Init failed", {}, {}};
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  is_root = rank == 0;
  std::vector<std::string> texts;
  Status s = gather_strings(topology_to_json(mine).dump(), texts, rank, size);
  MPI_Finalize();
  if (!s) return s;
  for (size_t i = 0; i < texts.size(); ++i) {
    auto j = nlohmann::json::parse(texts[i], nullptr, false);
    auto t = topology_from_json(j, "rank " + std::to_string(i));
    if (!t) return t.error();
    all.push_back(*t);
  }
  return Ok{};
#else
  all.push_back(mine);
  return Error{"this hcp-plan was built without MPI (install libopenmpi-dev and rebuild)", {}, {}};
#endif
}

}  // namespace hcp
