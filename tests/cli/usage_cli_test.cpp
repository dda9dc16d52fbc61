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
  // A slip in which options there are (an option left without its value, an unknown one) points
  // to the subcommand's help; a value an option rejects is one line (OptionValueErrorsHaveOneForm).
  CliResult r = run_cli("plan gemma3_1b_32k --nodes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "Run 'hcp-plan plan --help' for its options.")) << r.err;
  CliResult format = run_cli("check-log tests/fixtures/logs/mlm_oom.log --formt yaml");
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
/// that is none; either in one line "hcp-plan: error: <command line>: --x: ...", as a file's bad
/// number is.
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
      EXPECT_EQ(r.err.rfind("hcp-plan: error: <command line>: " + name + ": ", 0), 0u) << r.err;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << ": more than one line\n" << r.err;
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

TEST(UsageCli, EverySeedOptionTakesADecimalU64) {
  // CLI11 read --seed 0x10 as 16, 010 as 8 and -1 as 2^64-1.
  std::vector<std::string> seeds;
  for (const std::string& option : options_of_type("UINT")) {
    if (option.find("--seed") != std::string::npos) seeds.push_back(option);
  }
  EXPECT_GE(seeds.size(), 2u);  // dcp, simulate
  expect_each_rejected(seeds, {"18446744073709551616", "-1", "1.5", "0x10", "0o10", "nan"},
                       "expected a seed");
}

TEST(UsageCli, OptionValueErrorsHaveOneForm) {
  // "--nodes many" said "--nodes: expected ..." with a pointer to the help, "--nodes 0" said
  // "<command line>: --nodes: ..." in one line: every value an option rejects is now the latter.
  const char* const cases[][2] = {
      {"plan gemma3_1b_32k --nodes many", "--nodes: expected an integer, got 'many'"},
      {"plan gemma3_1b_32k --nodes 0", "--nodes: '0' is below the physical range"},
      {"validate gemma3_1b_32k --world-size x", "--world-size: expected an integer, got 'x'"},
      {"groups --world-size 8 --tp 2x", "--tp: expected an integer, got '2x'"},
      {"plan gemma3_1b_32k --nodes 1 --memory-limit abc", "--memory-limit: expected a number"},
      {"validate gemma3_1b_32k --format jsn", "--format: expects text, json"},
      {"validate gemma3_1b_32k --cluster ''", "--cluster: an empty value"},
      {"simulate --seed x", "--seed: expected a seed"},
      // Values the command reads itself: they said "--hcp: ...", "<option>: --option ...".
      {"simulate --cp 4 --seq-length 64 --heads 2 --head-dim 8 --cp-comm-type ring",
       "--cp-comm-type: unknown cp_comm_type 'ring'"},
      {"simulate --cp 4 --seq-length 64 --heads 2 --head-dim 8 --cp-comm-type a2a+p2p --hcp 2,x",
       "--hcp: hcp must be a positive integer, got 'x'"},
      {"compare gemma3_1b_32k --nodes 1 --option cp_comm_type=ring",
       "--option \"cp_comm_type=ring\": unknown cp_comm_type 'ring'"},
      {"bench gemma3_1b_32k --option tp=x --dry-run", "--option: tp must be a positive integer"},
  };
  for (const auto& [args, message] : cases) {
    CliResult r = run_cli(std::string(args) + " </dev/null");
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind(std::string("hcp-plan: error: <command line>: ") + message, 0), 0u)
        << args << "\n"
        << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": more than one line\n" << r.err;
  }
}

/// One integer option of one subcommand given a value with a leading zero.
struct LeadingZeroCase {
  const char* command;  ///< The command line with "{}" where the value goes.
  const char* padded;   ///< The value with a leading zero: "010".
  const char* decimal;  ///< What it must mean: "10".
  const char* octal;    ///< What CLI11 read it as: "8".
};

/// `command` with "{}" replaced by `value`.
std::string with_value(std::string command, const std::string& value) {
  command.replace(command.find("{}"), 2, value);
  return command;
}

TEST(UsageCli, EveryIntegerOptionReadsALeadingZeroAsDecimal) {
  // CLI11 converts integers with strtoll base 0: `plan --nodes 010` planned 8 nodes while
  // `validate --nodes 010` (a string option read with from_chars) checked 10. Every integer
  // option now reads "010" as 10, as Python's int(), argparse type=int and torchrun do: its
  // output is that of "10" and not that of "8".
  const std::string r = "recipes/llama3_8b_128k.yaml";
  const std::string toy = "tests/fixtures/dcp/bridge_toy.json";
  const LeadingZeroCase cases[] = {
      {"plan RECIPE --nodes {} --top 1", "010", "10", "8"},
      {"plan RECIPE --nodes 4 --global-batch {} --top 1", "040", "40", "32"},
      {"validate RECIPE --nodes {} --gpus-per-node 8 -q", "010", "10", "8"},
      {"groups RECIPE --world-size {}", "040", "40", "32"},
      {"groups --world-size 160 --cp {}", "020", "20", "16"},
      {"groups --world-size 80 --tp {}", "010", "10", "8"},
      {"groups --world-size 80 --ep {}", "010", "10", "8"},
      {"groups --world-size 80 --nvlink-domain {}", "010", "10", "8"},
      {"compare RECIPE --nodes 2 --gpus-per-node {} --option tp=1,cp=4", "010", "10", "8"},
      {"preflight RECIPE --env-file /dev/null --nodes {} --gpus-per-node 8", "010", "10", "8"},
      {"simulate --cp {} --seq-length 160 --cp-comm-type p2p --heads 2 --head-dim 8", "010", "10",
       "8"},
      {"simulate --cp 2 --seq-length 64 --cp-comm-type p2p --heads 2 --head-dim 8 --seed {}", "010",
       "10", "8"},
      {"dcp --lengths TOY --dp 2 --cp {} --max-seqlen-per-dp-cp-rank 64", "010", "10", "8"},
      {"dcp --lengths TOY --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank {}", "0100", "100", "64"},
  };
  for (const LeadingZeroCase& c : cases) {
    std::string command = std::regex_replace(c.command, std::regex("RECIPE"), r);
    command = std::regex_replace(command, std::regex("TOY"), toy);
    const CliResult padded = run_cli(with_value(command, c.padded) + " </dev/null");
    const CliResult decimal = run_cli(with_value(command, c.decimal) + " </dev/null");
    const CliResult octal = run_cli(with_value(command, c.octal) + " </dev/null");
    const std::string what = with_value(command, c.padded);
    EXPECT_NE(padded.exit_code, 2) << what << "\n" << padded.err;
    EXPECT_EQ(padded.exit_code, decimal.exit_code) << what;
    EXPECT_EQ(padded.out, decimal.out) << what;
    EXPECT_EQ(padded.err, decimal.err) << what;
    EXPECT_NE(padded.out, octal.out) << what << ": the case does not tell 10 from 8";
  }
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
