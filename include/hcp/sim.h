// CPU simulation of context-parallel attention over virtual ranks, and the loader of the optional
// GPU benchmark library (kernels/, libhcp_gpu_bench.so).
//
// The simulator runs the same blocked online-softmax algorithm as the CUDA kernel in fp32, over
// the exact token chunks (Megatron's load-balanced 2*CP split) and rank groups (the layout
// module's hierarchical CP groups) that Megatron/TE use, moves data between virtual ranks the way
// each cp_comm_type does, counts the bytes every rank sends, and compares the result with plain
// full attention computed in double precision.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hcp/calibration.h"
#include "hcp/cp_volume.h"
#include "hcp/diagnostic.h"

namespace hcp {

// ---- Tensors and single-device attention ---------------------------------------------------

/// A dense [tokens][heads][dim] fp32 tensor (the "bshd" layout with b = 1).
struct Tensor {
  int64_t tokens = 0;
  int64_t heads = 0;
  int64_t dim = 0;
  std::vector<float> data;  ///< tokens * heads * dim values, dim fastest.

  /// Return a zero tensor of the given shape.
  static Tensor zeros(int64_t tokens, int64_t heads, int64_t dim);
  /// Return a pointer to the dim-vector of (token, head).
  float* at(int64_t token, int64_t head) { return &data[(token * heads + head) * dim]; }
  const float* at(int64_t token, int64_t head) const { return &data[(token * heads + head) * dim]; }
};

/// One attention problem's size.
struct AttentionShape {
  int64_t seq_length = 0;  ///< S: tokens of the whole sequence.
  int64_t heads = 0;       ///< Query heads.
  int64_t kv_heads = 0;    ///< Key/value heads (GQA when fewer than heads; must divide heads).
  int64_t head_dim = 0;    ///< D.
  bool causal = false;     ///< Mask keys after the query (by global position).
};

/// Q, K and V of a whole sequence.
struct AttentionInputs {
  Tensor q;  ///< [S][heads][D]
  Tensor k;  ///< [S][kv_heads][D]
  Tensor v;  ///< [S][kv_heads][D]
};

/// Return standard-normal Q, K, V for `shape` from a portable generator (same values on every
/// platform for the same seed).
AttentionInputs random_attention_inputs(const AttentionShape& shape, uint64_t seed);

/// Return softmax(Q K^T / sqrt(D)) V computed plainly (full score rows, two passes) in double
/// precision: the reference every simulation is checked against.
Tensor reference_attention(const AttentionInputs& in, bool causal);

/// Running state of the online softmax for a set of query rows (what one CUDA thread block keeps
/// in registers): the row maximum m, the row sum l and the unnormalised output accumulator.
class OnlineSoftmax {
 public:
  /// Prepare state for `q` (its token positions in the global sequence are `q_positions`).
  OnlineSoftmax(const Tensor& q, std::vector<int64_t> q_positions, bool causal);

  /// Fold one block of keys/values (positions `kv_positions`) into the state, `tile` keys at a
  /// time. K and V may hold fewer heads than Q (GQA): query head h uses KV head h / (Hq / Hkv).
  void add_block(const Tensor& k, const Tensor& v, const std::vector<int64_t>& kv_positions,
                 int64_t tile = 64);

  /// Return the normalised output acc / l, shaped like Q.
  Tensor finish() const;

