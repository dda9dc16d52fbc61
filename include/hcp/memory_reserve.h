// A reserve of address space for running out of memory cleanly. When an allocation fails, C++
// unwinds the stack, and destructors run on the way; some allocate (nlohmann::json's destructor
// keeps a stack of the children it frees, and the unwinder itself may load libgcc_s). Without
// memory they fail inside a noexcept destructor, and the process aborts ("terminate called after
// throwing std::bad_alloc") instead of printing one line. The reserve is released when the first
// allocation fails, so the unwinding and the error message find memory.
#pragma once

#include <cstddef>

namespace hcp {

/// Address space held back for unwinding after an allocation fails: enough for the destructor of
/// a JSON array of a few million elements. Never touched, so it costs no resident memory.
inline constexpr size_t kMemoryReserveBytes = size_t{64} << 20;

/// The smallest reserve worth holding: about what the unwinder needs to load libgcc_s.
inline constexpr size_t kMemoryReserveFloorBytes = size_t{256} << 10;

/// Set the reserve aside (`bytes`, or half of it and so on down to kMemoryReserveFloorBytes under a
/// tight limit) and install the new-handler that releases it: on the first failed allocation the
/// handler frees the reserve and throws std::bad_alloc, so the failure is still reported as one.
/// Returns false when not even the floor could be had (the process then runs without one).
bool keep_memory_reserve(size_t bytes = kMemoryReserveBytes);

/// True while the reserve is held (not yet released by a failed allocation).
bool memory_reserve_held();

}  // namespace hcp
