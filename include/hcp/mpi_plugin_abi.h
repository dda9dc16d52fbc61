/* The C interface of libhcp_mpi.so (plugins/mpi): the MPI calls hcp-plan makes for the cluster
 * commands (probe, preflight under mpirun). hcp-plan dlopens the plugin only when it joins an MPI
 * job, so the MPI libraries are not loaded by every other command (they cost about 2 ms of CPU at
 * each start, most of `validate`'s budget). Every function returns 0 on success. */
#ifndef HCP_MPI_PLUGIN_ABI_H
#define HCP_MPI_PLUGIN_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

#define HCP_MPI_PLUGIN_ABI_VERSION 1

typedef int (*hcp_mpi_abi_version_fn)(void);
/* MPI_Init unless MPI is initialised; *finalize is 1 when this call initialised it. */
typedef int (*hcp_mpi_join_fn)(int* rank, int* size, int* finalize);
typedef int (*hcp_mpi_finalize_fn)(void);
/* MPI_Gather of one int per rank to rank 0 (`all` holds `size` ints on rank 0, unused elsewhere).
 */
typedef int (*hcp_mpi_gather_int_fn)(int mine, int* all);
/* MPI_Gatherv of chars to rank 0 (`counts` and `offsets` are read on rank 0 only). */
typedef int (*hcp_mpi_gatherv_chars_fn)(const char* mine, int count, char* all, const int* counts,
                                        const int* offsets);
/* MPI_Bcast of one int from rank 0. */
typedef int (*hcp_mpi_bcast_int_fn)(int* value);

#ifdef __cplusplus
}
#endif

#endif
