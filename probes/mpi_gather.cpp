// Optional MPI path (built with HCP_WITH_MPI when CMake finds MPI): joining the launcher's MPI
// world, gathering every rank's text on rank 0 and broadcasting rank 0's verdict; the probe's
// topology gather on top of it.
#include <cstdlib>

#include "hcp/json_io.h"
#include "hcp/mpi_world.h"
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

Result<std::unique_ptr<MpiWorld>> MpiWorld::join() {
  std::unique_ptr<MpiWorld> world(new MpiWorld());
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
      return Error{"MPI_Init failed", Location{"<mpi>", 0, 0}, ""};
    world->finalize_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &world->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world->size_);
  return world;
}

MpiWorld::~MpiWorld() {
  if (finalize_) MPI_Finalize();
}

Result<std::vector<std::string>> MpiWorld::gather_on_root(const std::string& mine) {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(is_root() ? size_ : 0);
  if (MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return Error{"MPI_Gather of message sizes failed", Location{"<mpi>", 0, 0}, ""};
  std::vector<int> offsets(lens.size(), 0);
  int total = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = total;
    total += lens[i];
  }
  std::string buffer(static_cast<size_t>(total), '\0');
  if (MPI_Gatherv(mine.data(), len, MPI_CHAR, buffer.data(), lens.data(), offsets.data(), MPI_CHAR,
                  0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return Error{"MPI_Gatherv of the ranks' reports failed", Location{"<mpi>", 0, 0}, ""};
  std::vector<std::string> all;
  for (size_t i = 0; i < lens.size(); ++i)
    all.push_back(buffer.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lens[i])));
  return all;
}

Result<int> MpiWorld::broadcast_from_root(int value) {
  if (MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return Error{"MPI_Bcast of the verdict failed", Location{"<mpi>", 0, 0}, ""};
  return value;
}

#else

Result<std::unique_ptr<MpiWorld>> MpiWorld::join() {
  return Error{"this hcp-plan was built without MPI (install libopenmpi-dev and rebuild)",
               Location{"<mpi>", 0, 0}, ""};
}

MpiWorld::~MpiWorld() = default;

Result<std::vector<std::string>> MpiWorld::gather_on_root(const std::string& mine) {
  return std::vector<std::string>{mine};
}

Result<int> MpiWorld::broadcast_from_root(int value) {
  return value;
}

#endif

Status mpi_gather_topologies(const Topology& mine, std::vector<Topology>& all, bool& is_root,
                             int& rank) {
  all.clear();
  is_root = true;
  rank = 0;
  auto world = MpiWorld::join();
  if (!world) return world.error();
  rank = (*world)->rank();
  is_root = (*world)->is_root();
  auto texts = (*world)->gather_on_root(json_dump(topology_to_json(mine)));
  if (!texts) return texts.error();
  for (size_t i = 0; i < texts->size(); ++i) {
    auto j = nlohmann::json::parse((*texts)[i], nullptr, false);
    auto t = topology_from_json(j, "rank " + std::to_string(i));
    if (!t) return t.error();
    all.push_back(*t);
  }
  return Ok{};
}

}  // namespace hcp
