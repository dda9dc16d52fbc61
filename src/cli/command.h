// Subcommand registration for the hcp-plan binary. Each subcommand lives in its own cmd_*.cpp
// and registers itself with a static CommandRegistration; main() wires them into CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace hcp::cli {

/// Exit codes of the CLI contract (ARCHITECTURE.md §3).
enum ExitCode : int {
  kExitOk = 0,           ///< Success; validate found no errors.
  kExitFindings = 1,     ///< validate found errors (or warnings with --strict); preflight NO-GO.
  kExitBadInput = 2,     ///< Bad input or usage.
  kExitEnvironment = 3,  ///< The environment lacks what the command needs (GPU, NCCL, NVML).
};

/// Set up a subcommand's options on `sub`; return the function that runs it after parsing.
using CommandSetup = std::function<std::function<int()>(CLI::App& sub)>;

struct CommandInfo {
  std::string name;
  std::string description;
  CommandSetup setup;
};

/// Return every registered subcommand, in registration order.
std::vector<CommandInfo>& command_list();

/// Register a subcommand at static-initialisation time.
struct CommandRegistration {
  CommandRegistration(std::string name, std::string description, CommandSetup setup) {
    command_list().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

}  // namespace hcp::cli
