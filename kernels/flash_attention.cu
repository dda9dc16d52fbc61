// FlashAttention-style forward: each block owns 64 query rows (4 warps x 16 rows), keeps its Q
// fragments in registers, streams 64-key K/V tiles into shared memory with cp.async (K and V as
// two copy groups, so S = QK^T starts before V lands), reads the MMA B fragments with ldmatrix
// (V transposed on the way), computes S = QK^T and O += PV with m16n8k16 tensor-core MMAs, and
// folds every tile into an online softmax (running row max and sum, exp2 domain). Same algorithm
// as the CPU OnlineSoftmax in src/sim. On an H200 the ldmatrix/cp.async version ran 1.38-1.47x
// the forward rate of the first one (register loads from shared memory, synchronous tile
// copies), with the same error against cuBLAS (bench/results/).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common.cuh"
#include "flash_attention.cuh"
#include "flash_attention_hopper.cuh"
#include "online_softmax.cuh"

namespace hcp::gpu {
namespace {

constexpr int kRows = 64;  // query rows per block
constexpr int kKeys = 64;  // keys per tile
constexpr int kWarps = 4;  // 16 rows each
constexpr int kThreads = kWarps * 32;
constexpr int kPad = 8;  // shared-memory row padding (elements) against bank conflicts

template <typename T>
__device__ inline void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]);

template <>
__device__ inline void mma_16816<__half>(float (&d)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <>
__device__ inline void mma_16816<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[4],
                                                const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// Four 8x8 matrices of 16-bit values from shared memory into MMA fragments (ldmatrix; lane L
/// gives the address of row L % 8 of matrix L / 8). kTrans: each matrix transposed on the way.
template <bool kTrans>
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  }
}

template <typename T, int D, bool kCausal>
__global__ void __launch_bounds__(kThreads)
    flash_forward(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                  T* __restrict__ o, int64_t heads, int64_t kv_heads, int64_t seq_q, int64_t seq_kv,
                  float scale_log2) {
  __shared__ __align__(16) T k_tile[kKeys][D + kPad];
  __shared__ __align__(16) T v_tile[kKeys][D + kPad];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, tig = lane % 4;  // MMA fragment group and thread-in-group
  const int64_t b = blockIdx.z, h = blockIdx.y, kvh = h / (heads / kv_heads);
  const int64_t row0 = int64_t(blockIdx.x) * kRows + warp * 16 + g;  // this thread's rows
  const int64_t row1 = row0 + 8;

  auto q_at = [&](int64_t row, int col) { return q + ((b * seq_q + row) * heads + h) * D + col; };

  // Q fragments (A operand) for every 16-wide slice of the head dim, kept in registers.
  uint32_t qf[D / 16][4];
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    const int col = ks * 16 + tig * 2;
    qf[ks][0] = *reinterpret_cast<const uint32_t*>(q_at(row0, col));
    qf[ks][1] = *reinterpret_cast<const uint32_t*>(q_at(row1, col));
    qf[ks][2] = *reinterpret_cast<const uint32_t*>(q_at(row0, col + 8));
    qf[ks][3] = *reinterpret_cast<const uint32_t*>(q_at(row1, col + 8));
  }

  float acc[D / 8][4];
#pragma unroll
  for (int n = 0; n < D / 8; ++n)
    acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
  float m[2] = {-INFINITY, -INFINITY};
  float l[2] = {0.f, 0.f};  // per-thread partial row sums (reduced over the quad at the end)

  const int64_t all_tiles = seq_kv / kKeys;
  const int64_t diagonal = int64_t(blockIdx.x) + 1;  // causal: tiles up to the diagonal
  const int64_t tiles = kCausal && diagonal < all_tiles ? diagonal : all_tiles;
  for (int64_t tile = 0; tile < tiles; ++tile) {
    const int64_t key0 = tile * kKeys;
    __syncthreads();  // the previous tile is no longer read
    // K and V as two copy groups: S = QK^T starts once K has landed, V arrives meanwhile.
    for (int which = 0; which < 2; ++which) {
      const T* source = which == 0 ? k : v;
      T(*tile_rows)[D + kPad] = which == 0 ? k_tile : v_tile;
      for (int i = threadIdx.x; i < kKeys * D / 8; i += kThreads) {
        const int r = i / (D / 8), c = (i % (D / 8)) * 8;
        copy_async_16(shared_address(&tile_rows[r][c]),
                      source + ((b * seq_kv + key0 + r) * kv_heads + kvh) * D + c);
      }
      copy_async_commit();
    }
    copy_async_wait<1>();
    __syncthreads();

    // S = Q K^T for this warp's 16 rows and the tile's 64 keys (8 n-tiles of 8 keys).
    float s[kKeys / 8][4];
#pragma unroll
    for (int nt = 0; nt < kKeys / 8; ++nt) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
      // Matrix j of the four: keys nt*8.., head-dim columns ks*16 + j*8.. (two k-steps).
#pragma unroll
      for (int ks = 0; ks < D / 16; ks += 2) {
        uint32_t kb[4];
        ldmatrix_x4<false>(kb, &k_tile[nt * 8 + lane % 8][ks * 16 + (lane / 8) * 8]);
        const uint32_t first[2] = {kb[0], kb[1]}, second[2] = {kb[2], kb[3]};
        mma_16816<T>(s[nt], qf[ks], first);
        mma_16816<T>(s[nt], qf[ks + 1], second);
      }
    }

    // Scale into the exp2 domain, mask, and fold the tile into the online softmax.
    float correction[2];
    online_softmax_tile<kKeys / 8>(s, m, l, correction, kCausal, key0, row0, row1, tig, scale_log2);
    rescale_output<D / 8>(acc, correction);

    copy_async_wait<0>();  // V's copy group has landed for every thread
    __syncthreads();
    // O += P V: P (16 x 64) from the S accumulators as A fragments, V from shared memory.
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      uint32_t pa[4];
      probability_fragment<T, kKeys / 8>(pa, s, kk);
      // Matrix j: keys kk*16 + (j&1)*8.., head-dim columns (n + j/2)*8.., transposed.
      const int j = lane / 8;
