// Calibration JSON: load and save (schema in include/hcp/calibration.h).
#include "hcp/calibration.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <vector>

#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/file_output.h"
#include "hcp/json_io.h"

namespace hcp {

namespace {

using json = nlohmann::ordered_json;

/// A kernel's largest absolute error against the reference (0 when exact).
constexpr PhysicalRange kAbsoluteError{"", 1e-300, 1e6, true};

/// Build an error located at a file (built field by field: GCC 12 warns on the aggregate form).
Error file_error(const std::string& message, const std::string& file, const std::string& key) {
  Error e;
  e.message = message;
  e.location.file = file;
  e.key = key;
  return e;
}

/// Reads typed fields from a JSON object, remembering the first error with its key path.
class Reader {
 public:
  Reader(const std::string& file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

  const std::optional<Error>& error() const { return error_; }

  void fail(const std::string& key, const std::string& message) {
    if (error_) return;
    error_.emplace();
    error_->message = "calibration key '" + key + "': " + message;
    error_->location.file = file_;
    error_->key = key;
  }

  /// Keep an error found by a nested reader (first error wins).
  void adopt(const Error& e) {
    if (!error_) error_ = e;
  }

  std::string path(const std::string& key) const { return prefix_.empty() ? key : prefix_ + key; }

  /// A key the schema does not have is an error (a misspelt key would otherwise be ignored and
  /// its figure silently left at the default), with a did-you-mean over `known`.
  void reject_unknown(const json& obj, const std::vector<std::string>& known,
                      const std::string& within = "") {
    for (const auto& [key, value] : obj.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      return fail(path(within + key), "unknown key" + did_you_mean(key, closest_match(key, known)));
    }
  }

  void read_string(const json& obj, const std::string& key, std::string& out) {
    if (!obj.contains(key)) return;
    if (!obj[key].is_string()) return fail(path(key), "expected a string");
    out = obj[key].get<std::string>();
  }

  void read_int(const json& obj, const std::string& key, int64_t& out, bool positive = false) {
    if (!obj.contains(key)) return;
    if (!obj[key].is_number_integer()) return fail(path(key), "expected an integer");
    if (obj[key].is_number_unsigned() &&
        obj[key].template get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return fail(path(key), "out of range: " + obj[key].dump());
    }
    out = obj[key].get<int64_t>();
    if (out < 0 || (positive && out == 0)) fail(path(key), "must be positive");
  }

  void read_bool(const json& obj, const std::string& key, bool& out) {
    if (!obj.contains(key)) return;
    if (!obj[key].is_boolean()) return fail(path(key), "expected true or false");
    out = obj[key].get<bool>();
  }

  /// Read a number inside its physical range (checked.h: finite, normal, in range).
  void read_number(const json& obj, const std::string& key, double& out,
                   const PhysicalRange& range) {
    if (!obj.contains(key)) return;
    if (!obj[key].is_number()) return fail(path(key), "expected a number");
    out = obj[key].get<double>();
    if (out <= 0 && !(out == 0 && range.zero_allowed)) return fail(path(key), "must be positive");
    if (auto why = physical_range_error(out, range))
      fail(path(key), obj[key].dump() + " is " + *why);
  }

  void read_optional(const json& obj, const std::string& key, std::optional<double>& out,
                     const PhysicalRange& range) {
    if (!obj.contains(key) || obj[key].is_null()) return;
    double value = 0;
    read_number(obj, key, value, range);
    out = value;
  }

 private:
  std::string file_;
  std::string prefix_;
  std::optional<Error> error_;
};

void read_summary(Reader& r, const json& obj, CalibrationSummary& s) {
  if (!obj.is_object()) return r.fail("summary", "expected an object");
  r.reject_unknown(obj,
                   {"attention_tflops", "intra_node_a2a_gbps", "intra_node_p2p_gbps",
                    "inter_node_a2a_gbps", "inter_node_p2p_gbps"},
                   "summary.");
  r.read_optional(obj, "attention_tflops", s.attention_tflops, kTflops);
  r.read_optional(obj, "intra_node_a2a_gbps", s.intra_node_a2a_gbps, kBandwidthGBps);
  r.read_optional(obj, "intra_node_p2p_gbps", s.intra_node_p2p_gbps, kBandwidthGBps);
  r.read_optional(obj, "inter_node_a2a_gbps", s.inter_node_a2a_gbps, kBandwidthGBps);
  r.read_optional(obj, "inter_node_p2p_gbps", s.inter_node_p2p_gbps, kBandwidthGBps);
}

void read_attention(Reader& r, const json& obj, AttentionMeasurement& m) {
  r.reject_unknown(obj, {"dtype", "head_dim", "causal", "batch", "heads", "kv_heads", "seq_q",
                         "seq_kv", "time_ms", "tflops", "max_abs_error", "kernel"});
  r.read_string(obj, "dtype", m.dtype);
  if (m.dtype != "bf16" && m.dtype != "fp16") r.fail(r.path("dtype"), "expected bf16 or fp16");
  r.read_int(obj, "head_dim", m.head_dim, true);
  r.read_bool(obj, "causal", m.causal);
  r.read_int(obj, "batch", m.batch, true);
  r.read_int(obj, "heads", m.heads);
  r.read_int(obj, "kv_heads", m.kv_heads);
  r.read_int(obj, "seq_q", m.seq_q);
  r.read_int(obj, "seq_kv", m.seq_kv);
  r.read_number(obj, "time_ms", m.time_ms, or_zero(kMilliseconds));
  r.read_number(obj, "tflops", m.tflops, kTflops);
  r.read_optional(obj, "max_abs_error", m.max_abs_error, kAbsoluteError);
  r.read_string(obj, "kernel", m.kernel);
}

void read_collective(Reader& r, const json& obj, CollectiveMeasurement& m) {
  r.reject_unknown(obj, {"op", "scope", "ranks", "bytes", "time_us", "algbw_gbps", "busbw_gbps"});
  r.read_string(obj, "op", m.op);
  if (m.op != "alltoall" && m.op != "sendrecv")
    r.fail(r.path("op"), "expected alltoall or sendrecv");
  r.read_string(obj, "scope", m.scope);
  if (m.scope != "intra_node" && m.scope != "inter_node") {
    r.fail(r.path("scope"), "expected intra_node or inter_node");
  }
  r.read_int(obj, "ranks", m.ranks, true);
  r.read_int(obj, "bytes", m.bytes);
  r.read_number(obj, "time_us", m.time_us, or_zero(kMicroseconds));
  r.read_number(obj, "algbw_gbps", m.algbw_gbps, kBandwidthGBps);
  r.read_number(obj, "busbw_gbps", m.busbw_gbps, or_zero(kBandwidthGBps));
}

/// Read a list of measurement objects under `key` with `read_one`.
template <typename T, typename F>
void read_list(Reader& r, const json& root, const std::string& key, std::vector<T>& out,
               const std::string& file, F read_one) {
  if (!root.contains(key)) return;
  if (!root[key].is_array()) return r.fail(key, "expected a list");
  for (size_t i = 0; i < root[key].size(); ++i) {
    const json& item = root[key][i];
    std::string prefix = key + "[" + std::to_string(i) + "].";
    if (!item.is_object()) return r.fail(key + "[" + std::to_string(i) + "]", "expected an object");
    Reader inner(file, prefix);
    T m;
    read_one(inner, item, m);
    if (inner.error()) return r.adopt(*inner.error());
    out.push_back(m);
  }
}

Result<Calibration> from_json(const json& root, const std::string& name) {
  if (!root.is_object()) return file_error("calibration must be a JSON object", name, "");
  if (!root.contains("schema_version")) {
    return file_error("calibration has no schema_version (expected " +
                          std::to_string(kCalibrationSchemaVersion) + ")",
                      name, "schema_version");
  }
  Calibration c;
  Reader r(name, "");
  r.reject_unknown(root, {"schema_version", "source", "device", "gpus", "nccl_version", "option",
                          "summary", "attention", "collectives"});
  int64_t version = 0;
  r.read_int(root, "schema_version", version);
  if (!r.error() && version != kCalibrationSchemaVersion) {
    r.fail("schema_version", "unsupported version " + std::to_string(version) +
                                 " (this build reads " + std::to_string(kCalibrationSchemaVersion) +
                                 ")");
  }
  r.read_string(root, "source", c.source);
  r.read_string(root, "device", c.device);
  r.read_int(root, "gpus", c.gpus);
  r.read_string(root, "nccl_version", c.nccl_version);
  r.read_string(root, "option", c.option);
  if (root.contains("summary")) read_summary(r, root["summary"], c.summary);
  read_list(r, root, "attention", c.attention, name, read_attention);
  read_list(r, root, "collectives", c.collectives, name, read_collective);
  if (r.error()) {
    // The reader reports "calibration key 'k': ..." which already names the key.
    return *r.error();
  }
  return c;
}

void put_optional(json& obj, const char* key, const std::optional<double>& value) {
  if (value && std::isfinite(*value)) obj[key] = *value;
}

/// Write a figure the reader requires to be positive only when it is: a figure absent from the
/// file it was loaded from reads as 0, and writing that 0 would make the file unreadable.
template <typename T>
void put_positive(json& obj, const char* key, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) return;
  }
  if (value > 0) obj[key] = value;
}

/// Write a figure the reader requires to be non-negative (finite) only when it is.
template <typename T>
void put_non_negative(json& obj, const char* key, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) return;
  }
  if (value >= 0) obj[key] = value;
}

}  // namespace

