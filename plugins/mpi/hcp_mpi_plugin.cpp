// libhcp_mpi.so: the MPI calls of hcp-plan's cluster commands behind the C interface of
// include/hcp/mpi_plugin_abi.h. probes/mpi_world.cpp loads it with dlopen when a command joins an
// MPI job, so only those runs load the MPI libraries.
#include <mpi.h>

#include "hcp/mpi_plugin_abi.h"

extern "C" {

int hcp_mpi_abi_version(void) {
  return HCP_MPI_PLUGIN_ABI_VERSION;
}

int hcp_mpi_join(int* rank, int* size, int* finalize) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  *finalize = 0;
  if (!initialized) {
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) return 1;
    *finalize = 1;
  }
  if (MPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS) return 1;
  return MPI_Comm_size(MPI_COMM_WORLD, size) == MPI_SUCCESS ? 0 : 1;
}

int hcp_mpi_finalize(void) {
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}

int hcp_mpi_gather_int(int mine, int* all) {
  return MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : 1;
}

int hcp_mpi_gatherv_chars(const char* mine, int count, char* all, const int* counts,
                          const int* offsets) {
  return MPI_Gatherv(mine, count, MPI_CHAR, all, counts, offsets, MPI_CHAR, 0, MPI_COMM_WORLD) ==
                 MPI_SUCCESS
             ? 0
             : 1;
}

int hcp_mpi_bcast_int(int* value) {
  return MPI_Bcast(value, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : 1;
}

}  // extern "C"