#pragma unroll
      for (int n = 0; n < D / 8; n += 2) {
        uint32_t vb[4];
        ldmatrix_x4<true>(vb, &v_tile[kk * 16 + (j & 1) * 8 + lane % 8][(n + j / 2) * 8]);
        const uint32_t first[2] = {vb[0], vb[1]}, second[2] = {vb[2], vb[3]};
        mma_16816<T>(acc[n], pa, first);
        mma_16816<T>(acc[n + 1], pa, second);
      }
    }
  }

  // Finish: full row sums over the quad, normalise, store.
  store_normalised<T, D / 8>(o + ((b * seq_q + row0) * heads + h) * D,
                             o + ((b * seq_q + row1) * heads + h) * D, acc, l, tig);
}

template <typename T, int D, bool kCausal>
void launch(const AttentionArgs& a, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(a.seq_q / kRows), static_cast<unsigned>(a.heads),
                  static_cast<unsigned>(a.batch));
  const float scale_log2 = 1.4426950408889634f / sqrtf(static_cast<float>(D));
  flash_forward<T, D, kCausal><<<grid, kThreads, 0, stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v),
      static_cast<T*>(a.o), a.heads, a.kv_heads, a.seq_q, a.seq_kv, scale_log2);
}

template <typename T>
void launch_dtype(const AttentionArgs& a, cudaStream_t stream) {
  if (a.head_dim == 64) {
    a.causal ? launch<T, 64, true>(a, stream) : launch<T, 64, false>(a, stream);
  } else {
    a.causal ? launch<T, 128, true>(a, stream) : launch<T, 128, false>(a, stream);
  }
}

}  // namespace

std::string launch_flash_attention(const AttentionArgs& a, cudaStream_t stream) {
  const char* used = kMmaKernel;
  if (a.head_dim != 64 && a.head_dim != 128) return "head dim must be 64 or 128";
  if (a.seq_q <= 0 || a.seq_kv <= 0 || a.seq_q % kRows != 0 || a.seq_kv % kKeys != 0) {
    return "sequence lengths must be positive multiples of 64";
  }
  if (a.causal && a.seq_q != a.seq_kv) return "causal attention needs seq_q == seq_kv";
  if (a.heads <= 0 || a.kv_heads <= 0 || a.heads % a.kv_heads != 0) {
    return "heads must be a positive multiple of kv_heads";
  }
  if (a.seq_q / kRows > 0x7fffffff || a.heads > 65535 || a.batch > 65535) {
    return "problem too large for one launch";
  }
  const char* choice = std::getenv("HCP_ATTENTION_KERNEL");
  HCP_TRY(choose_attention_kernel(a, choice == nullptr ? "" : choice, &used));
  if (std::strcmp(used, kWgmmaKernel) == 0) return launch_flash_attention_hopper(a, stream);
  a.bf16 ? launch_dtype<__nv_bfloat16>(a, stream) : launch_dtype<__half>(a, stream);
  return cuda_error(cudaGetLastError(), "flash attention launch");
}

std::string choose_attention_kernel(const AttentionArgs& a, const std::string& choice,
                                    const char** kernel) {
  if (!choice.empty() && choice != kMmaKernel && choice != kWgmmaKernel) {
    return "HCP_ATTENTION_KERNEL must be " + std::string(kMmaKernel) + " or " + kWgmmaKernel +
           ", not '" + choice + "'";
  }
  const std::string unsupported = hopper_attention_unsupported(a);
  if (choice == kWgmmaKernel && !unsupported.empty()) return unsupported;
  *kernel = choice != kMmaKernel && unsupported.empty() ? kWgmmaKernel : kMmaKernel;
  return "";
}

}  // namespace hcp::gpu
