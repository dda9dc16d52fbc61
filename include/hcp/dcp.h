// Dynamic context parallelism (Megatron-LM "Dynamic CP", ex "hybrid CP") simulator: reads sequence
// lengths, reproduces the upstream scheduler decision for decision, and compares the result with
// static CP (padded BSHD and packed THD `dp_balanced`) under a compute + communication time model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp::dcp {

// ----------------------------------------------------------------------------------------------
// Inputs: sequence lengths
// ----------------------------------------------------------------------------------------------

/// Parse lengths from text: a JSON list of integers ("[128, 96]") or one integer a line (blank
/// lines and lines starting with '#' are skipped). `name` is used in error locations. Errors: not
/// an integer, a length <= 0 (with its sample index and line), no lengths at all.
Result<std::vector<int64_t>> parse_lengths_text(std::string_view text, const std::string& name);
/// Read a lengths file (see parse_lengths_text). Errors also for a missing or unreadable file.
Result<std::vector<int64_t>> read_lengths_file(const std::string& path);

/// Decode a Megatron indexed dataset `.idx` (MMIDIDX v1) held in memory and return its
/// `sequence_lengths`. Every offset is bounds-checked against the buffer size; errors name the
/// field that is wrong (magic, version, dtype, counts, size, pointers, document indices, a length
/// <= 0 with its sequence index).
Result<std::vector<int64_t>> parse_idx_bytes(std::string_view bytes, const std::string& name);
/// Read a `.idx` file from disk (see parse_idx_bytes).
Result<std::vector<int64_t>> read_idx_file(const std::string& path);

/// `--synthetic lognormal:MEAN:SIGMA:COUNT[:MAX[:MIN]]`: lengths drawn from a log-normal
/// distribution whose arithmetic mean is MEAN, clipped to [MIN, MAX] and truncated to whole
/// tokens, as Megatron's mock SFT dataset draws them (MockSFTLowLevelDataset.
/// generate_lognormal_samples, dev megatron/training/datasets/sft_dataset.py: mu = log(mean) -
/// sigma^2 / 2, np.clip(min_seq_len, max_seq_len), astype(int)).
struct SyntheticSpec {
  double mean = 0;    ///< Arithmetic mean of the (unclipped) distribution, tokens.
  double sigma = 0;   ///< Standard deviation of log(length).
  int64_t count = 0;  ///< Number of sequences.
  int64_t max = 0;    ///< Upper clip; 0 means no clip.
  int64_t min = 1;    ///< Lower clip (min_seq_len); at most MAX.
};
/// Most sequences --synthetic draws: 2^24 (128 MiB of lengths, about a minute of scheduling as one
/// step); 2^32 asked for 32 GiB.
inline constexpr int64_t kMaxSyntheticCount = int64_t{1} << 24;
/// Parse "lognormal:MEAN:SIGMA:COUNT[:MAX[:MIN]]". Errors: MIN < 1 or above MAX, unknown
/// distribution, missing or non-numeric fields, MEAN outside [1, 2^31 - 1] tokens, SIGMA outside
/// [0, 3], NaN, infinities and denormals (parse_physical), COUNT <= 0 or above kMaxSyntheticCount,
/// MAX < 0.
Result<SyntheticSpec> parse_synthetic_spec(std::string_view spec);
/// Draw the lengths deterministically from `seed` (same seed, same lengths on every platform).
std::vector<int64_t> synthetic_lengths(const SyntheticSpec& spec, uint64_t seed);

// ----------------------------------------------------------------------------------------------
// The scheduler
// ----------------------------------------------------------------------------------------------

/// Which upstream scheduler to reproduce (dynamic_cp.md §0).
enum class Variant {
  kDevHead,     ///< Megatron-LM dev head: next_hdp_group_packing_aware (PR #5154).
  kDevPr2000,   ///< dev as merged by PR #2000: bucketed greedy with a per-rank token cap.
  kMainHybrid,  ///< main: BalancedCPScheduler (--hybrid-context-parallel), no token cap.
};
/// Return "dev_head", "dev_pr2000" or "main_hybrid".
const char* variant_name(Variant v);
/// Parse a variant name; nullopt when unknown.
std::optional<Variant> parse_variant(std::string_view name);

/// One sub-sequence handed to the scheduler.
struct Sample {
  int64_t id = 0;      ///< Global id: position in the whole input (file order).
  int64_t length = 0;  ///< Tokens (as Megatron pads them); > 0.
};

/// One CP group of a micro-batch: `size` consecutive DP×CP ranks starting at `first_rank`, all
/// holding the same packed THD batch `ids`.
struct CpGroup {
  int first_rank = 0;
  int size = 0;
  std::vector<int64_t> ids;  ///< Sample ids in upstream order.
};

/// One micro-batch; its groups cover every DP×CP rank once, ordered by first_rank.
struct MicroBatch {
  std::vector<CpGroup> groups;
};

