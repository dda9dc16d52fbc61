// Permission tests as root: root reads a file whatever its mode, so a test that a file without
// read permission is reported needs an unprivileged user. When the suite runs as root (CI does),
// these helpers run the part of the test that reads the file as `nobody` instead of skipping it.
#pragma once

#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <string>

namespace hcp::testing {

/// The user and group ids of `nobody`, the unprivileged account every Debian system has.
struct Unprivileged {
  uid_t uid = 65534;
  gid_t gid = 65534;
};

inline Unprivileged unprivileged_ids() {
  Unprivileged ids;
  if (const passwd* pw = getpwnam("nobody")) {
    ids.uid = pw->pw_uid;
    ids.gid = pw->pw_gid;
  }
  return ids;
}

/// Return what `body` returns, run as `nobody` when this process is root (in a forked child that
/// drops its groups, group and user before calling it; the text comes back through a pipe), or
/// in this process otherwise. When the child cannot drop its privileges the text says so, so the
/// test's assertion on it fails instead of the test being skipped.
inline std::string run_unprivileged(const std::function<std::string()>& body) {
  if (geteuid() != 0) return body();
  std::array<int, 2> fds{};
  if (pipe(fds.data()) != 0) return "run_unprivileged: cannot create a pipe";
  const Unprivileged ids = unprivileged_ids();
  const pid_t child = fork();
  if (child < 0) return "run_unprivileged: cannot fork";
  if (child == 0) {
    close(fds[0]);
    const bool dropped = setgroups(0, nullptr) == 0 && setgid(ids.gid) == 0 && setuid(ids.uid) == 0;
    const std::string text =
        dropped ? body() : std::string("run_unprivileged: cannot become nobody");
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    _exit(dropped ? 0 : 1);
  }
  close(fds[1]);
  std::string text;
  std::array<char, 4096> buffer{};
  ssize_t n = 0;
  while ((n = ::read(fds[0], buffer.data(), buffer.size())) > 0)
    text.append(buffer.data(), static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return text;
}

/// The shell words that run a command as `nobody` when this process is root ("setpriv ... "),
/// else nothing: put before a command line, e.g. as run_cli's `env`.
inline std::string unprivileged_command_prefix() {
  if (geteuid() != 0) return "";
  const Unprivileged ids = unprivileged_ids();
  return "setpriv --reuid=" + std::to_string(ids.uid) + " --regid=" + std::to_string(ids.gid) +
         " --clear-groups ";
}

}  // namespace hcp::testing
