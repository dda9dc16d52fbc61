// Files whose open(2) or read(2) does not behave like a regular file's: named pipes (FIFOs), where
// open blocks until the other end is opened, forever when nobody comes, and /proc and /sys files.
// The input reader (file_input.h) and the output writer (file_output.h) open every path through
// open_without_hanging, so the bounded wait for a FIFO's peer is decided in one place.
#pragma once

#include <chrono>
#include <string>

#include "hcp/diagnostic.h"

namespace hcp {

/// How long a FIFO read waits for its writer, and a FIFO written to for its reader: long enough
/// for a peer started beside hcp-plan (`hcp-plan ... -o f & cat f`) to open its end, short
/// enough that a FIFO nobody serves is an error, not a hang.
inline constexpr std::chrono::milliseconds kFifoPeerWait{10'000};

/// The wait in force: kFifoPeerWait unless set_fifo_peer_wait changed it.
std::chrono::milliseconds fifo_peer_wait();
/// Change the wait (tests keep it short); returns the one it replaces.
std::chrono::milliseconds set_fifo_peer_wait(std::chrono::milliseconds wait);

/// Open `path` with `flags` (O_RDONLY or O_WRONLY, with O_CLOEXEC, O_TRUNC, ...) without ever
/// blocking in open(2), and hand back the descriptor in blocking mode. A FIFO read waits up to
/// fifo_peer_wait() for a writer (or data: a pipe of `<(...)` whose writer already finished); a
/// FIFO written waits as long for a reader; else one-line errors naming `shown`: "cannot read: a
/// FIFO with no writer after 10 s", "cannot write: a FIFO with no reader after 10 s". Other
/// failures: "cannot read: REASON" or "cannot write: REASON" (strerror).
Result<int> open_without_hanging(const std::string& path, int flags, const std::string& shown);

/// True when `fd` is a file on /proc or /sys, where a "regular file" has size 0 and may never end
/// (/proc/self/mem, /proc/kmsg).
bool on_proc_or_sys(int fd);
/// The same for the file or directory `path` names (symbolic links followed).
bool on_proc_or_sys(const std::string& path);

/// A file descriptor closed on every return path (the readers' and the writer's).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace hcp