Result<Calibration> parse_calibration(const std::string& text, const std::string& name) {
  // Syntax errors (with line:column), numbers out of range (1e400), duplicate keys and absurd
  // nesting are all errors naming the file; nothing escapes this function.
  Result<json> root = parse_ordered_json_input(text, name, "calibration JSON");
  if (!root) return root.error();
  return from_json(*root, name);
}

Result<Calibration> load_calibration(const std::string& path) {
  Result<std::string> text = read_input_file(path, InputKind::kCalibration);
  if (!text) return text.error();
  return parse_calibration(*text, path);
}

std::string calibration_to_json(const Calibration& c) {
  json root;
  root["schema_version"] = c.schema_version;
  root["source"] = c.source;
  root["device"] = c.device;
  put_non_negative(root, "gpus", c.gpus);
  root["nccl_version"] = c.nccl_version;
  root["option"] = c.option;
  json summary = json::object();
  put_optional(summary, "attention_tflops", c.summary.attention_tflops);
  put_optional(summary, "intra_node_a2a_gbps", c.summary.intra_node_a2a_gbps);
  put_optional(summary, "intra_node_p2p_gbps", c.summary.intra_node_p2p_gbps);
  put_optional(summary, "inter_node_a2a_gbps", c.summary.inter_node_a2a_gbps);
  put_optional(summary, "inter_node_p2p_gbps", c.summary.inter_node_p2p_gbps);
  root["summary"] = summary;
  root["attention"] = json::array();
  for (const auto& m : c.attention) {
    json a = json::object();
    a["dtype"] = m.dtype;
    put_positive(a, "head_dim", m.head_dim);
    a["causal"] = m.causal;
    put_positive(a, "batch", m.batch);
    put_non_negative(a, "heads", m.heads);
    put_non_negative(a, "kv_heads", m.kv_heads);
    put_non_negative(a, "seq_q", m.seq_q);
    put_non_negative(a, "seq_kv", m.seq_kv);
    put_non_negative(a, "time_ms", m.time_ms);
    put_positive(a, "tflops", m.tflops);
    put_optional(a, "max_abs_error", m.max_abs_error);
    if (!m.kernel.empty()) a["kernel"] = m.kernel;
    root["attention"].push_back(a);
  }
  root["collectives"] = json::array();
  for (const auto& m : c.collectives) {
    json o = json::object();
    o["op"] = m.op;
    o["scope"] = m.scope;
    put_positive(o, "ranks", m.ranks);
    put_non_negative(o, "bytes", m.bytes);
    put_non_negative(o, "time_us", m.time_us);
    put_positive(o, "algbw_gbps", m.algbw_gbps);
    put_non_negative(o, "busbw_gbps", m.busbw_gbps);
    root["collectives"].push_back(o);
  }
  return json_dump(root, 2) + "\n";
}

Status save_calibration(const Calibration& calibration, const std::string& path) {
  return write_output_file(path, calibration_to_json(calibration));
}

}  // namespace hcp
