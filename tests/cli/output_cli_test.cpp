// Terminal-aware text (issue 30): the width from COLUMNS or the terminal, tables that never wrap
// a cell under themselves, wrapped --help, colour on a terminal only (--color, NO_COLOR).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

const char* const kPlan = "plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster dgx-h100";
const char* const kCp012 =
    "validate llama3_8b_128k --nodes 4 --gpus-per-node 8 --te-version 2.18.0 "
    "model.hierarchical_context_parallel_sizes=null";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

/// Display columns of a line (UTF-8 code points, colour codes removed).
size_t columns(const std::string& line) {
  const std::string plain = std::regex_replace(line, std::regex("\x1b\\[[0-9;]*m"), "");
  size_t n = 0;
  for (unsigned char c : plain)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

/// Run `hcp-plan ARGS` in a real pseudo-terminal of `width` columns (script(1)); stdout and
/// stderr both come back in out.
CliResult run_in_terminal(const std::string& args, size_t width, const std::string& env = "") {
  const std::string inner =
      "stty cols " + std::to_string(width) + " rows 50; " + env + " '" + HCP_BINARY + "' " + args;
  return run_shell("cd '" HCP_SOURCE_DIR "' && HCP_PLAN_DATA_DIR=recipes script -qec \"" + inner +
                   "\" /dev/null");
}

struct WidthCase {
  const char* what;
  std::string args;
};

std::vector<WidthCase> width_cases() {
  return {
      {"plan", kPlan},
      {"plan --show-rejected", std::string(kPlan) + " --show-rejected --top 3"},
      {"plan, recompute full", std::string(kPlan) + " --recompute full"},
      {"compare",
       "compare llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster dgx-h100 --recompute full "
       "--option tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2 --option tp=2,cp=4,cp_comm_type=a2a "
       "--option tp=1,cp=16,cp_comm_type=p2p"},
      {"groups", "groups --tp 1 --cp 16 --hcp 8x2 --world-size 32 --gpus-per-node 8"},
      {"validate", kCp012},
      {"--help", "--help"},
      {"plan --help", "plan --help"},
      {"validate --help", "validate --help"},
      {"groups --help", "groups --help"},
      {"compare --help", "compare --help"},
      {"check-log --help", "check-log --help"},
  };
}

TEST(TerminalWidth, NoLinePassesColumns80Or100) {
  for (const char* columns_value : {"80", "100"}) {
    for (const WidthCase& c : width_cases()) {
      auto r = run_cli(c.args, std::string("COLUMNS=") + columns_value);
      ASSERT_LE(r.exit_code, 1) << c.what << "\n" << r.err;
      for (const std::string& line : lines_of(r.out)) {
        EXPECT_LE(columns(line), std::stoul(columns_value))
            << c.what << " at COLUMNS=" << columns_value << ": " << line;
      }
    }
  }
}

TEST(TerminalWidth, AnEightyColumnTerminalGivesEightyColumnLines) {
  for (const WidthCase& c : width_cases()) {
    auto r = run_in_terminal(c.args, 80);
    ASSERT_LE(r.exit_code, 1) << c.what << "\n" << r.out;
    for (const std::string& line : lines_of(r.out))
      EXPECT_LE(columns(line), 80u) << c.what << ": " << line;
  }
}

TEST(TerminalWidth, WideTurnsFittingOffAndNotATerminalMeans100) {
  auto wide = run_cli(std::string(kCp012) + " --wide", "COLUMNS=80");
  size_t longest = 0;
  for (const std::string& line : lines_of(wide.out))
    longest = std::max(longest, columns(line));
  EXPECT_GT(longest, 100u);
  // Piped, without COLUMNS: 100 columns, the longest diagnostic wrapped there.
  auto piped = run_cli(kCp012, "env -u COLUMNS");
  longest = 0;
  for (const std::string& line : lines_of(piped.out))
    longest = std::max(longest, columns(line));
  EXPECT_LE(longest, 100u);
  EXPECT_GT(longest, 80u);
}

/// The rows of the plan's decision table: from the header line to the first blank line.
std::vector<std::string> table_rows(const std::string& out) {
  std::vector<std::string> rows;
  bool in_table = false;
  for (const std::string& line : lines_of(out)) {
    if (line.rfind("Option", 0) == 0) {
      in_table = true;
      continue;
    }
    if (in_table && (line.empty() || line.rfind('(', 0) == 0 || line.rfind("your", 0) == 0)) break;
    if (in_table) rows.push_back(line);
  }
  return rows;
}

TEST(TerminalWidth, PlanTableCellsNeverWrapUnderTheTable) {
  for (const char* columns_value : {"80", "100"}) {
    auto r = run_cli(kPlan, std::string("COLUMNS=") + columns_value);
    auto rows = table_rows(r.out);
    ASSERT_GE(rows.size(), 8u) << r.out;
    for (const std::string& row : rows) {
      // A row starts with its option letter; a note moved below it is indented six columns.
      EXPECT_TRUE(std::regex_search(
          row, std::regex(R"(^([A-Z]+( \*)?\s+\d|\.\.\.$|      \S|          \S))")))
          << "COLUMNS=" << columns_value << ": " << row;
    }
  }
}

TEST(Colour, ATerminalGetsColouredSeveritiesAndRows) {
  auto validate = run_in_terminal(kCp012, 100);
  EXPECT_NE(validate.out.find("\x1b[1;31merror\x1b[0m: [CP012]"), std::string::npos)
      << validate.out;
  EXPECT_NE(validate.out.find("\x1b[36minfo\x1b[0m"), std::string::npos);
  auto plan = run_in_terminal(kPlan, 100);
  EXPECT_NE(plan.out.find("\x1b[1;32mA *"), std::string::npos) << plan.out;  // recommended
  EXPECT_NE(plan.out.find("\x1b[1mAS "), std::string::npos) << plan.out;     // your layout
}

TEST(Colour, OffWhenPipedWithNoColorOrNever) {
  struct Case {
    const char* what;
    bool terminal;
    std::string env;
    std::string flag;
    bool coloured;
  };
  const std::vector<Case> cases = {
      {"piped", false, "", "", false},
      {"piped, --color always", false, "", " --color always", true},
      {"terminal, NO_COLOR=1", true, "NO_COLOR=1", "", false},
      {"terminal, NO_COLOR empty", true, "NO_COLOR=", "", true},
      {"terminal, --color never", true, "", " --color never", false},
      {"terminal, TERM=dumb", true, "TERM=dumb", "", false},
      {"terminal, --format json", true, "", " --format json", false},
  };
  for (const Case& c : cases) {
    const std::string args = kCp012 + c.flag;
    auto r = c.terminal ? run_in_terminal(args, 100, c.env) : run_cli(args, c.env);
    EXPECT_EQ(r.out.find("\x1b[") != std::string::npos, c.coloured) << c.what << "\n" << r.out;
  }
}

TEST(Colour, ABadColorValueIsBadInput) {
  auto r = run_cli(std::string(kCp012) + " --color sometimes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--color"), std::string::npos) << r.err;
}

