// Joining the MPI job this process was launched in (mpirun, srun --mpi=pmix), for the commands
// that report once for the whole cluster (probe, preflight). Built in only when CMake found MPI.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {

/// True when this binary was built with MPI support (HCP_WITH_MPI).
bool mpi_available();
/// True when the process was started by an MPI launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE, ...).
bool launched_under_mpi();

/// This process's membership of MPI_COMM_WORLD. join() calls MPI_Init unless MPI is already
/// initialised; the destructor calls MPI_Finalize when join() initialised it. Every rank must
/// make the same collective calls in the same order.
class MpiWorld {
 public:
  /// Join the world; Error when built without MPI or MPI_Init fails.
  static Result<std::unique_ptr<MpiWorld>> join();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }

  /// Every rank's text on rank 0, in rank order; other ranks get an empty list.
  Result<std::vector<std::string>> gather_on_root(const std::string& mine);
  /// Rank 0's value on every rank (the value other ranks pass is ignored).
  Result<int> broadcast_from_root(int value);

 private:
  MpiWorld() = default;
  int rank_ = 0;
  int size_ = 1;
  bool finalize_ = false;
};

}  // namespace hcp
