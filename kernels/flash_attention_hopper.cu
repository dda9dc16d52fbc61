// Hopper (sm_90a) forward attention: the FlashAttention algorithm of flash_attention.cu on the
// warpgroup tensor-core instructions (wgmma) that sm_80's mma.sync cannot reach on an H100/H200.
// A block of two warpgroups owns 128 query rows (64 each); K and V^T tiles of 128 keys stream
// through two shared-memory stages by cp.async while the previous tile is computed. Shared tiles
// use the 128-byte swizzle that wgmma's shared-memory descriptors name, so S = Q K^T reads Q and K
// straight from shared memory; P stays in registers as the A operand of O += P V, whose B operand
// is V^T. V^T comes from a transpose pass inside the same launch call, whose time the benchmark
// counts. Head dim 128, sequence lengths that are multiples of 128; flash_attention.cu keeps the
// mma.sync kernel for every other case and every other GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <type_traits>

#include "common.cuh"
#include "flash_attention_hopper.cuh"
#include "online_softmax.cuh"

namespace hcp::gpu {
namespace {

constexpr int kD = 128;                      // head dim
constexpr int kGroupRows = 64;               // query rows per warpgroup (wgmma's M)
constexpr int kGroups = 2;                   // warpgroups per block
constexpr int kRows = kGroupRows * kGroups;  // query rows per block
constexpr int kKeys = 128;                   // keys per tile (wgmma's N for S = Q K^T)
constexpr int kThreads = kGroups * 128;
constexpr int kBlockBytes = 128 * 128;       // 128 rows of one 128-byte swizzle column block
constexpr int kTileBytes = 2 * kBlockBytes;  // 128 x 128 16-bit values: two column blocks
constexpr int kSharedBytes = 5 * kTileBytes + 1024;  // Q, 2 x (K, V^T), 1024-byte alignment slack

static_assert(kRows == kKeys, "the causal diagonal is one tile");

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

/// Byte offset of 16-bit element (row, col) (col a multiple of 8) in a 128 x 128 tile stored as
/// two column blocks of 64 columns, each 128 rows of 128 bytes with the 16-byte chunks of row r
/// XOR-ed by r % 8: the 128-byte swizzle of wgmma and the tensor-copy engine.
__device__ inline uint32_t swizzled(int row, int col) {
  const int block = col / 64, chunk = (col % 64) / 8;
  return uint32_t(block * kBlockBytes + row * 128 + ((chunk ^ (row & 7)) << 4));
}

/// A 128 x 128 tile whose row r starts at `source + r * row_stride` into shared memory at `tile`.
template <typename T>
__device__ inline void load_tile(uint32_t tile, const T* source, int64_t row_stride) {
  for (int i = threadIdx.x; i < 128 * 16; i += kThreads) {
    const int r = i / 16, c = (i % 16) * 8;
    copy_async_16(tile + swizzled(r, c), source + r * row_stride + c);
  }
}

/// wgmma shared-memory descriptor of a K-major operand with the 128-byte swizzle: start address,
/// leading offset unused (1), 1024 bytes between groups of 8 rows, layout type 1 (128B swizzle).
__device__ inline uint64_t descriptor(uint32_t address) {
  return uint64_t((address & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) |
         (uint64_t(1) << 62);
}

__device__ inline void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ inline void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
/// Keep the compiler from moving reads or writes of an accumulator across the asynchronous MMA.
__device__ inline void fence_operands(float (&d)[16][4]) {
#pragma unroll
  for (int i = 0; i < 16; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e)
      asm volatile("" : "+f"(d[i][e])::"memory");
  }
}

#define HCP_ACC4(d, i) "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
#define HCP_ACC64(d)                                                                              \
  HCP_ACC4(d, 0), HCP_ACC4(d, 1), HCP_ACC4(d, 2), HCP_ACC4(d, 3), HCP_ACC4(d, 4), HCP_ACC4(d, 5), \
      HCP_ACC4(d, 6), HCP_ACC4(d, 7), HCP_ACC4(d, 8), HCP_ACC4(d, 9), HCP_ACC4(d, 10),            \
      HCP_ACC4(d, 11), HCP_ACC4(d, 12), HCP_ACC4(d, 13), HCP_ACC4(d, 14), HCP_ACC4(d, 15)
#define HCP_ACC_LIST                                                                 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "          \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"

/// d (64 x 128, fp32) += A (64 x 16, shared) * B (16 x 128, shared, given as 128 x 16 K-major).
template <typename T>
__device__ inline void wgmma_ss(float (&d)[16][4], uint64_t a, uint64_t b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " HCP_ACC_LIST
        ", %64, %65, p, 1, 1, 0, 0;\n}\n"
        : HCP_ACC64(d)
        : "l"(a), "l"(b), "n"(1));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " HCP_ACC_LIST
        ", %64, %65, p, 1, 1, 0, 0;\n}\n"
        : HCP_ACC64(d)
        : "l"(a), "l"(b), "n"(1));
  }
}

