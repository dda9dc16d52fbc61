#include "hcp/checked.h"

#include <cfloat>
#include <charconv>
#include <cmath>

namespace hcp {

namespace {

Error overflow_error(const std::string& what, const Location& where, const std::string& key) {
  Error e;
  e.message = what + " overflows a 64-bit integer";
  e.location = where;
  e.key = key;
  return e;
}

Error plain_error(std::string message) {
  Error e;
  e.message = std::move(message);
  return e;
}

}  // namespace

std::string format_number_for_error(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);  // the shortest round trip
  return ec == std::errc() ? std::string(buf, end) : "?";
}

std::optional<std::string> physical_range_error(double value, const PhysicalRange& range) {
  const std::string unit = range.unit;
  if (!std::isfinite(value)) return std::string("not a finite number");
  if (value == 0 && range.zero_allowed) return std::nullopt;
  if (value != 0 && std::fabs(value) < DBL_MIN) return std::string("a denormal number");
  if (value < range.min) {
    return "below the physical range [" + format_number_for_error(range.min) + ", " +
           format_number_for_error(range.max) + "] " + unit +
           (range.zero_allowed ? " (or 0 for none)" : "");
  }
  if (value > range.max) {
    return "above the physical range [" + format_number_for_error(range.min) + ", " +
           format_number_for_error(range.max) + "] " + unit;
  }
  return std::nullopt;
}

Result<double> parse_physical(std::string_view text, const PhysicalRange& range) {
  double value = 0;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), last, value);
  // from_chars reports a denormal or an overflowing literal as out of range: say which.
  if (ec == std::errc::result_out_of_range && ptr == last) {
    return plain_error("'" + std::string(text.substr(0, 40)) +
                       "' is out of range for a number in " + range.unit);
  }
  if (text.empty() || ec != std::errc() || ptr != last) {
    return plain_error("expected a number in " + std::string(range.unit) + ", got '" +
                       std::string(text.substr(0, 40)) + "'");
  }
  if (auto why = physical_range_error(value, range)) {
    return plain_error("'" + std::string(text.substr(0, 40)) + "' is " + *why);
  }
  return value;
}

std::optional<std::string> count_range_error(int64_t value, const CountRange& range) {
  if (value >= range.min && value <= range.max) return std::nullopt;
  return std::string(value < range.min ? "below" : "above") + " the physical range [" +
         std::to_string(range.min) + ", " + std::to_string(range.max) + "] (" + range.what + ")";
}

Result<int64_t> parse_checked_count(std::string_view text, const CountRange& range) {
  int64_t value = 0;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), last, value);
  const std::string shown(text.substr(0, 40));
  if (ec == std::errc::result_out_of_range && ptr == last) {
    return plain_error("'" + shown + "' overflows a 64-bit integer");
  }
  if (text.empty() || ec != std::errc() || ptr != last) {
    return plain_error("expected an integer, got '" + shown + "'");
  }
  if (auto why = count_range_error(value, range)) return plain_error("'" + shown + "' is " + *why);
  return value;
}

Result<int64_t> parse_world_size(std::string_view text) {
  int64_t value = 0;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), last, value);
  bool digits = !text.empty() && ptr == last;
  if (!digits || ec != std::errc() || value < 1 || value > kMaxWorldGpus) {
    return plain_error("world size '" + std::string(text.substr(0, 40)) +
                       "' is not a count of GPUs from 1 to 2^20 (" + std::to_string(kMaxWorldGpus) +
                       ")");
  }
  return value;
}

Result<int64_t> checked_mul_or_error(int64_t a, int64_t b, const std::string& what,
                                     const Location& where, const std::string& key) {
  if (auto v = checked_mul(a, b)) return *v;
  return overflow_error(what, where, key);
}

Result<int64_t> checked_add_or_error(int64_t a, int64_t b, const std::string& what,
                                     const Location& where, const std::string& key) {
  if (auto v = checked_add(a, b)) return *v;
  return overflow_error(what, where, key);
}

Result<int64_t> checked_product_or_error(std::initializer_list<int64_t> factors,
                                         const std::string& what, const Location& where,
                                         const std::string& key) {
  if (auto v = checked_product(factors)) return *v;
  return overflow_error(what, where, key);
}

}  // namespace hcp