TEST(Progress, ATerminalSeesElapsedTimeOnStderrThenTheLineIsErased) {
  // 8M synthetic lengths take about 3 s (the scheduler is n log n): past the one-second delay of
  // the progress line.
  auto r = run_in_terminal(
      "dcp --synthetic lognormal:1024:1.5:8000000:8192 --dp 16 --cp 4 "
      "--max-seqlen-per-dp-cp-rank 2048 --global-batch 256 --seed 1 > /dev/null",
      100);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\rhcp-plan: reading and scheduling the lengths... "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\r\x1b[K"), std::string::npos) << r.out;
}

TEST(Progress, NothingOnAPipedStderr) {
  auto r = run_cli(
      "dcp --synthetic lognormal:1024:1.5:100000:8192 --dp 16 --cp 4 "
      "--max-seqlen-per-dp-cp-rank 2048 --global-batch 256 --seed 1");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.find("hcp-plan: reading"), std::string::npos) << r.err;
}

/// Every way of printing to stdout, onto a full disk (/dev/full): help and version too, which
/// CLI11 writes itself. Each is exit 2 with one line naming stdout, never exit 0 with the text
/// lost.
TEST(FullDisk, EveryStdoutWriterFailsWithOneLine) {
  if (!std::ifstream("/dev/full").good()) GTEST_SKIP() << "no /dev/full on this machine";
  const std::vector<WidthCase> cases = {
      {"--version", "--version"},
      {"-V", "-V"},
      {"--help", "--help"},
      {"--help-all", "--help-all"},
      {"plan --help", "plan --help"},
      {"rules", "rules"},
      {"validate", kCp012},
      {"plan", kPlan},
      {"groups --format json", "groups --tp 2 --cp 4 --world-size 16 --format json"},
  };
  for (const auto& c : cases) {
    CliResult r = run_cli(c.args + " > /dev/full");
    EXPECT_EQ(r.exit_code, 2) << c.what << "\n" << r.err;
    EXPECT_EQ(r.err, "hcp-plan: error: <stdout>: cannot write: No space left on device\n")
        << c.what;
  }
}

// The same commands into a pipe are exit 0: the failure above is the disk's, not the command's.
TEST(FullDisk, TheSameCommandsSucceedOnAPipe) {
  for (const char* args : {"--version", "--help", "plan --help", "rules"}) {
    CliResult r = run_cli(std::string(args) + " | cat");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    EXPECT_FALSE(r.out.empty()) << args;
  }
}

}  // namespace
}  // namespace hcp::testing
