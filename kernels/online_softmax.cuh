// The device steps both forward attention kernels share (flash_attention.cu on mma.sync,
// flash_attention_hopper.cu on wgmma): the online softmax of one key tile over a thread's two rows,
// the rescale of the output, and the final normalise-and-store. Both kernels hold a warp's 16 x N
// scores and outputs in the same fragment layout: chunk n of 8 columns, elements 0/1 in row
// `row0` (columns 2*tig, 2*tig+1) and 2/3 in `row1 = row0 + 8`. Same algorithm as the CPU
// OnlineSoftmax in src/sim.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

namespace hcp::gpu {

/// Pack two floats into one register of two 16-bit values (lo = first).
template <typename T>
__device__ inline uint32_t pack2(float lo, float hi);
template <>
__device__ inline uint32_t pack2<__half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}
template <>
__device__ inline uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

/// Fold one tile of raw scores `s` (kChunks chunks of 8 keys from `key0`) into the running row
/// maxima `m` (exp2 domain) and sums `l` (this thread's partial sums): scale, mask keys after the
/// row when `mask`, take the tile's row maxima over the quad, set `correction` (the factor for the
/// old sums and outputs) and leave the probabilities exp2(x - max) in `s`.
template <int kChunks>
__device__ inline void online_softmax_tile(float (&s)[kChunks][4], float (&m)[2], float (&l)[2],
                                           float (&correction)[2], bool mask, int64_t key0,
                                           int64_t row0, int64_t row1, int tig, float scale_log2) {
  float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int nt = 0; nt < kChunks; ++nt) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int64_t row = e < 2 ? row0 : row1;
      const int64_t key = key0 + nt * 8 + tig * 2 + (e & 1);
      float x = s[nt][e] * scale_log2;
      if (mask && key > row) x = -INFINITY;
      s[nt][e] = x;
      tile_max[e / 2] = fmaxf(tile_max[e / 2], x);
    }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 1));
    tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 2));
    const float m_new = fmaxf(m[r], tile_max[r]);
    const float m_use = m_new == -INFINITY ? 0.f : m_new;  // fully masked so far: no NaN
    correction[r] = exp2f(m[r] - m_use);
    m[r] = m_new;
    l[r] *= correction[r];
    tile_max[r] = m_use;
  }
#pragma unroll
  for (int nt = 0; nt < kChunks; ++nt) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      s[nt][e] = exp2f(s[nt][e] - tile_max[e / 2]);
      l[e / 2] += s[nt][e];
    }
  }
}

/// Scale the output accumulators of the two rows by their softmax corrections.
template <int kChunks>
__device__ inline void rescale_output(float (&acc)[kChunks][4], const float (&correction)[2]) {
#pragma unroll
  for (int n = 0; n < kChunks; ++n) {
    acc[n][0] *= correction[0];
    acc[n][1] *= correction[0];
    acc[n][2] *= correction[1];
    acc[n][3] *= correction[1];
  }
}

/// Probabilities of keys 16*kk .. 16*kk+15 as the A fragment of an m16 x k16 MMA (mma.sync and
/// wgmma's register A operand use the same layout).
template <typename T, int kChunks>
__device__ inline void probability_fragment(uint32_t (&a)[4], const float (&s)[kChunks][4],
                                            int kk) {
  a[0] = pack2<T>(s[2 * kk][0], s[2 * kk][1]);
  a[1] = pack2<T>(s[2 * kk][2], s[2 * kk][3]);
  a[2] = pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
  a[3] = pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
}

/// Sum each row's partial sums over the quad, normalise the kChunks x 8 output columns of rows
/// `row0` and `row0 + 8` and store them at `out_row0` / `out_row1` (the rows' first elements).
template <typename T, int kChunks>
__device__ inline void store_normalised(T* out_row0, T* out_row1, const float (&acc)[kChunks][4],
                                        float (&l)[2], int tig) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    l[r] = l[r] > 0.f ? 1.f / l[r] : 0.f;
  }
#pragma unroll
  for (int n = 0; n < kChunks; ++n) {
    const int col = n * 8 + tig * 2;
    *reinterpret_cast<uint32_t*>(out_row0 + col) = pack2<T>(acc[n][0] * l[0], acc[n][1] * l[0]);
    *reinterpret_cast<uint32_t*>(out_row1 + col) = pack2<T>(acc[n][2] * l[1], acc[n][3] * l[1]);
  }
}

}  // namespace hcp::gpu
