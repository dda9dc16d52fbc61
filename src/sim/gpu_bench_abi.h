/* The C interface of libhcp_gpu_bench.so (kernels/), loaded at run time by src/sim/gpu_bench.cpp.
 * hcp-plan never links CUDA or NCCL: it dlopens this library, which links the CUDA runtime
 * (static), cuBLAS and NCCL. Every function returns 0 on success, or non-zero after writing a
 * one-line reason into `error` (NUL-terminated, at most error_size bytes). */
#ifndef HCP_GPU_BENCH_ABI_H_
#define HCP_GPU_BENCH_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct or signature below changes. */
#define HCP_GPU_BENCH_ABI_VERSION 2

typedef struct {
  int device_count;      /* CUDA devices visible */
  char device_name[256]; /* name of device 0 */
  int cc_major;          /* compute capability of device 0 */
  int cc_minor;
  int nccl_version; /* ncclGetVersion code, e.g. 22809 for 2.28.9 */
} hcp_gpu_info;

typedef struct {
  int dtype; /* 0 = bf16, 1 = fp16 */
  int64_t batch, heads, kv_heads, head_dim, seq_q, seq_kv;
  int causal;
  int warmup, iterations;
  int check; /* also run the cuBLAS unfused reference on a small problem of the same kind */
} hcp_attention_request;

typedef struct {
  double time_ms;       /* mean per call, CUDA events, after warm-up */
  double tflops;        /* 4*b*h*sq*skv*d (x 1/2 for causal) / time */
  double max_abs_error; /* against the cuBLAS reference; -1 when not checked */
  char kernel[32]; /* HCP_ATTENTION_KERNEL_MMA or _WGMMA: the kernel that ran (NUL-terminated) */
} hcp_attention_result;

/* The forward attention kernels (kernels/flash_attention.cuh): mma.sync for sm_80 and later, and
 * wgmma for sm_90 GPUs (head dim 128, lengths multiples of 128). The environment variable
 * HCP_ATTENTION_KERNEL names one to force it. */
#define HCP_ATTENTION_KERNEL_MMA "mma-sm80"
#define HCP_ATTENTION_KERNEL_WGMMA "wgmma-sm90a"

/* hcp_collective_request.op */
#define HCP_COLLECTIVE_ALLTOALL 0 /* all-to-all */
#define HCP_COLLECTIVE_SENDRECV 1 /* ring send/recv */

/* The name of a collective operation ("alltoall", "sendrecv"); NULL for an unknown one, which
 * hcp_gpu_bench_collective rejects. */
static inline const char* hcp_collective_op_name(int op) {
  return op == HCP_COLLECTIVE_ALLTOALL   ? "alltoall"
         : op == HCP_COLLECTIVE_SENDRECV ? "sendrecv"
                                         : NULL;
}

typedef struct {
  int op;        /* HCP_COLLECTIVE_ALLTOALL or HCP_COLLECTIVE_SENDRECV; anything else is an error */
  int64_t bytes; /* nccl-tests "size" per rank (all-to-all: ranks * per-peer bytes) */
  int ranks;     /* GPUs taking part (first `ranks` devices) */
  int warmup, iterations;
} hcp_collective_request;

typedef struct {
  double time_us;    /* mean per operation */
  double algbw_gbps; /* bytes / time */
  double busbw_gbps; /* algbw * (n-1)/n (all-to-all) or * 1 (send/recv) */
} hcp_collective_result;

typedef int (*hcp_gpu_bench_abi_version_fn)(void);
typedef int (*hcp_gpu_bench_info_fn)(hcp_gpu_info* info, char* error, size_t error_size);
typedef int (*hcp_gpu_bench_attention_fn)(const hcp_attention_request* request,
                                          hcp_attention_result* result, char* error,
                                          size_t error_size);
typedef int (*hcp_gpu_bench_collective_fn)(const hcp_collective_request* request,
                                           hcp_collective_result* result, char* error,
                                           size_t error_size);

int hcp_gpu_bench_abi_version(void);
int hcp_gpu_bench_info(hcp_gpu_info* info, char* error, size_t error_size);
int hcp_gpu_bench_attention(const hcp_attention_request* request, hcp_attention_result* result,
                            char* error, size_t error_size);
int hcp_gpu_bench_collective(const hcp_collective_request* request, hcp_collective_result* result,
                             char* error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* HCP_GPU_BENCH_ABI_H_ */
