// A short wait for a FIFO's peer while a test runs: "no writer" and "no reader" end in a fraction
// of a second instead of the ten seconds a user gets.
#pragma once

#include <chrono>

#include "hcp/special_file.h"

namespace hcp::testing {

class ShortFifoWait {
 public:
  explicit ShortFifoWait(std::chrono::milliseconds wait = std::chrono::milliseconds(200))
      : previous_(set_fifo_peer_wait(wait)) {}
  ~ShortFifoWait() { set_fifo_peer_wait(previous_); }
  ShortFifoWait(const ShortFifoWait&) = delete;
  ShortFifoWait& operator=(const ShortFifoWait&) = delete;

 private:
  std::chrono::milliseconds previous_;
};

}  // namespace hcp::testing