/// Return the per-rank view [rank] -> sample ids (the reference's "ranks" form).
std::vector<std::vector<int64_t>> rank_ids(const MicroBatch& mb, int ranks);
/// Rebuild a micro-batch from its per-rank view: runs of ranks holding identical id lists become
/// one group. Errors: an empty rank.
Result<MicroBatch> microbatch_from_rank_ids(const std::vector<std::vector<int64_t>>& ranks);

/// Scheduler knobs, named as upstream's flags.
struct SchedulerKnobs {
  int dp = 1;                       ///< Data-parallel size.
  int cp = 1;                       ///< Static --context-parallel-size; dp*cp is the pool.
  int64_t max_seqlen_per_rank = 0;  ///< --max-seqlen-per-dp-cp-rank (m).
  int min_cp = 1;                   ///< --min-dynamic-context-parallel-size.
  int vpp_group = 0;                ///< microbatch_group_size_per_vp_stage; <= 1 means off.
  Variant variant = Variant::kDevHead;

  /// Return dp * cp, the number of DP×CP ranks.
  int ranks() const { return dp * cp; }
};

/// Check the knobs as upstream does at start-up: dp, cp, m >= 1; an even DP×CP size
/// (parallel_state asserts it); min_cp a power of two (no process group exists otherwise) and
/// <= dp*cp. Return an error naming the flag.
Status validate_knobs(const SchedulerKnobs& knobs);

/// Return the smallest CP size for a sequence: max(min_cp, 2^ceil(log2(length / m))), at least 1
/// (dcp_gpus_needed). Computed in integers; equal to upstream's float formula for all lengths
/// below 2^52 / m.
int cp_size_needed(int64_t length, int64_t max_seqlen_per_rank, int min_cp);

/// Schedule one step's samples (in global-id order) into micro-batches with the chosen variant,
/// then apply the VPP alignment when knobs.vpp_group > 1. Errors, with the sample id, where
/// upstream raises or would loop forever (a sequence needing more ranks than the pool, a fill that
/// does not fit, a VPP alignment with no splittable micro-batch). Every variant costs about
/// n log n for n samples (the bucketed ones re-bucket the leftovers per micro-batch from counts
/// kept over them).
Result<std::vector<MicroBatch>> schedule_step(std::span<const Sample> samples,
                                              const SchedulerKnobs& knobs);

/// align_sample_id_groups: split tail micro-batches at a CP-group boundary until the count is a
/// multiple of `multiple`, re-filling each half by doubling CP groups.
Result<std::vector<MicroBatch>> align_to_vpp_group(std::vector<MicroBatch> mbs, int ranks,
                                                   int multiple);

/// The static-CP packed baseline DpBalancedScheduler: next-fit packing in input order into bins of
/// m*cp tokens (at most `max_num_seqs` per bin when > 0), bin count made a multiple of
/// dp*vpp_group, micro-batch i gives bin i*dp+d to all cp ranks of DP replica d (one group of
/// size cp per replica). Errors: not enough samples to split bins (upstream assertion).
Result<std::vector<MicroBatch>> schedule_dp_balanced(std::span<const Sample> samples, int dp,
                                                     int cp, int64_t max_seqlen_per_rank,
                                                     int vpp_group = 0, int max_num_seqs = 0);

// ----------------------------------------------------------------------------------------------
// Time model (dynamic_cp.md §8) and the simulation report
// ----------------------------------------------------------------------------------------------

/// Per-rank micro-batch time T = sum_i (alpha*L_i^2 + beta*L_i)/c + n_layers * exposed CP comm,
/// where the ring-attention KV exchange of a CP-c rank moves 3*(c-1)*2*tokens*kv_hidden*bytes per
/// layer (forward KV, backward KV and dKV), overlapped with that layer's attention compute, plus a
/// per-ring-step latency. c = 1 costs no communication. Defaults: the Megatron dev Dynamic-CP
/// example model (12 layers, hidden 2048, FFN 8192) on H100-class GPUs.
struct TimeModel {
  int n_layers = 12;               ///< Transformer layers (per pipeline stage).
  int hidden = 2048;               ///< Hidden size h.
  int ffn_hidden = 8192;           ///< MLP inner size.
  int kv_hidden = 2048;            ///< num_query_groups * kv_channels (h for MHA).
  bool gated_linear_unit = false;  ///< SwiGLU-style MLP: three h x ffn matrices instead of two.
  int tp = 1;                      ///< Tensor parallel size: divides compute, spreads groups.
  double bytes_per_element = 2.0;  ///< bf16 activations.
  double tflops = 400.0;           ///< Sustained dense TFLOP/s per GPU.
  int gpus_per_node = 8;           ///< CP groups of c*tp <= this stay on NVLink.
  double intra_node_gbps = 150.0;  ///< GB/s per GPU for CP ring send/recv inside a node.
  double inter_node_gbps = 25.0;   ///< GB/s per GPU across nodes.
  double step_latency_us = 15.0;   ///< Fixed cost of one ring step (launch, sync), microseconds.

