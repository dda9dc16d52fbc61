#include "hcp/checked.h"

namespace hcp {

namespace {

Error overflow_error(const std::string& what, const Location& where, const std::string& key) {
  Error e;
  e.message = what + " overflows a 64-bit integer";
  e.location = where;
  e.key = key;
  return e;
}

}  // namespace

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
