#include "hcp/file_output.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>

#include "hcp/special_file.h"

namespace hcp {

namespace {

Error errno_error(const std::string& path, const char* what, int err) {
  return file_error(path, std::string(what) + ": " + std::strerror(err));
}

/// Signals whose default action ends the process: while a temporary file exists, each removes it
/// first. SIGQUIT and SIGUSR1/2 (Slurm's pre-emption warnings), timers, CPU and file-size limits
/// and a closed pipe end a run as surely as SIGTERM does.
constexpr int kEndingSignals[] = {SIGTERM, SIGINT,  SIGHUP,    SIGQUIT, SIGUSR1, SIGUSR2,
                                  SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};
constexpr size_t kEndingSignalCount = std::size(kEndingSignals);

/// The temporary file being written, removed by the signal handler (async-signal-safe: a fixed
/// buffer and unlinkat(2) in the folder opened when the file was created, so a folder renamed
/// meanwhile still loses its temporary file).
char g_temporary[4096];
int g_temporary_folder = -1;
std::atomic<bool> g_temporary_set{false};

extern "C" void remove_temporary_and_reraise(int signal_number) {
  if (g_temporary_set.load()) ::unlinkat(g_temporary_folder, g_temporary, 0);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

/// While alive: an ending signal (kEndingSignals) removes the file `name` in the folder `folder`
/// before the process ends as it would. A signal the process ignores (nohup's SIGHUP, a SIGPIPE
/// the CLI turns into an error) stays ignored.
class TemporaryGuard {
 public:
  TemporaryGuard(int folder, const std::string& name) {
    if (name.size() >= sizeof g_temporary) return;
    std::memcpy(g_temporary, name.c_str(), name.size() + 1);
    g_temporary_folder = folder;
    g_temporary_set.store(true);
    for (size_t i = 0; i < kEndingSignalCount; ++i) {
      previous_[i] = std::signal(kEndingSignals[i], remove_temporary_and_reraise);
      if (previous_[i] == SIG_IGN) std::signal(kEndingSignals[i], SIG_IGN);
    }
  }
  ~TemporaryGuard() {
    for (size_t i = 0; i < kEndingSignalCount; ++i)
      std::signal(kEndingSignals[i], previous_[i]);
    g_temporary_set.store(false);
  }
  TemporaryGuard(const TemporaryGuard&) = delete;
  TemporaryGuard& operator=(const TemporaryGuard&) = delete;

 private:
  void (*previous_[kEndingSignalCount])(int) = {};
};

/// While alive: the ending signals are held back, and delivered when it ends. Creating the
/// temporary file and handing it to a TemporaryGuard happen under it, so no signal falls between
/// the two and leaves the file behind.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int s : kEndingSignals)
      sigaddset(&held, s);
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_{};
};

/// Write in place: devices, FIFOs and other non-regular targets that exist, and files named by a
/// /proc link. Errors name `shown`, the path as given.
Status write_in_place(const std::string& file, const std::string& shown, std::string_view text) {
  // Never blocks in open(2): a FIFO gets a bounded wait for its reader (special_file.h).
  Result<int> opened = open_without_hanging(file, O_WRONLY | O_CLOEXEC | O_TRUNC, shown);
  if (!opened) return opened.error();
  const int fd = *opened;
  Status written = write_all(fd, text, shown);
  int closed = ::close(fd);
  if (!written) return written;
  if (closed != 0) return errno_error(shown, "cannot write", errno);
  return Ok{};
}

/// The directory part of `path` with its trailing slash ("" for a bare name).
std::string directory_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

/// ".NAME.hcp-plan-PID-N", the temporary file for NAME in the same folder.
std::string temporary_name(const std::string& name, int attempt) {
  return "." + name + ".hcp-plan-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
}

/// Where a write to a path lands once its symbolic links are followed.
struct OutputTarget {
  /// The path itself, or the end of its chain of links; a dangling link's end does not exist yet
  /// and is created.
  std::string file;
  /// A link on /proc (/dev/stdout -> /proc/self/fd/1) names a file this process has open, not a
  /// path: its readlink text may be "pipe:[123]" or "... (deleted)". Written in place through the
  /// path as given, which the kernel resolves to the open file.
  bool proc_link = false;
};

/// Linux's own limit on the links one path resolution follows (MAXSYMLINKS).
constexpr int kMaxSymlinkHops = 40;

/// The text of the symbolic link `link`; errors name `shown`.
Result<std::string> read_link(const std::string& link, const std::string& shown) {
  std::string target(4096, '\0');
  ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
  if (n < 0) return errno_error(shown, "cannot write", errno);
  target.resize(static_cast<size_t>(n));
  return target;
}

/// Follow the symbolic links of `path` to the file a write lands in, as cp and tee write through
/// a link rather than replace it. A loop is an error; so is a longer chain than the kernel follows.
Result<OutputTarget> follow_output_links(const std::string& path) {
  std::string file = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
      if (errno == ENOENT) return OutputTarget{file};  // a new file, or a dangling link's target
      return errno_error(path, "cannot write", errno);
    }
    if (!S_ISLNK(st.st_mode)) return OutputTarget{file};
    const std::string dir = directory_of(file);
    if (on_proc_or_sys(dir.empty() ? std::string(".") : dir)) return OutputTarget{path, true};
    if (hops == kMaxSymlinkHops) return errno_error(path, "cannot write", ELOOP);
    Result<std::string> target = read_link(file, path);
    if (!target) return target.error();
    file = !target->empty() && target->front() == '/' ? *target : dir + *target;
  }
}

