// Python-environment probe: runs the interpreter (no shell) with a short importlib.metadata
// program and reads the versions it prints.
#include "hcp/python_env.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace hcp {
namespace {

/// Search `name` in PATH the way execvp would; return "" when not found.
std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

/// Read everything the child writes until EOF or the deadline. Return false on timeout.
bool read_until_eof(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
  char buffer[4096];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd, POLLIN, 0};
    int ready = poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < (1u << 20)) out.append(buffer, static_cast<size_t>(n));
  }
}

/// Wait for `pid` until the deadline (the child may close stdout and keep running). Return false
/// on timeout, with the child still running.
bool wait_until(pid_t pid, int& status, std::chrono::steady_clock::time_point deadline) {
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return true;  // nothing to wait for (reaped elsewhere)
    if (std::chrono::steady_clock::now() >= deadline) return false;
    usleep(2000);
  }
}

/// Kill the child's whole process group (a shell wrapper's children too) and reap the child.
void kill_and_reap(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

Error child_error(std::string message) {
  return Error{std::move(message), Location{"<command line>", 0, 0}, ""};
}

/// Run argv (no shell), capturing stdout. The deadline covers the whole run: reading the output
/// and waiting for the exit; past it the child and its process group are killed. Return the exit
/// status or an error message.
Result<int> run_capture(const std::vector<std::string>& argv, std::string& out, int timeout_ms) {
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const std::string& a : argv)
    cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return child_error("cannot create a pipe");
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return child_error("cannot fork");
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a timeout kills what it started too
    // With our stdin and stdout closed, pipe2 hands out fds 0 and 1: the write end is already
    // the child's stdout, where dup2 does nothing and close-on-exec would close it at exec.
    if (pipefd[1] == STDOUT_FILENO)
      fcntl(STDOUT_FILENO, F_SETFD, 0);
    else
      dup2(pipefd[1], STDOUT_FILENO);
    // hcp-plan ignores SIGPIPE and SIGXFSZ (main.cpp); an ignored signal stays ignored across
    // exec, so give the child the defaults it expects.
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent: no race with the kill below
  close(pipefd[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool finished = read_until_eof(pipefd[0], out, deadline);
  close(pipefd[0]);
  int status = 0;
  if (finished) finished = wait_until(pid, status, deadline);
  if (!finished) {
    kill_and_reap(pid);
    return child_error("timed out after " + std::to_string(timeout_ms) + " ms");
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return child_error("killed by signal " + std::to_string(WTERMSIG(status)));
}

}  // namespace

const std::vector<std::string>& python_env_package_names() {
  static const std::vector<std::string> kNames = {"transformer_engine", "megatron-core",
                                                  "megatron-bridge", "torch", "nccl"};
  return kNames;
}

const std::string& python_env_script() {
  // Distribution names to try for each package (pip wheels, source builds, CUDA variants).
  static const std::string kScript =
      "from importlib import metadata as m\n"
      "P=(('transformer_engine',('transformer_engine','transformer-engine',"
      "'transformer_engine_torch','transformer-engine-cu12','transformer-engine-cu13')),"
      "('megatron-core',('megatron-core','megatron_core')),"
      "('megatron-bridge',('megatron-bridge','megatron_bridge')),"
      "('torch',('torch',)),"
      "('nccl',('nvidia-nccl-cu12','nvidia-nccl-cu13','nvidia-nccl-cu11','nvidia-nccl')))\n"
      "for k,ns in P:\n"
      " v=''\n"
      " for n in ns:\n"
      "  try:\n"
      "   v=m.version(n);break\n"
      "  except Exception:\n"
      "   pass\n"
      " print(k+'='+(v or ''))\n";
  return kScript;
}

const PythonPackage* PythonEnvironment::find(std::string_view name) const {
  for (const PythonPackage& p : packages) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<Version> PythonEnvironment::version_of(std::string_view name) const {
  const PythonPackage* p = find(name);
  return p == nullptr ? std::nullopt : p->version;
}

std::vector<std::string> PythonEnvironment::missing() const {
  std::vector<std::string> names;
  for (const PythonPackage& p : packages) {
    if (p.raw_version.empty()) names.push_back(p.name);
  }
  return names;
}

PythonEnvironment parse_python_env_output(std::string_view output, const std::string& interpreter) {
  PythonEnvironment env;
  env.interpreter = interpreter;
  for (const std::string& name : python_env_package_names())
    env.packages.push_back({name, "", {}, false});
  std::istringstream lines{std::string(output)};
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string name = line.substr(0, eq);
    for (PythonPackage& p : env.packages) {
      if (p.name != name) continue;
      p.raw_version = line.substr(eq + 1);
      p.version = Version::parse(p.raw_version);
      p.answered = true;
    }
  }
  return env;
}

Result<PythonEnvironment> probe_python_env(const std::string& interpreter, int timeout_ms) {
  std::string resolved = find_in_path(interpreter);
  if (resolved.empty()) {
    return Error{"Python interpreter '" + interpreter + "' not found or not executable",
                 Location{"<command line>", 0, 0}, ""};
  }
  std::string out;
  auto status = run_capture({resolved, "-c", python_env_script()}, out, timeout_ms);
  if (!status) {
    return Error{"running " + resolved + ": " + status.error().message,
                 Location{"<command line>", 0, 0}, ""};
  }
  if (*status != 0) {
    return Error{resolved + " exited with status " + std::to_string(*status) +
                     " while reading package metadata",
                 Location{"<command line>", 0, 0}, ""};
  }
  // The script prints a line for every package, installed or not: output without them is some
  // other program's (a shell script, a wrapper that prints a banner and exits 0), and reading it
  // as "nothing is installed" would state what no one measured.
  PythonEnvironment env = parse_python_env_output(out, resolved);
  for (const PythonPackage& p : env.packages) {
    if (p.answered) continue;
    return Error{resolved + " did not answer the package probe: its output has no '" + p.name +
                     "=' line (is it a Python 3.8 or newer interpreter?)",
                 Location{"<command line>", 0, 0}, ""};
  }
  return env;
}

void apply_python_env(const PythonEnvironment& py, Environment& env) {
  auto fill = [&](std::optional<Version>& slot, const char* name) {
    if (!slot) slot = py.version_of(name);
  };
  fill(env.te_version, "transformer_engine");
  fill(env.mcore_version, "megatron-core");
  fill(env.bridge_version, "megatron-bridge");
  fill(env.torch_version, "torch");
  fill(env.nccl_version, "nccl");
}

std::vector<Diagnostic> python_env_diagnostics(const PythonEnvironment& py) {
  std::vector<Diagnostic> out;
  Location at{"<python " + py.interpreter + ">", 0, 0};
  std::string found;
  for (const PythonPackage& p : py.packages) {
    if (p.raw_version.empty()) continue;
    found += (found.empty() ? "" : ", ") + p.name + " " + p.raw_version;
  }
  out.push_back(Diagnostic::note(
      Severity::kInfo,
      "Python environment " + py.interpreter + ": " +
          (found.empty() ? std::string("none of the CP packages is installed") : found),
      "environment", at));
  for (const std::string& name : py.missing()) {
    out.push_back(Diagnostic::note(
        Severity::kInfo, name + " is not installed in " + py.interpreter, "environment", at,
        "install it, or pass its version explicitly (--te-version / --mcore-version)"));
  }
  return out;
}

}  // namespace hcp
