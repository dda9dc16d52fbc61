// Calibration: what `hcp-plan bench` measured on a node, in a JSON file that
// `hcp-plan plan --calibration FILE` feeds into the cost model.
//
// Schema (version 1). Every key except "schema_version" is optional; the planner uses its own
// defaults for whatever is absent. Bandwidths are GB/s (1e9 bytes/s), nccl-tests "busbw".
//
//   {
//     "schema_version": 1,
//     "source": "hcp-plan bench 0.1.0",          // free text: who wrote it
//     "device": "NVIDIA H100 80GB HBM3",         // GPU name
//     "gpus": 8,                                  // GPUs measured on this node
//     "nccl_version": "2.28.9",
//     "option": "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2",   // the --option benchmarked
//     "summary": {
//       "attention_tflops": 520.0,      // achieved attention forward TFLOP/s (flash FLOP
//       convention) "intra_node_a2a_gbps": 360.0,   // all-to-all busbw inside a node
//       "intra_node_p2p_gbps": 150.0,   // ring send/recv busbw between neighbours inside a node
//       "inter_node_a2a_gbps": 45.0,    // all-to-all busbw per GPU across nodes
//       "inter_node_p2p_gbps": 45.0     // ring send/recv busbw per GPU across nodes (NIC)
//     },
//     "attention": [ { "dtype": "bf16", "head_dim": 128, "causal": true, "batch": 1,
//                      "heads": 32, "kv_heads": 8, "seq_q": 8192, "seq_kv": 8192,
//                      "time_ms": 1.2, "tflops": 480.0, "max_abs_error": 0.004 } ],
//     "collectives": [ { "op": "alltoall" | "sendrecv", "scope": "intra_node" | "inter_node",
//                        "ranks": 8, "bytes": 33554432, "time_us": 120.0,
//                        "algbw_gbps": 280.0, "busbw_gbps": 245.0 } ]
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {

/// The calibration schema version this build reads and writes.
inline constexpr int kCalibrationSchemaVersion = 1;

/// One timed attention kernel (forward).
struct AttentionMeasurement {
  std::string dtype = "bf16";  ///< "bf16" or "fp16".
  int64_t head_dim = 128;
  bool causal = true;
  int64_t batch = 1;
  int64_t heads = 0;                    ///< Query heads in the kernel call.
  int64_t kv_heads = 0;                 ///< KV heads in the kernel call.
  int64_t seq_q = 0;                    ///< Query tokens.
  int64_t seq_kv = 0;                   ///< Key/value tokens.
  double time_ms = 0;                   ///< Mean time per call after warm-up.
  double tflops = 0;                    ///< 4*b*h*sq*skv*d (halved when causal) / time.
  std::optional<double> max_abs_error;  ///< Against the cuBLAS unfused reference, if checked.
  std::string kernel;  ///< hcp-plan's kernel that ran (gpu_bench_abi.h); "" if unrecorded.
};

/// One timed NCCL collective, bandwidths as nccl-tests defines them.
struct CollectiveMeasurement {
  std::string op;         ///< "alltoall" or "sendrecv".
  std::string scope;      ///< "intra_node" or "inter_node".
  int64_t ranks = 0;      ///< GPUs taking part.
  int64_t bytes = 0;      ///< nccl-tests "size": bytes per rank (alltoall: n * per-peer bytes).
  double time_us = 0;     ///< Mean time per operation.
  double algbw_gbps = 0;  ///< bytes / time.
  double busbw_gbps = 0;  ///< algbw * (n-1)/n for alltoall, * 1 for sendrecv.
};

/// The figures the cost model reads. Absent fields mean "use the model's default".
struct CalibrationSummary {
  /// Forward TFLOP/s of the attention TE runs (cuDNN or flash kernels), as check-log fits it from
  /// a training log. `bench` leaves it unset: its own kernel is not the one TE runs.
  std::optional<double> attention_tflops;
  std::optional<double> intra_node_a2a_gbps;  ///< All-to-all busbw inside a node.
  std::optional<double> intra_node_p2p_gbps;  ///< Ring send/recv busbw inside a node.
  std::optional<double> inter_node_a2a_gbps;  ///< All-to-all busbw per GPU across nodes.
  std::optional<double> inter_node_p2p_gbps;  ///< Ring send/recv busbw per GPU across nodes.

  /// True when any figure is present: one that apply_calibration puts in place of a default.
  bool has_figures() const {
    return attention_tflops || intra_node_a2a_gbps || intra_node_p2p_gbps || inter_node_a2a_gbps ||
           inter_node_p2p_gbps;
  }
};

/// A whole calibration file.
struct Calibration {
  int schema_version = kCalibrationSchemaVersion;
  std::string source;        ///< Who wrote it ("hcp-plan bench 0.1.0", "hand-written").
  std::string device;        ///< GPU name.
  int64_t gpus = 0;          ///< GPUs on the measured node (0 when unknown).
  std::string nccl_version;  ///< e.g. "2.28.9"; empty when unknown.
  std::string option;        ///< The benchmarked --option, canonical text; may be empty.
  CalibrationSummary summary;
  std::vector<AttentionMeasurement> attention;
  std::vector<CollectiveMeasurement> collectives;
};

/// Parse calibration JSON text; `name` is used as the file in error locations. Errors: malformed
/// JSON (with line:column), missing or unsupported schema_version, wrong value types, negative
/// or zero bandwidths/throughputs, unknown "op"/"scope"; the key of the bad value is named.
Result<Calibration> parse_calibration(const std::string& text, const std::string& name);

/// Read and parse a calibration file. Errors as parse_calibration, plus unreadable file.
Result<Calibration> load_calibration(const std::string& path);

/// Return the calibration as pretty-printed JSON text (2-space indent, trailing newline).
std::string calibration_to_json(const Calibration& calibration);

/// Write the calibration JSON to `path`. Return an error when the file cannot be written.
Status save_calibration(const Calibration& calibration, const std::string& path);

}  // namespace hcp