/// d (64 x 128, fp32) += A (64 x 16, registers) * B (16 x 128, shared, given as 128 x 16 K-major).
template <typename T>
__device__ inline void wgmma_rs(float (&d)[16][4], const uint32_t (&a)[4], uint64_t b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " HCP_ACC_LIST
        ", {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n"
        : HCP_ACC64(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(1));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " HCP_ACC_LIST
        ", {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n"
        : HCP_ACC64(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(1));
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

/// V [b][s][kv_heads][128] -> V^T [b][kv_heads][128][s], 32 x 32 tiles through shared memory.
template <typename T>
__global__ void transpose_v(const T* __restrict__ v, T* __restrict__ vt, int64_t seq,
                            int64_t kv_heads) {
  __shared__ T tile[32][33];
  const int64_t bh = blockIdx.z, b = bh / kv_heads, kvh = bh % kv_heads;
  const int64_t key0 = int64_t(blockIdx.x) * 32;
  const int d0 = int(blockIdx.y) * 32;
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    tile[r][threadIdx.x] = v[((b * seq + key0 + r) * kv_heads + kvh) * kD + d0 + threadIdx.x];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    vt[(bh * kD + d0 + r) * seq + key0 + threadIdx.x] = tile[threadIdx.x][r];
  }
}

template <typename T, bool kCausal>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward_hopper(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ vt,
                         T* __restrict__ o, int64_t heads, int64_t kv_heads, int64_t seq_q,
                         int64_t seq_kv, float scale_log2) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t shared_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(shared_raw));
  const uint32_t q_tile = (raw + 1023u) & ~1023u;  // swizzled tiles start on 1024 bytes
  auto k_tile = [&](int64_t stage) { return q_tile + uint32_t((1 + 2 * stage) * kTileBytes); };
  auto vt_tile = [&](int64_t stage) { return q_tile + uint32_t((2 + 2 * stage) * kTileBytes); };

  const int group = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int g = lane / 4, tig = lane % 4;
  const int64_t b = blockIdx.z, h = blockIdx.y, kvh = h / (heads / kv_heads);
  // Causal blocks near the end of the sequence have the most tiles: start those first.
  const int64_t q_block = kCausal ? int64_t(gridDim.x) - 1 - blockIdx.x : int64_t(blockIdx.x);
  const int64_t q0 = q_block * kRows;
  const int64_t row0 = q0 + group * kGroupRows + warp * 16 + g, row1 = row0 + 8;

  auto k_source = [&](int64_t tile) {
    return k + ((b * seq_kv + tile * kKeys) * kv_heads + kvh) * kD;
  };
  auto vt_source = [&](int64_t tile) {
    return vt + (b * kv_heads + kvh) * kD * seq_kv + tile * kKeys;
  };

  const int64_t all_tiles = seq_kv / kKeys;
  const int64_t tiles = kCausal && q_block + 1 < all_tiles ? q_block + 1 : all_tiles;

  load_tile(q_tile, q + ((b * seq_q + q0) * heads + h) * kD, heads * kD);
  load_tile(k_tile(0), k_source(0), kv_heads * kD);
  load_tile(vt_tile(0), vt_source(0), seq_kv);
  copy_async_commit();

  float acc[16][4];
#pragma unroll
  for (int n = 0; n < 16; ++n)
    acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
  float m[2] = {-INFINITY, -INFINITY};
  float l[2] = {0.f, 0.f};
  const uint32_t q_group = q_tile + uint32_t(group * kGroupRows * 128);

  for (int64_t tile = 0; tile < tiles; ++tile) {
    const int64_t stage = tile & 1;
    if (tile + 1 < tiles) {
      load_tile(k_tile(stage ^ 1), k_source(tile + 1), kv_heads * kD);
      load_tile(vt_tile(stage ^ 1), vt_source(tile + 1), seq_kv);
      copy_async_commit();
      copy_async_wait<1>();
    } else {
      copy_async_wait<0>();
    }
    // cp.async wrote through the generic proxy; wgmma reads through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    // S = Q K^T: 64 rows x 128 keys, eight k-steps of 16 over the head dim.
    float s[16][4];
#pragma unroll
    for (int n = 0; n < 16; ++n)
      s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      const uint32_t offset = uint32_t((ks / 4) * kBlockBytes + (ks % 4) * 32);
      wgmma_ss<T>(s, descriptor(q_group + offset), descriptor(k_tile(stage) + offset));
    }
    wgmma_commit();
    wgmma_wait();
    fence_operands(s);

    float correction[2];
    online_softmax_tile<16>(s, m, l, correction, kCausal && tile == q_block, tile * kKeys, row0,
                            row1, tig, scale_log2);
    uint32_t p[8][4];  // P as wgmma A fragments, one per 16 keys
