// Small string helpers for the log parser: fast substring search and number parsing on views.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace hcp::logscan {

/// Return the position of `needle` in `hay` or npos (memmem: much faster than a char loop).
inline size_t find(std::string_view hay, std::string_view needle, size_t from = 0) {
  if (from > hay.size() || needle.size() > hay.size() - from) return std::string_view::npos;
  const void* p = memmem(hay.data() + from, hay.size() - from, needle.data(), needle.size());
  return p == nullptr ? std::string_view::npos
                      : static_cast<size_t>(static_cast<const char*>(p) - hay.data());
}

inline bool contains(std::string_view hay, std::string_view needle) {
  return find(hay, needle) != std::string_view::npos;
}

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/// Parse a non-negative integer at `pos` (after optional spaces); advance `pos` past it.
inline std::optional<int64_t> parse_int_at(std::string_view s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ')
    ++pos;
  size_t start = pos;
  int64_t v = 0;
  while (pos < s.size() && is_digit(s[pos]) && pos - start < 18) {
    v = v * 10 + (s[pos] - '0');
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return v;
}

/// Parse a decimal number ("123", "12.5", "1.2E+03") at `pos` after optional spaces.
inline std::optional<double> parse_double_at(std::string_view s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ')
    ++pos;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), v);
  if (ec != std::errc()) return std::nullopt;
  pos = static_cast<size_t>(end - s.data());
  return v;
}

/// Anchors of the line recognizers, found in one pass over the line (see line_anchors).
enum Anchor : unsigned {
  kIteration = 1u << 0,     ///< "elapsed time per iteration (ms):"
  kMemory = 1u << 1,        ///< "memory (MB) | allocated:"
  kProcessGroup = 1u << 2,  ///< "ProcessGroupNCCL" or "PG GUID "
  kNccl = 1u << 3,          ///< " NCCL "
  kVersion = 1u << 4,       ///< "ersion" or "=="
  kOom = 1u << 5,           ///< "CUDA out of memory"
  kWatchdog = 1u << 6,      ///< "Watchdog caught"
  kNvidia = 1u << 7,        ///< "NVIDIA "
  kCudaError = 1u << 8,     ///< "CUDA error: "
  kDeviceAssert = 1u << 9,  ///< "Assertion `" (a CUDA kernel's device-side assert)
};

/// Bytes that can start (or mark) an anchor: '(' for "(ms):" and "(MB)", the capitals of
/// ProcessGroupNCCL, PG GUID, NCCL, NVIDIA, CUDA and Watchdog, 'v'/'V' for version, '=', and
/// '`' for a device-side "Assertion `cond` failed.".
struct AnchorBytes {
  bool table[256] = {};
  constexpr AnchorBytes() {
    for (unsigned char c : {'(', 'P', 'N', 'C', 'W', 'v', 'V', '=', '`'})
      table[c] = true;
  }
};
inline constexpr AnchorBytes kAnchorBytes{};

/// Return the anchors the line holds: one pass with a table lookup per byte and a compare only
/// at the few bytes that can start an anchor, instead of one substring search per recognizer.
inline unsigned line_anchors(std::string_view s) {
  unsigned found = 0;
  const char* p = s.data();
  size_t n = s.size();
  auto at = [&](size_t i, std::string_view word) {
    return i + word.size() <= n && std::memcmp(p + i, word.data(), word.size()) == 0;
  };
  auto before = [&](size_t i, std::string_view word) {
    return i >= word.size() && std::memcmp(p + i - word.size(), word.data(), word.size()) == 0;
  };
  size_t i = 0;
  for (; i + 2 <= n; ++i) {
#if defined(__SSE2__)
    // Skip 16 bytes at a time while none of them can start an anchor.
    while (i + 16 <= n) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      __m128i hit = _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('(')),
                                                           _mm_cmpeq_epi8(v, _mm_set1_epi8('P'))),
                                              _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('N')),
                                                           _mm_cmpeq_epi8(v, _mm_set1_epi8('C')))),
                                 _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('W')),
                                                           _mm_cmpeq_epi8(v, _mm_set1_epi8('v'))),
                                              _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('V')),
                                                           _mm_cmpeq_epi8(v, _mm_set1_epi8('=')))));
      hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8('`')));
      int mask = _mm_movemask_epi8(hit);
      if (mask == 0) {
        i += 16;
        continue;
      }
      i += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
      break;
    }
    if (i + 2 > n) break;
#endif
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (!kAnchorBytes.table[c]) continue;
    switch (c) {
      case '(':
        if (at(i, "(ms):") && before(i, "elapsed time per iteration ")) found |= kIteration;
        if (at(i, "(MB) | allocated:") && before(i, "memory ")) found |= kMemory;
        break;
      case 'P':
        if (p[i + 1] == 'r' && at(i, "ProcessGroupNCCL")) found |= kProcessGroup;
        if (p[i + 1] == 'G' && at(i, "PG GUID ")) found |= kProcessGroup;
        break;
      case 'N':
        if (p[i + 1] == 'C' && i > 0 && p[i - 1] == ' ' && at(i, "NCCL ")) found |= kNccl;
        if (p[i + 1] == 'V' && at(i, "NVIDIA ")) found |= kNvidia;
        break;
      case '=':
        if (p[i + 1] == '=') found |= kVersion;
        break;
      case 'v':
      case 'V':
        if (at(i + 1, "ersion")) found |= kVersion;
        break;
      case 'C':
        if (p[i + 1] == 'U' && at(i, "CUDA out of memory")) found |= kOom;
        if (p[i + 1] == 'U' && at(i, "CUDA error: ")) found |= kCudaError;
        break;
      case 'W':
        if (p[i + 1] == 'a' && at(i, "Watchdog caught")) found |= kWatchdog;
        break;
      case '`':
        if (before(i, "Assertion ")) found |= kDeviceAssert;
        break;
      default:
        break;
    }
  }
  return found;
}

/// Return the number that follows `label` in `s`, or nullopt.
inline std::optional<double> number_after(std::string_view s, std::string_view label) {
  size_t at = find(s, label);
  if (at == std::string_view::npos) return std::nullopt;
  size_t pos = at + label.size();
  return parse_double_at(s, pos);
}

}  // namespace hcp::logscan
