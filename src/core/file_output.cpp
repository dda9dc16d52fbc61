#include "hcp/file_output.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>

namespace hcp {

namespace {

Error errno_error(const std::string& path, const char* what, int err) {
  return file_error(path, std::string(what) + ": " + std::strerror(err));
}

/// The temporary file being written, removed by the signal handler (async-signal-safe: a fixed
/// buffer and unlink(2)).
char g_temporary[4096];
std::atomic<bool> g_temporary_set{false};

extern "C" void remove_temporary_and_reraise(int signal_number) {
  if (g_temporary_set.load()) ::unlink(g_temporary);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

/// While alive: SIGTERM, SIGINT and SIGHUP remove `path` before the process ends as they would.
class TemporaryGuard {
 public:
  explicit TemporaryGuard(const std::string& path) {
    if (path.size() >= sizeof g_temporary) return;
    std::memcpy(g_temporary, path.c_str(), path.size() + 1);
    g_temporary_set.store(true);
    for (int s : {SIGTERM, SIGINT, SIGHUP})
      previous_[index(s)] = std::signal(s, remove_temporary_and_reraise);
  }
  ~TemporaryGuard() {
    for (int s : {SIGTERM, SIGINT, SIGHUP})
      std::signal(s, previous_[index(s)]);
    g_temporary_set.store(false);
  }
  TemporaryGuard(const TemporaryGuard&) = delete;
  TemporaryGuard& operator=(const TemporaryGuard&) = delete;

 private:
  static int index(int s) { return s == SIGTERM ? 0 : s == SIGINT ? 1 : 2; }
  void (*previous_[3])(int) = {SIG_DFL, SIG_DFL, SIG_DFL};
};

/// While alive: SIGTERM, SIGINT and SIGHUP are held back, and delivered when it ends. Creating the
/// temporary file and handing it to a TemporaryGuard happen under it, so no signal falls between
/// the two and leaves the file behind.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int s : {SIGTERM, SIGINT, SIGHUP})
      sigaddset(&held, s);
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_{};
};

/// Write in place: devices, FIFOs and other non-regular targets that exist.
Status write_in_place(const std::string& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_TRUNC);
  if (fd < 0) return errno_error(path, "cannot write", errno);
  Status written = write_all(fd, text, path);
  int closed = ::close(fd);
  if (!written) return written;
  if (closed != 0) return errno_error(path, "cannot write", errno);
  return Ok{};
}

/// "DIR/.NAME.hcp-plan-PID-N" beside `path`.
std::string temporary_name(const std::string& path, int attempt) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + ".hcp-plan-" + std::to_string(::getpid()) + "-" +
         std::to_string(attempt);
}

}  // namespace

/// Bytes per write(2): a regular file's write is not interrupted by a signal, so a SIGTERM or
/// Ctrl-C during a large output waits at most this chunk before its handler runs.
constexpr size_t kWriteChunk = size_t{1} << 20;

Status write_all(int fd, std::string_view text, const std::string& name) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), std::min(text.size(), kWriteChunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(name, "cannot write", errno);
    if (n == 0) return file_error(name, "cannot write: nothing was written");
    text.remove_prefix(static_cast<size_t>(n));
  }
  return Ok{};
}

Status write_output_file(const std::string& path, std::string_view text) {
  if (path.empty()) return file_error("<empty path>", "no output file name given");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return file_error(path, "cannot write: is a directory");
    if (!S_ISREG(st.st_mode)) return write_in_place(path, text);
  }
  std::string temporary;
  int fd = -1;
  std::optional<TemporaryGuard> guard;
  {
    SignalsHeld held;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
      temporary = temporary_name(path, attempt);
      fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) return errno_error(path, "cannot write", errno);
    }
    if (fd < 0) return file_error(path, "cannot write: no free temporary name beside it");
    guard.emplace(temporary);
  }
  Status written = write_all(fd, text, path);
  int closed = ::close(fd);
  int close_errno = errno;
  if (written && closed != 0) written = errno_error(path, "cannot write", close_errno);
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0) {
    written = errno_error(path, "cannot write", errno);
  }
  if (!written) ::unlink(temporary.c_str());
  return written;
}

Status write_standard_output(std::string_view text) {
  return write_all(STDOUT_FILENO, text, "<stdout>");
}

}  // namespace hcp
