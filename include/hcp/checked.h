// Checked integer arithmetic for sizes and counts read from input files and the command line.
// Overflow is a bad-input error (a value), never undefined behaviour or a wrapped result.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "hcp/diagnostic.h"

namespace hcp {

/// Largest world (GPUs in one job) any command accepts: 2^20, far above the largest machines
/// (~10^5 GPUs), and small enough that products of a few such counts stay far from overflow.
inline constexpr int64_t kMaxWorldGpus = int64_t{1} << 20;

/// The range that is physical for a figure read from an input file. A figure outside it (or not
/// finite, or denormal: 5e-324 TFLOP/s is "free attention") is bad input, never a prediction.
struct PhysicalRange {
  const char* unit;           ///< "GB/s", "TFLOP/s", ... for messages.
  double min;                 ///< Smallest non-zero value.
  double max;                 ///< Largest value.
  bool zero_allowed = false;  ///< 0 means "not given" for this field.
};

/// Bandwidths in GB/s (NVLink 5 is 1800 GB/s per GPU; a NIC port 400 GB/s).
inline constexpr PhysicalRange kBandwidthGBps{"GB/s", 1e-3, 1e5, false};
/// Link speeds in Gbit/s (a NIC port is at most 3.2 Tbit/s today).
inline constexpr PhysicalRange kLinkGbits{"Gbit/s", 1e-3, 1e6, false};
/// Compute rates in TFLOP/s (a B200 is 4.5 PFLOP/s dense FP8).
inline constexpr PhysicalRange kTflops{"TFLOP/s", 1e-3, 1e6, false};
/// Measured training throughput in tokens/s per GPU (a 100M-parameter model at short sequences
/// trains at about 10^6 on a B200).
inline constexpr PhysicalRange kTokensPerGpu{"tokens/s/GPU", 1e-3, 1e7, false};
/// PCIe rates in GB/s per direction (PCIe 7.0, 128 GT/s, at x32 is 512).
inline constexpr PhysicalRange kPcieGBps{"GB/s", 1e-3, 512, false};
/// Memory sizes in GiB.
inline constexpr PhysicalRange kMemoryGib{"GiB", 1e-3, 1e6, false};
/// Step, kernel and collective times in milliseconds (up to a week).
inline constexpr PhysicalRange kMilliseconds{"ms", 1e-9, 6.048e8, false};
/// Times in microseconds (up to a week).
inline constexpr PhysicalRange kMicroseconds{"us", 1e-6, 6.048e11, false};

/// Probabilities (dropout rates): 0 (none) or 1e-12 to 1.
inline constexpr PhysicalRange kProbability{"probability", 1e-12, 1, true};

/// Relative tolerances and error fractions (0.05 is 5 %): 0 (none) or 1e-9 to 10 (1000 %).
inline constexpr PhysicalRange kFraction{"fractions (0.05 = 5%)", 1e-9, 10, true};

/// The same range with 0 allowed ("not given").
constexpr PhysicalRange or_zero(PhysicalRange range) {
  range.zero_allowed = true;
  return range;
}

/// The range that is physical for an integer read from an input file (a size, a count, a
/// parallel degree). An integer outside it (or one that overflows int64) is bad input.
struct CountRange {
  const char* what;  ///< "a size", "a parallel size", ... for messages.
  int64_t min;       ///< Smallest value.
  int64_t max;       ///< Largest value.
};

/// Largest size or dimension (layers, hidden size, heads, sequence length): 2^31 - 1, as the
/// recipe schema bounds its size fields.
inline constexpr int64_t kMaxDimension = (int64_t{1} << 31) - 1;
/// Sizes and dimensions: 1 to 2^31 - 1.
inline constexpr CountRange kDimensionCount{"a size", 1, kMaxDimension};
/// Parallel degrees (TP, PP, CP, EP, ...) and GPU counts: 1 to 2^20, the largest world.
inline constexpr CountRange kParallelCount{"a parallel size", 1, kMaxWorldGpus};
/// Other counts (ranks of a low-rank projection, extra layers, ...): 0 to 2^31 - 1.
inline constexpr CountRange kCountOrZero{"a count", 0, kMaxDimension};
/// Attention window bounds: -1 (unbounded, TE's convention) to 2^31 - 1.
inline constexpr CountRange kWindowBound{"a window bound (-1 for none)", -1, kMaxDimension};

/// Why `value` is not a physical figure of `range` ("not finite", "denormal", "below the physical
/// minimum 0.001 GB/s", ...), or nullopt when it is one.
std::optional<std::string> physical_range_error(double value, const PhysicalRange& range);

/// `value` as the shortest text that reads back ("0.001", "1e+05", "nan", "-inf"), for messages.
std::string format_number_for_error(double value);

/// The one checked parse of a number from an input file: `text` whole as a decimal number
/// (from_chars), finite, normal and inside `range`; else an error "expected a number in GB/s,
/// got 'x'" or the range's reason, without a location (the caller names file, line and field).
Result<double> parse_physical(std::string_view text, const PhysicalRange& range);

/// Why `value` is not inside `range` ("below the physical range [1, 2147483647] (a size)"), or
/// nullopt when it is.
std::optional<std::string> count_range_error(int64_t value, const CountRange& range);

/// The checked parse of an integer from an input file: `text` whole as a decimal integer
/// (from_chars: no sign but '-', no spaces, no hex), inside int64 and inside `range`; else an
/// error "expected an integer, got 'x'", "'x' overflows a 64-bit integer" or the range's reason,
/// without a location (the caller names file, line and field).
Result<int64_t> parse_checked_count(std::string_view text, const CountRange& range);

/// `text` whole as a world size (a count of GPUs, 1 to kMaxWorldGpus); else an error naming the
/// text, without a location. A 19-digit count is an error, never cut.
Result<int64_t> parse_world_size(std::string_view text);

/// a + b, or nullopt when the sum does not fit in int64_t.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a - b, or nullopt when the difference does not fit in int64_t.
inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a * b, or nullopt when the product does not fit in int64_t.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// Product of all factors, or nullopt when any partial product overflows int64_t.
inline std::optional<int64_t> checked_product(std::initializer_list<int64_t> factors) {
  int64_t out = 1;
  for (int64_t f : factors) {
    if (__builtin_mul_overflow(out, f, &out)) return std::nullopt;
  }
  return out;
}

/// `value` as an int when it fits, else nullopt.
inline std::optional<int> checked_int(int64_t value) {
  if (value < INT32_MIN || value > INT32_MAX) return std::nullopt;
  return static_cast<int>(value);
}

/// a * b as a Result: overflow is a bad-input Error naming `what` (e.g. "TP x PP x CP").
Result<int64_t> checked_mul_or_error(int64_t a, int64_t b, const std::string& what,
                                     const Location& where = {}, const std::string& key = {});
/// a + b as a Result: overflow is a bad-input Error naming `what`.
Result<int64_t> checked_add_or_error(int64_t a, int64_t b, const std::string& what,
                                     const Location& where = {}, const std::string& key = {});
/// Product of all factors as a Result: overflow is a bad-input Error naming `what`.
Result<int64_t> checked_product_or_error(std::initializer_list<int64_t> factors,
                                         const std::string& what, const Location& where = {},
                                         const std::string& key = {});

}  // namespace hcp