 private:
  const Tensor& q_;
  std::vector<int64_t> q_positions_;
  bool causal_;
  float scale_;
  std::vector<float> m_;  ///< [tokens * heads]
  std::vector<float> l_;  ///< [tokens * heads]
  Tensor acc_;            ///< like Q
};

/// Return attention computed with the blocked online-softmax algorithm on one device.
Tensor blocked_attention(const AttentionInputs& in, bool causal, int64_t tile = 64);

/// Return the largest absolute element difference of two equally shaped tensors.
double max_abs_difference(const Tensor& a, const Tensor& b);

// ---- Context-parallel simulation -----------------------------------------------------------

/// What to simulate.
struct CpSimOptions {
  AttentionShape shape;
  int64_t cp = 1;  ///< Virtual ranks in the CP group.
  CpCommType comm_type = CpCommType::kP2p;
  std::vector<int64_t> hcp;  ///< [a, p] for a2a+p2p; empty otherwise.
  uint64_t seed = 1234;
  bool local_only = false;        ///< CP communication off: each rank attends only its own chunks.
  int64_t bytes_per_element = 2;  ///< Wire element size for the byte counts (bf16 = 2).
  int64_t tile = 64;              ///< Keys per online-softmax tile.
  /// Told how far the run is: (0, 3) before the reference pass, (1, 3) before the blocked
  /// single-device pass, (2, 3) before the CP pass, (3, 3) at the end. May be empty.
  std::function<void(int done, int total)> progress{};
};

/// Multiply-adds simulate_cp_attention does for `shape`: three attention passes (reference,
/// blocked, CP), each S x keys x heads x head_dim twice (scores, then the weighted sum of V),
/// with keys = S, or (S + 1) / 2 on average under the causal mask. Lets a caller estimate the
/// run time before it starts.
double simulation_multiply_adds(const AttentionShape& shape);

/// What the simulation found.
struct CpSimResult {
  double max_abs_error = 0;          ///< CP output against reference_attention.
  double blocked_max_abs_error = 0;  ///< Single-device blocked_attention against the reference.
  std::vector<int64_t> comm_bytes_per_rank;  ///< Bytes each virtual rank sent (a2a + ring).
  std::vector<int64_t> a2a_bytes_per_rank;   ///< Of those, in all-to-alls.
  std::vector<int64_t> ring_bytes_per_rank;  ///< Of those, in ring steps or all-gathers.
  CpVolume formula;                  ///< cp_volume() forward figures for the same shape (batch 1).
  bool bytes_match_formula = false;  ///< Every rank sent exactly formula.forward_bytes().
  std::vector<std::vector<int64_t>> rank_chunks;  ///< Sequence chunks (of 2*cp) each rank holds.
  std::vector<std::vector<std::vector<int>>> hcp_groups;  ///< [level][group][member] for a2a+p2p.
};

/// Most multiply-adds a simulation may take: about 4 h at the 1e9 a second of a development
/// machine's scalar loops. The size limits alone (65536 tokens, heads x head-dim 65536) let a run
/// last about 117 h.
inline constexpr double kMaxSimulationMultiplyAdds = 1.5e13;

/// The options simulate_cp_attention refuses (sizes, run length, hcp for the comm type), checked
/// before anything runs, so that a caller can report them before it warns about a long run.
Status check_simulation(const CpSimOptions& options);

/// Run the simulation. Errors: those of check_simulation, invalid shape or layout (heads not
/// divisible as the comm type needs, S not divisible by 2*cp, prod(hcp) != cp, hcp given for
/// another comm type).
Result<CpSimResult> simulate_cp_attention(const CpSimOptions& options);

// ---- GPU benchmark (libhcp_gpu_bench.so, loaded at run time) -------------------------------

/// What one `bench` run measures for a layout option, per layer, on this node.
struct GpuBenchRequest {
  std::string dtype = "bf16";  ///< "bf16" or "fp16".
  int64_t batch = 1;
  int64_t heads = 0;       ///< Query heads in one attention kernel (after TP/a2a splits).
  int64_t kv_heads = 0;    ///< KV heads in one attention kernel.
  int64_t head_dim = 128;  ///< 64 or 128.
  int64_t seq_q = 0;       ///< Query tokens of the local chunk.
  int64_t seq_kv = 0;      ///< Key tokens of the local chunk.
  bool causal = true;
  int64_t a2a_bytes = 0;        ///< Per-rank all-to-all size (nccl-tests "size"); 0 skips it.
  int64_t a2a_ranks = 0;        ///< GPUs in the all-to-all (capped at the local GPU count).
  int64_t ring_step_bytes = 0;  ///< Bytes of one KV ring step; 0 skips it.
  int64_t ring_ranks = 0;       ///< GPUs in the ring (capped at the local GPU count).
  int warmup = 3;
  int iterations = 10;
  bool check = true;  ///< Compare the kernel with the cuBLAS unfused reference.
};

/// Return the per-layer measurements a layout implies: the attention kernel one rank runs per
/// ring step (a2a+p2p: s/p queries against s/2p keys with heads/(t*a); p2p: s/c against s/2c;
/// a2a: the whole causal sequence with heads/(t*c); all_gather: s/2c against s/2), the per-rank
/// all-to-all of Q,K,V,O and one ring step of KV, sized by cp_volume(). Errors as cp_volume().
Result<GpuBenchRequest> gpu_bench_request_for(const CpVolumeInput& layout);

/// Return the library's path: $HCP_GPU_BENCH_LIB, else libhcp_gpu_bench.so next to the running
/// binary, in ../lib/hcp-plan/, or in the build tree (when built with CUDA).
std::string gpu_bench_library_path();

/// Return an empty string when GPU benchmarks can run here, else what is missing ("no NVIDIA
/// driver: libcuda.so.1 not found", "cannot load .../libhcp_gpu_bench.so: libnccl.so.2: ...",
/// "no CUDA GPU visible", ...). Never throws; loads nothing permanently on failure.
std::string gpu_bench_unavailable_reason();

/// Run the attention and NCCL benchmarks of `request` on the local GPUs; `progress` (may be
/// empty) receives one line per finished measurement. Errors: "unavailable: <reason>" when the
/// GPU path cannot run, or the library's own error.
Result<Calibration> run_gpu_bench(const GpuBenchRequest& request,
                                  const std::function<void(const std::string&)>& progress = {});

/// Benchmark a layout option on this node (what `bench` and the planner's `plan --confirm` call):
/// gpu_bench_request_for() then run_gpu_bench(). Errors: "unavailable: <reason>" without a GPU.
Result<Calibration> benchmark_layout(const CpVolumeInput& layout,
                                     const std::function<void(const std::string&)>& progress = {});

}  // namespace hcp
