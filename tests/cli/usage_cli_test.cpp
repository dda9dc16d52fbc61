// Usage errors that lead somewhere (issue 29): enumerated values and --format get a did-you-mean,
// a subcommand's parse error points to that subcommand's help, and preflight's hints name options
// preflight takes.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using testing::CliResult;
using testing::run_cli;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(UsageCli, EnumeratedValuesGetADidYouMean) {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"validate gemma3_1b_32k --format jsn",
       "--format: expects text, json, sarif, junit, "
       "github or gcc, got 'jsn' (did you mean 'json'?)"},
      {"plan gemma3_1b_32k --nodes 1 --format sarif",
       "--format: expects text, json or html, got "
       "'sarif'"},
      {"validate gemma3_1b_32k --fail-on warnings", "(did you mean 'warning'?)"},
      {"check-log tests/fixtures/logs/mlm_oom.log --fail-on eror", "(did you mean 'error'?)"},
      {"validate gemma3_1b_32k --framework bridg", "(did you mean 'bridge'?)"},
      {"plan gemma3_1b_32k --nodes 1 --recompute selctive", "(did you mean 'selective'?)"},
      {"rules --format id", "(did you mean 'ids'?)"},
  };
  for (const Case& c : cases) {
    CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_TRUE(contains(r.err, c.message)) << c.args << "\n" << r.err;
  }
}

TEST(UsageCli, ParseErrorOfASubcommandPointsToItsHelp) {
  CliResult r = run_cli("plan gemma3_1b_32k --nodes many");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "Run 'hcp-plan plan --help' for its options.")) << r.err;
  CliResult format = run_cli("check-log tests/fixtures/logs/mlm_oom.log --format yaml");
  EXPECT_TRUE(contains(format.err, "Run 'hcp-plan check-log --help' for its options."))
      << format.err;
  // Without a known subcommand the general help is the pointer.
  EXPECT_TRUE(contains(run_cli("--frobnicate").err, "Run 'hcp-plan --help' for usage."));
}

/// The options `hcp-plan SUB --help` lists.
std::string help_of(const std::string& sub) {
  return run_cli(sub + " --help").out;
}

/// The options of every subcommand whose help shows `type` (FLOAT, INT, UINT): "plan
/// --memory-limit", ...
std::vector<std::string> options_of_type(const std::string& type) {
  std::vector<std::string> out;
  const std::regex option("^ +(--[a-z][a-z0-9-]*) " + type + "[:= ]");
  for (const std::string& sub : testing::registered_subcommands()) {
    const std::string help = help_of(sub);
    std::istringstream in(help);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, option)) out.push_back(sub + " " + m[1].str());
    }
  }
  return out;
}

/// Each of `options` ("plan --memory-limit") given each of `values` exits 2 naming the option and
/// the value: "--x: 'v' is ..." for a number out of its range, "--x: <not_a_number> ..." for text
/// that is none.
void expect_each_rejected(const std::vector<std::string>& options,
                          const std::vector<std::string>& values, const std::string& not_a_number) {
  for (const std::string& option : options) {
    const std::string name = option.substr(option.find(' ') + 1);
    for (const std::string& value : values) {
      CliResult r = run_cli(option + "=" + value + " </dev/null");
      const std::string what = option + "=" + value;
      EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.out << r.err;
      const bool out_of_range = contains(r.err, name + ": '" + value + "' ");
      EXPECT_TRUE(out_of_range || contains(r.err, name + ": " + not_a_number)) << what << "\n"
                                                                               << r.err;
      if (out_of_range) {  // bad input: one line, as a file's bad number is
        EXPECT_EQ(r.err.rfind("hcp-plan: error: <command line>: " + name + ": ", 0), 0u) << r.err;
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << ": more than one line\n" << r.err;
      }
    }
  }
}

TEST(UsageCli, EveryFloatOptionRejectsWhatNoFileMayHold) {
  // CLI::Range lets NaN through (every comparison with it is false), and a denormal or 1e308
  // printed "needs 205.8 of 0 GiB" or a 64-digit headroom: each floating-point option takes a
  // number as a file's number is taken (parse_physical), found from the help so that a new
  // option is held to it too.
  const std::vector<std::string> options = options_of_type("FLOAT");
  EXPECT_GE(options.size(), 9u);  // plan/compare --memory-limit, dcp --tflops, check-log x2, ...
  expect_each_rejected(options, {"nan", "inf", "-inf", "5e-324", "1e308", "-1", "0x10", "1,5"},
                       "expected a number");
}

TEST(UsageCli, EveryIntegerOptionRejectsWhatNoCountMayBe) {
  // CLI11 took --gpus-per-node 9223372036854775808 as INT64_MAX ("0 node(s) x
  // 9223372036854775807 GPUs"), `groups --show -1` printed no group, and `dcp
  // --max-seqlen-per-dp-cp-rank -1` fell back to the default: each integer option is checked
  // against its physical range before conversion (check_count_options).
  std::vector<std::string> options = options_of_type("INT");
  for (const std::string& option : options_of_type("UINT")) {
    if (option.find("--seed") == std::string::npos) options.push_back(option);  // any u64 seeds
  }
  EXPECT_GE(options.size(), 45u);  // 49 when this was written
  expect_each_rejected(options, {"9223372036854775808", "2147483648", "-1", "1.5", "0x10", "nan"},
                       "expected an integer");
}

TEST(UsageCli, PreflightHintsNameOptionsPreflightTakes) {
  CliResult r = run_cli(
      "preflight llama3_8b_128k --env-file tests/fixtures/preflight/slurm_4x8.env "
      "--nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt --wide");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string help = help_of("preflight");
  std::regex pass(R"(fix: pass (--[a-z-]+))");
  int hints = 0;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), pass), end; it != end; ++it) {
    ++hints;
    EXPECT_TRUE(contains(help, (*it)[1].str() + " ")) << (*it)[1] << " is no preflight option";
  }
  EXPECT_GT(hints, 0) << r.out;
}

}  // namespace
}  // namespace hcp