  /// Return alpha: seconds per L^2 of one sequence (whole model, forward + backward).
  double alpha() const;
  /// Return beta: seconds per token (whole model, forward + backward).
  double beta() const;
  /// Return the modelled time (s) of one rank holding a packed batch of `lengths` at CP size
  /// `cp` (all the rank's sequences share its CP group, as in a THD micro-batch).
  double rank_time(std::span<const int64_t> lengths, int cp) const;
  /// Return the useful compute time (s) of one sequence, i.e. at CP 1 with no communication.
  double useful_time(int64_t length) const;
};

/// How the time model's estimated speed-up over packed static CP compares with measured ones:
/// Megatron-LM's published Dynamic CP benchmark (dev examples/dynamic_context_parallel/README.md
/// @192cbc35, "Slurm Benchmark Results": TP1 CP4, 4 to 64 GPUs at 4 per node, 12 layers, hidden
/// 2048; tests/fixtures/dcp/megatron_dcp_benchmark.json). Each setup simulated with 20 seeds of its
/// length distribution and its padding, at the default time model: the largest relative error
/// of the five estimates and their mean. Never fitted (the defaults predate the comparison); the
/// dcp tests recompute both, so that a change of the model changes these with it.
inline constexpr double kPublishedSpeedupMaxError = 0.15;
inline constexpr double kPublishedSpeedupMeanError = 0.07;
/// On the same benchmark, the measured step times (10% trimmed means, both schedulers) over the
/// time model's: the model prices the layers' compute and CP traffic only, not the output layer,
/// the optimizer step, DP gradient sync or launch overheads, which dominate a 12-layer model.
inline constexpr std::pair<double, double> kPublishedStepTimeRatio{5.3, 6.8};

/// Everything `hcp-plan dcp` needs to run.
struct SimulationInput {
  std::vector<int64_t> lengths;  ///< In file order; global ids are positions.
  SchedulerKnobs knobs;
  int64_t global_batch = 0;  ///< Sequences per step; 0 means the whole input is one step.
  int64_t seq_length = 0;    ///< BSHD padding target; 0 means the longest input sequence.
  TimeModel time;
};

/// Per-rank load of one micro-batch, in the reference's analyse() form.
struct MicroBatchLoad {
  std::vector<int> local_cp_size;  ///< [rank] size of the rank's CP group.
  std::vector<double> work;        ///< [rank] sum L^2/c (upstream's cost model).
  std::vector<double> tokens;      ///< [rank] sum L/c.
  std::vector<double> time_s;      ///< [rank] TimeModel::rank_time.
};

/// One modelled schedule (dynamic or a static baseline) over all steps.
struct ScheduleCost {
  int64_t microbatches = 0;  ///< Total over all steps.
  double time_s = 0;         ///< Sum over micro-batches of the slowest rank (barrier each).
  double utilization = 0;    ///< Useful compute time / (ranks * time_s).
};

/// The result of a simulation.
struct SimulationReport {
  SimulationInput input;  ///< Copy of the knobs (lengths cleared).
  int64_t samples = 0;
  int64_t tokens = 0;
  int64_t steps = 0;
  std::map<int, int64_t> cp_size_histogram;  ///< CP size -> samples scheduled at it.
  std::map<int, int64_t> cp_size_tokens;     ///< CP size -> tokens scheduled at it.
  std::vector<int64_t> microbatches_per_step;
  std::vector<MicroBatch> first_step;  ///< The first step's schedule.
  std::vector<MicroBatchLoad> first_step_load;
  std::vector<int64_t> first_step_lengths;  ///< Lengths of the first step, by id - first id.
  int64_t first_step_offset = 0;            ///< Global id of the first step's first sample.
  double load_balance = 0;         ///< sum work / (ranks * sum over micro-batches of max work).
  double max_tokens_per_rank = 0;  ///< Largest sum L/c of any rank and micro-batch.
  ScheduleCost dynamic;
  ScheduleCost static_bshd;  ///< Padded to seq_length, one sequence per replica.
  int64_t bshd_seq_length = 0;
  std::optional<ScheduleCost> static_thd;  ///< dp_balanced; empty when it fails upstream.
  std::string static_thd_error;            ///< Why dp_balanced failed, when it did.
  double speedup_vs_thd = 0;               ///< static_thd.time / dynamic.time (0 when absent).
  double speedup_vs_bshd = 0;
  std::vector<std::string> warnings;  ///< E.g. non-power-of-two DP×CP.
};

/// Run the scheduler over every step and model the times. Errors: invalid knobs, empty input,
/// and scheduler failures (prefixed with the step number).
Result<SimulationReport> simulate(const SimulationInput& input);

/// Render the report for people: knobs, CP-size histogram with bars, micro-batches per step, the
/// first step's per-micro-batch load, utilization and the static baselines.
std::string report_text(const SimulationReport& report);
/// Render the report as JSON (ARCHITECTURE.md §4 keys), pretty-printed.
std::string report_json(const SimulationReport& report);

}  // namespace hcp::dcp
