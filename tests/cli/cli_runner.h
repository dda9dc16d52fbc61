// Runs the built hcp-plan binary for end-to-end tests and captures stdout, stderr and exit code.
#pragma once

#include <sys/wait.h>

#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace hcp::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// mpirun for the tests (as root, more ranks than cores), put before the binary by run_cli's
/// `env`. Open MPI's MPI_Init/MPI_Finalize leave allocations behind, partly in MCA components it
/// unloads again, which LeakSanitizer can neither attribute nor suppress: leak detection is off
/// for these ranks under the sanitizers; ASan's memory checks and UBSan still run.
inline const std::string kMpirun =
    "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" mpirun --allow-run-as-root --oversubscribe";

/// Run a shell command line and capture its stdout, stderr (through a temporary file) and exit
/// code.
inline CliResult run_shell(const std::string& command_line) {
  static int counter = 0;
  std::string err_path =
      (std::filesystem::temp_directory_path() /
       ("hcp_cli_err_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
          .string();
  std::string command = command_line + " 2>'" + err_path + "'";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_whole_file(err_path);
  std::filesystem::remove(err_path);
  return result;
}

/// Run `hcp-plan ARGS` through the shell (ARGS is shell text) with extra environment settings
/// prepended ("HCP_X=1 "), from the source directory.
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  return run_shell("cd '" HCP_SOURCE_DIR "' && " + env + " '" HCP_BINARY "' " + args);
}

/// Return the subcommand names listed under "Subcommands:" in `hcp-plan --help`.
inline std::vector<std::string> registered_subcommands() {
  auto help = run_cli("--help");
  std::vector<std::string> names;
  std::istringstream in(help.out);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    std::smatch m;
    // A name is indented two spaces; a description wrapped to the width continues further in.
    if (std::regex_search(line, m, std::regex(R"(^  ([a-z][a-z0-9-]*)( |$))"))) {
      names.push_back(m[1]);
    } else if (!line.empty() && line[0] != ' ') {
      in_list = false;
    }
  }
  return names;
}

}  // namespace hcp::testing
