// hcp-plan: validator and planner for context parallelism in Megatron / Transformer Engine.
#include <algorithm>
#include <csignal>
#include <exception>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "command.h"
#include "common_options.h"
#include "hcp/edit_distance.h"
#include "hcp/file_output.h"
#include "hcp/memory_reserve.h"
#include "html_output.h"
#include "output.h"

#ifndef HCP_VERSION
#define HCP_VERSION "0.0.0"
#endif
#ifndef HCP_WITH_CUDA
#define HCP_WITH_CUDA 0
#endif
#ifndef HCP_WITH_MPI
#define HCP_WITH_MPI 0
#endif

namespace hcp::cli {

std::vector<CommandInfo>& command_list() {
  static std::vector<CommandInfo> commands;
  return commands;
}

namespace {

std::string version_text() {
  std::string text = std::string("hcp-plan ") + HCP_VERSION + " (commit " + build_commit() + ")\n";
  text += std::string("built with: CUDA kernels ") + (HCP_WITH_CUDA ? "yes" : "no") +
          "; MPI probe gather " + (HCP_WITH_MPI ? "yes" : "no") +
          "; NVML, NCCL loaded at run time when present\n";
  return text;
}

/// Print `text` (help, version) to stdout: a full disk or closed pipe is an error, not exit 0.
int print_to_stdout(const std::string& text, int exit_code) {
  Status written = write_standard_output(text);
  if (written) return exit_code;
  print_error(written.error().str());
  return kExitBadInput;
}

/// CLI11's help (CallForHelp, CallForAllHelp) through print_to_stdout.
int print_help(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream text;
  int code = app.exit(e, text, std::cerr);
  return print_to_stdout(text.str(), code);
}

/// A value an option rejects ("--nodes many", "--nodes 0", "--format jsn") is bad input, reported
/// in one form whatever the option or the reason: one line "<command line>: --nodes: ...", as a
/// bad value in a file names the file (the message says what the option takes).
int report_option_value_error(const CLI::ParseError& e) {
  print_error(std::string("<command line>: ") + e.what());
  return kExitBadInput;
}

int run(int argc, char** argv) {
  remember_command_line(argc, argv);
  // --version alone is allowed without a subcommand, and needs none of them set up.
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) {
    return print_to_stdout(version_text(), kExitOk);
  }
  CLI::App app{
      "hcp-plan: validate and plan context parallelism (CP, hierarchical CP) for "
      "Megatron-LM, Megatron-Bridge and Transformer Engine"};
  app.formatter(wrapping_help_formatter());  // before the subcommands, which copy it
  app.require_subcommand(1);
  bool show_version = false;
  app.add_flag("-V,--version", show_version, "Print the version and the optional parts built in");
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  // Only the invoked subcommand is added, with its options: building every subcommand (each
  // CLI::App with its help flag) and its option set costs about half a millisecond at each
  // start, and `validate` runs on every recipe change in CI. Without a subcommand name first
  // (--help, --help-all, a typo) all are set up.
  const std::string first = argc >= 2 ? argv[1] : "";
  const bool invoked_known =
      std::any_of(command_list().begin(), command_list().end(),
                  [&](const CommandInfo& command) { return command.name == first; });
  std::map<CLI::App*, std::function<int()>> runners;
  for (auto& command : command_list()) {
    if (invoked_known && command.name != first) continue;
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    runners[sub] = command.setup(*sub);
    one_value_per_option(*sub);
    reject_empty_values(*sub);
    check_count_options(*sub);
  }

  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto& command : command_list())
      names.push_back(command.name);
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string message = std::string("unknown command '") + argv[1] + "'";
      message += did_you_mean(argv[1], closest_match(argv[1], names));
      print_error(message);
      std::cerr << "Run 'hcp-plan --help' for the commands.\n";
      return kExitBadInput;
    }
  }
  // A run_recipe.py flag's value ("--dataset tulu3", "--recipe NAME", "--save_dir PATH") is glued
  // to its flag before parsing, so that the value is never taken for RECIPE or a further recipe.
  std::vector<std::string> words(argv, argv + argc);
  if (invoked_known) {
    const CLI::App* sub = app.get_subcommand(first);
    std::vector<std::string> glued;
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string& w = words[i];
      bool own = w.rfind("--", 0) == 0 && sub->get_option_no_throw(w) != nullptr;
      if (i >= 2 && i + 1 < words.size() && w.find('=') == std::string::npos && !own &&
          override_flag_takes_value(w)) {
        glued.push_back(w + "=" + words[i + 1]);
        ++i;
        continue;
      }
      glued.push_back(w);
    }
    words = std::move(glued);
  }
  std::vector<char*> args;
  args.reserve(words.size());
  for (std::string& w : words)
    args.push_back(w.data());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return print_help(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_help(app, e);
  } catch (const CLI::ValidationError& e) {
    return report_option_value_error(e);
  } catch (const CLI::ConversionError& e) {
    return report_option_value_error(e);
  } catch (const CLI::ParseError& e) {
    print_error(e.what());
    if (invoked_known) {
      std::cerr << "Run 'hcp-plan " << first << " --help' for its options.\n";
    } else {
      std::cerr << "Run 'hcp-plan --help' for usage.\n";
    }
    return kExitBadInput;
  }
  for (auto& [sub, runner] : runners) {
    if (!sub->parsed()) continue;
    if (auto unknown = unknown_option_message(*sub, sub->remaining(false))) {
      print_error(*unknown);
      std::cerr << "Run 'hcp-plan " << sub->get_name() << " --help' for its options.\n";
      return kExitBadInput;
    }
    return runner();
  }
  return kExitBadInput;
}

}  // namespace
}  // namespace hcp::cli

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) or a reader that closed its pipe ends a write with EFBIG or
  // EPIPE, which the writers report in one line; by default each would kill the process.
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  // Out of memory, the unwinding to the catch below needs memory of its own (memory_reserve.h).
  hcp::keep_memory_reserve();
  try {
    return hcp::cli::run(argc, argv);
  } catch (const std::bad_alloc&) {
    hcp::cli::print_error("out of memory");
  } catch (const std::exception& e) {
    hcp::cli::print_error(std::string("internal error: ") + e.what());
  }
  return hcp::cli::kExitBadInput;
}
