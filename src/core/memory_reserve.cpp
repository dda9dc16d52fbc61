#include "hcp/memory_reserve.h"

#include <cstdlib>
#include <new>

namespace hcp {
namespace {

void* g_reserve = nullptr;

/// The new-handler: operator new calls it when an allocation fails. Releasing the reserve and
/// retrying could let the run go on with nothing left for the unwinding that follows the next
/// failure, so it gives the reserve back and fails this allocation.
void release_reserve_and_fail() {
  std::free(g_reserve);
  g_reserve = nullptr;
  std::set_new_handler(nullptr);
  throw std::bad_alloc();
}

}  // namespace

bool keep_memory_reserve(size_t bytes) {
  if (g_reserve != nullptr) return true;
  // Under a tight limit take what there is: a smaller reserve still unwinds a small failure.
  for (size_t size = bytes; g_reserve == nullptr && size >= kMemoryReserveFloorBytes; size /= 2)
    g_reserve = std::malloc(size);
  if (g_reserve == nullptr) return false;
  std::set_new_handler(release_reserve_and_fail);
  return true;
}

bool memory_reserve_held() {
  return g_reserve != nullptr;
}

}  // namespace hcp