/// "0444".
std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

/// An existing `file` the user may not write is left as it is, as cp and tee leave it, not
/// replaced by a rename the directory allows: faccessat says so for a user; root may write
/// anything, so a file with no write bit for anyone is read-only for root too.
Status check_writable(const std::string& file, const struct stat& st, const std::string& shown) {
  const bool no_write_bit = (st.st_mode & 0222) == 0;
  if (!no_write_bit && ::faccessat(AT_FDCWD, file.c_str(), W_OK, AT_EACCESS) == 0) return Ok{};
  const std::string whose = file == shown ? std::string() : "its target " + file + " ";
  return file_error(
      shown, "cannot write: " + whose + "is read-only (mode " + octal_mode(st.st_mode) + ")");
}

/// Give the new file `fd` the owner and permission bits of the file `replaced` it replaces, as a
/// write in place would keep them. Best effort: only root may give a file away, and a file system
/// without permission bits (vfat) still takes the report.
void keep_owner_and_mode(int fd, const struct stat& replaced) {
  (void)::fchown(fd, replaced.st_uid, replaced.st_gid);
  (void)::fchmod(fd, replaced.st_mode & 07777);  // after fchown, which clears set-user-ID
}

/// Write `text` to a temporary file beside `file` and rename it over `file` once written and
/// closed; the file it replaces (`replaced`, null for a new file) keeps its owner and mode.
/// Both name the file inside its folder, opened once, so every step (and the signal handler)
/// acts in that folder even if it is renamed meanwhile. Errors name `shown`.
Status write_replacing(const std::string& file, const std::string& shown, std::string_view text,
                       const struct stat* replaced) {
  const std::string dir = directory_of(file);
  const std::string name = file.substr(dir.size());
  Fd folder(::open(dir.empty() ? "." : dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() < 0) return errno_error(shown, "cannot write", errno);
  std::string temporary;
  int fd = -1;
  std::optional<TemporaryGuard> guard;
  {
    SignalsHeld held;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
      temporary = temporary_name(name, attempt);
      fd = ::openat(folder.get(), temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) return errno_error(shown, "cannot write", errno);
    }
    if (fd < 0) return file_error(shown, "cannot write: no free temporary name beside it");
    guard.emplace(folder.get(), temporary);
  }
  if (replaced != nullptr) keep_owner_and_mode(fd, *replaced);
  Status written = write_all(fd, text, shown);
  int closed = ::close(fd);
  int close_errno = errno;
  if (written && closed != 0) written = errno_error(shown, "cannot write", close_errno);
  if (written && ::renameat(folder.get(), temporary.c_str(), folder.get(), name.c_str()) != 0) {
    written = errno_error(shown, "cannot write", errno);
  }
  if (!written) ::unlinkat(folder.get(), temporary.c_str(), 0);
  return written;
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
  Result<OutputTarget> target = follow_output_links(path);
  if (!target) return target.error();
  if (target->proc_link) return write_in_place(path, path, text);
  struct stat st {};
  if (::stat(target->file.c_str(), &st) != 0) {
    return write_replacing(target->file, path, text, nullptr);  // a new file
  }
  if (S_ISDIR(st.st_mode)) return file_error(path, "cannot write: is a directory");
  if (!S_ISREG(st.st_mode)) return write_in_place(target->file, path, text);
  if (Status writable = check_writable(target->file, st, path); !writable) return writable;
  return write_replacing(target->file, path, text, &st);
}

Status write_standard_output(std::string_view text) {
  return write_all(STDOUT_FILENO, text, "<stdout>");
}

}  // namespace hcp
