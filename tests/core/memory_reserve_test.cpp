// Running out of memory under a limit (ulimit -v): the failure must unwind to a catch, not abort
// in a destructor that allocates while the stack unwinds.
#include "hcp/memory_reserve.h"
#include "support/sanitizer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

namespace hcp {
namespace {

using testing::kAddressSanitizer;

/// Fill a JSON array until an allocation fails under a 512 MiB address-space limit; exit 0 when
/// the std::bad_alloc reaches the catch. The array's destructor runs during that unwinding and
/// allocates a stack of its elements: without memory it aborts.
[[noreturn]] void fill_json_until_out_of_memory(bool with_reserve) {
  rlimit limit{size_t{512} << 20, size_t{512} << 20};
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(2);
  std::set_new_handler(nullptr);
  if (with_reserve && !keep_memory_reserve()) std::_Exit(3);
  try {
    nlohmann::json rows = nlohmann::json::array();
    for (;;)
      rows.push_back({{"rank", rows.size()}, {"group", std::string(40, 'g')}});
  } catch (const std::bad_alloc&) {
    std::_Exit(memory_reserve_held() ? 4 : 0);
  }
}

TEST(MemoryReserve, OutOfMemoryUnwindsToTheCatch) {
  if (kAddressSanitizer) GTEST_SKIP() << "ASan reserves terabytes of shadow: no address limit";
  EXPECT_EXIT(fill_json_until_out_of_memory(true), ::testing::ExitedWithCode(0), "");
}

// The same run without the reserve aborts: the test above checks the reserve, not luck.
TEST(MemoryReserve, WithoutTheReserveTheUnwindingAborts) {
  if (kAddressSanitizer) GTEST_SKIP() << "ASan reserves terabytes of shadow: no address limit";
  EXPECT_EXIT(fill_json_until_out_of_memory(false), ::testing::KilledBySignal(SIGABRT),
              "terminate called");
}

}  // namespace
}  // namespace hcp