#pragma unroll
    for (int kk = 0; kk < 8; ++kk)
      probability_fragment<T, 16>(p[kk], s, kk);
    rescale_output<16>(acc, correction);

    // O += P V: eight k-steps of 16 keys; B is V^T (head dim x keys), K-major.
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      const uint32_t offset = uint32_t((kk / 4) * kBlockBytes + (kk % 4) * 32);
      wgmma_rs<T>(acc, p[kk], descriptor(vt_tile(stage) + offset));
    }
    wgmma_commit();
    wgmma_wait();
    fence_operands(acc);
    __syncthreads();  // both warpgroups are done with this stage before it is refilled
  }

  store_normalised<T, 16>(o + ((b * seq_q + row0) * heads + h) * kD,
                          o + ((b * seq_q + row1) * heads + h) * kD, acc, l, tig);
#else
  __trap();  // built without sm_90a: hopper_attention_supported() said no
#endif
}

/// The V^T scratch of the last call, grown as needed and kept for the process.
struct TransposeScratch {
  void* data = nullptr;
  size_t bytes = 0;
  std::string reserve(size_t wanted) {
    if (wanted <= bytes) return "";
    if (data != nullptr) cudaFree(data);
    data = nullptr;
    bytes = 0;
    HCP_CUDA_TRY(cudaMalloc(&data, wanted));
    bytes = wanted;
    return "";
  }
};

template <typename T, bool kCausal>
std::string launch_typed(const AttentionArgs& a, cudaStream_t stream) {
  static TransposeScratch scratch;
  const int64_t vt_elems = a.batch * a.kv_heads * kD * a.seq_kv;
  HCP_TRY(scratch.reserve(size_t(vt_elems) * sizeof(T)));
  T* vt = static_cast<T*>(scratch.data);
  transpose_v<T><<<dim3(unsigned(a.seq_kv / 32), kD / 32, unsigned(a.batch * a.kv_heads)),
                   dim3(32, 8), 0, stream>>>(static_cast<const T*>(a.v), vt, a.seq_kv, a.kv_heads);
  HCP_CUDA_TRY(cudaGetLastError());
  auto kernel = flash_forward_hopper<T, kCausal>;
  HCP_CUDA_TRY(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const dim3 grid(unsigned(a.seq_q / kRows), unsigned(a.heads), unsigned(a.batch));
  const float scale_log2 = 1.4426950408889634f / sqrtf(float(kD));
  kernel<<<grid, kThreads, kSharedBytes, stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), vt, static_cast<T*>(a.o), a.heads,
      a.kv_heads, a.seq_q, a.seq_kv, scale_log2);
  return cuda_error(cudaGetLastError(), "hopper flash attention launch");
}

}  // namespace

std::string hopper_attention_unsupported(const AttentionArgs& a) {
  int device = 0, major = 0, minor = 0;
  HCP_CUDA_TRY(cudaGetDevice(&device));
  HCP_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  HCP_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) return "the wgmma kernel needs an sm_90 GPU (H100/H200)";
  if (a.head_dim != kD) return "the wgmma kernel needs head dim 128";
  if (a.seq_q % kRows != 0 || a.seq_kv % kKeys != 0) {
    return "the wgmma kernel needs sequence lengths that are multiples of 128";
  }
  if (a.batch * a.kv_heads > 65535) return "problem too large for one launch";
  return "";
}

std::string launch_flash_attention_hopper(const AttentionArgs& a, cudaStream_t stream) {
  if (a.bf16) {
    return a.causal ? launch_typed<__nv_bfloat16, true>(a, stream)
                    : launch_typed<__nv_bfloat16, false>(a, stream);
  }
  return a.causal ? launch_typed<__half, true>(a, stream) : launch_typed<__half, false>(a, stream);
}

}  // namespace hcp::gpu
