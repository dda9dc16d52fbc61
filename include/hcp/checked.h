// Checked integer arithmetic for sizes and counts read from input files and the command line.
// Overflow is a bad-input error (a value), never undefined behaviour or a wrapped result.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "hcp/diagnostic.h"

namespace hcp {

/// Largest world (GPUs in one job) any command accepts: 2^20, far above the largest machines
/// (~10^5 GPUs), and small enough that products of a few such counts stay far from overflow.
inline constexpr int64_t kMaxWorldGpus = int64_t{1} << 20;

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
