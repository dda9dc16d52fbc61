#include "hcp/special_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

namespace hcp {

namespace {

using std::chrono::milliseconds;
using PeerClock = std::chrono::steady_clock;

std::atomic<int64_t> g_fifo_peer_wait_ms{kFifoPeerWait.count()};

/// Between two looks for a FIFO's peer: short next to the wait, long enough not to spin.
constexpr milliseconds kFifoLookInterval{50};

/// "10 s", or "200 ms" for a wait of no whole seconds.
std::string wait_text(milliseconds wait) {
  if (wait.count() % 1000 == 0) return std::to_string(wait.count() / 1000) + " s";
  return std::to_string(wait.count()) + " ms";
}

bool opens_for_reading(int flags) {
  return (flags & O_ACCMODE) == O_RDONLY;
}

/// "PATH: cannot read: REASON" or "PATH: cannot write: REASON", as `flags` opens the file.
Error open_error(const std::string& shown, int flags, const std::string& reason) {
  return file_error(shown,
                    (opens_for_reading(flags) ? "cannot read: " : "cannot write: ") + reason);
}

bool is_fifo(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

bool is_fifo(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/// The time left until `deadline`, never below zero.
milliseconds time_left(PeerClock::time_point deadline) {
  return std::max(milliseconds(0),
                  std::chrono::duration_cast<milliseconds>(deadline - PeerClock::now()));
}

/// True when the FIFO read by `fd` (non-blocking) has a writer or data waiting. tee(2) copies
/// without consuming what it copies: more than 0 bytes when data waits, EAGAIN when a writer is
/// attached but has written nothing yet (a generator still computing), 0 when no writer is. A
/// read(2) would tell the same, but take the data from the reader that comes after.
bool fifo_has_writer_or_data(int fd) {
  int scratch[2];
  if (::pipe2(scratch, O_NONBLOCK | O_CLOEXEC) != 0) return false;
  ssize_t copied = ::tee(fd, scratch[1], 1, SPLICE_F_NONBLOCK);
  int err = errno;
  ::close(scratch[0]);
  ::close(scratch[1]);
  return copied > 0 || (copied < 0 && err == EAGAIN);
}

/// True when poll(2) sees data on `fd`, or the hang-up of a writer that came and went (an empty
/// pipe: read as empty), within `wait`.
bool fifo_readable_within(int fd, milliseconds wait) {
  pollfd watched{fd, POLLIN, 0};
  int ready = ::poll(&watched, 1, static_cast<int>(wait.count()));
  return ready > 0 && (watched.revents & (POLLIN | POLLHUP)) != 0;
}

/// Wait up to fifo_peer_wait() until the FIFO read by `fd` has a writer. A FIFO opened for
/// reading without O_NONBLOCK waits for one forever.
Status await_fifo_writer(int fd, const std::string& shown) {
  const milliseconds wait = fifo_peer_wait();
  const PeerClock::time_point deadline = PeerClock::now() + wait;
  for (;;) {
    if (fifo_has_writer_or_data(fd)) return Ok{};
    const milliseconds left = time_left(deadline);
    if (left.count() == 0) {
      return file_error(shown, "cannot read: a FIFO with no writer after " + wait_text(wait));
    }
    if (fifo_readable_within(fd, std::min(left, kFifoLookInterval))) return Ok{};
  }
}

/// open(2) with O_NONBLOCK, which never waits: a FIFO opened for writing with no reader fails
/// with ENXIO at once, and is tried again until fifo_peer_wait() has passed.
Result<int> open_nonblocking(const std::string& path, int flags, const std::string& shown) {
  const milliseconds wait = fifo_peer_wait();
  const PeerClock::time_point deadline = PeerClock::now() + wait;
  for (;;) {
    int fd = ::open(path.c_str(), flags | O_NONBLOCK);
    if (fd >= 0) return fd;
    int err = errno;
    if (err != ENXIO || opens_for_reading(flags) || !is_fifo(path)) {
      return open_error(shown, flags, std::strerror(err));
    }
    const milliseconds left = time_left(deadline);
    if (left.count() == 0) {
      return open_error(shown, flags, "a FIFO with no reader after " + wait_text(wait));
    }
    std::this_thread::sleep_for(std::min(left, kFifoLookInterval));
  }
}

/// Clear O_NONBLOCK once the peer is there: reads wait for a slow writer, writes for a slow reader.
Status set_blocking(int fd, int flags, const std::string& shown) {
  int status = ::fcntl(fd, F_GETFL);
  if (status < 0 || ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK) != 0) {
    return open_error(shown, flags, std::strerror(errno));
  }
  return Ok{};
}

/// /proc (PROC_SUPER_MAGIC) and /sys (SYSFS_MAGIC).
bool is_proc_or_sys(const struct statfs& fs) {
  constexpr long kProcMagic = 0x9fa0;
  constexpr long kSysfsMagic = 0x62656572;
  return fs.f_type == kProcMagic || fs.f_type == kSysfsMagic;
}

}  // namespace

milliseconds fifo_peer_wait() {
  return milliseconds(g_fifo_peer_wait_ms.load());
}

milliseconds set_fifo_peer_wait(milliseconds wait) {
  return milliseconds(g_fifo_peer_wait_ms.exchange(wait.count()));
}

Result<int> open_without_hanging(const std::string& path, int flags, const std::string& shown) {
  Result<int> opened = open_nonblocking(path, flags, shown);
  if (!opened) return opened;
  const int fd = *opened;
  Status ready = opens_for_reading(flags) && is_fifo(fd) ? await_fifo_writer(fd, shown) : Ok{};
  if (ready) ready = set_blocking(fd, flags, shown);
  if (!ready) {
    ::close(fd);
    return ready.error();
  }
  return fd;
}

bool on_proc_or_sys(int fd) {
  struct statfs fs {};
  return ::fstatfs(fd, &fs) == 0 && is_proc_or_sys(fs);
}

bool on_proc_or_sys(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && is_proc_or_sys(fs);
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace hcp
