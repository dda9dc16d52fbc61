// FIFOs and symbolic links as input and output paths, end to end. A FIFO nobody serves hung
// hcp-plan in open(2) (the inputs that read pipes, every output file); now the peer is waited for
// a bounded time (10 s), then one line. Output files are written through symbolic links, and a
// read-only file or a loop of links is one line, the file untouched.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli_runner.h"
#include "support/scratch_dir.h"
#include "support/unprivileged.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_cli;
using testing::run_shell;

/// A scratch directory of this test.
class Scratch : public testing::ScratchDir {
 public:
  Scratch() : ScratchDir("hcp_fifo_link") {}
};

/// `command` with its "{}" replaced by the quoted `path`.
std::string with_path(std::string command, const std::string& path) {
  size_t at = command.find("{}");
  command.replace(at, 2, "'" + path + "'");
  return command;
}

const std::string kRecipe = "recipes/llama3_8b_128k.yaml";
const std::string kDcp = " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 2048";
const std::string kSmi = " --nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt";

/// A command reading or writing FILE ({}), and the end of its error when FILE is a FIFO nobody
/// serves.
struct FifoCase {
  const char* name;
  std::string command;
  const char* reason;
};

const std::vector<FifoCase>& fifo_cases() {
  static const std::vector<FifoCase> all = {
      {"dcp --lengths", "dcp --lengths {}" + kDcp, "cannot read: a FIFO with no writer after 10 s"},
      {"check-log", "check-log {}", "cannot read: a FIFO with no writer after 10 s"},
      {"preflight --env-file", "preflight " + kRecipe + " --env-file {}" + kSmi,
       "cannot read: a FIFO with no writer after 10 s"},
      {"validate -o", "validate " + kRecipe + " -o {}",
       "cannot write: a FIFO with no reader after 10 s"},
      {"plan --html", "plan llama3_8b_128k --nodes 1 --gpus-per-node 8 --html {}",
       "cannot write: a FIFO with no reader after 10 s"},
      {"probe --save", "probe --no-nvml" + kSmi + " --save {}",
       "cannot write: a FIFO with no reader after 10 s"},
      {"check-log --save-calibration",
       "check-log tests/fixtures/logs/mlm_hcp_ok.log --cluster dgx-h100 --save-calibration {}",
       "cannot write: a FIFO with no reader after 10 s"},
      {"accuracy --write",
       "accuracy --builtin --fit --rounds 1 --corpus tests/fixtures/accuracy/tiny_corpus.json "
       "--write {}",
       "cannot write: a FIFO with no reader after 10 s"},
  };
  return all;
}

// Every case runs at once, in the background of one shell, so the test waits the 10 s once.
TEST(FifoPaths, AFifoNobodyServesIsOneLineAfterTheWait) {
  Scratch s;
  const std::vector<FifoCase>& cases = fifo_cases();
  std::string script = "cd '" HCP_SOURCE_DIR "' || exit; ";
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string n = std::to_string(i);
    ASSERT_EQ(mkfifo(s.path("fifo" + n).c_str(), 0600), 0);
    script += "(timeout 60 '" HCP_BINARY "' " + with_path(cases[i].command, s.path("fifo" + n)) +
              " </dev/null >/dev/null 2>'" + s.path("err" + n) + "'; echo $? >'" +
              s.path("rc" + n) + "') & ";
  }
  run_shell(script + "wait");
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string n = std::to_string(i);
    const std::string fifo = s.path("fifo" + n);
    EXPECT_EQ(read_whole_file(s.path("rc" + n)), "2\n") << cases[i].name;
    EXPECT_EQ(read_whole_file(s.path("err" + n)),
              "hcp-plan: error: " + fifo + ": " + cases[i].reason + "\n")
        << cases[i].name;
    EXPECT_TRUE(fs::is_fifo(fifo)) << cases[i].name;
  }
}

/// Run `hcp-plan ARGS` in the background while the shell text `peer` runs beside it: hcp-plan's
/// exit code, stdout and stderr.
CliResult run_beside(const std::string& args, const std::string& peer) {
  return run_shell("cd '" HCP_SOURCE_DIR "' && { timeout 60 '" HCP_BINARY "' " + args + " & " +
                   peer + "; wait $!; }");
}

// With a peer, late or at once, a FIFO reads and writes what a regular file holds.
TEST(FifoPaths, AFifoWithAPeerIsReadAndWritten) {
  Scratch s;
  const std::string lengths = s.write("lengths.txt", "4096\n2048\n1024\n512\n");
  const std::string dcp = "dcp" + kDcp + " --lengths ";
  CliResult from_file = run_cli(dcp + "'" + lengths + "'");
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  const std::string fifo = s.path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // The writer comes a second after hcp-plan opened the FIFO.
  CliResult late_writer =
      run_beside(dcp + "'" + fifo + "'", "sleep 1; cat '" + lengths + "' > '" + fifo + "'");
  EXPECT_EQ(late_writer.exit_code, 0) << late_writer.err;
  EXPECT_EQ(late_writer.out, from_file.out);
  // Process substitution: a pipe opened as /dev/fd/N.
  CliResult substituted = run_shell("cd '" HCP_SOURCE_DIR "' && bash -c \"'" HCP_BINARY "' " + dcp +
                                    "<(cat '" + lengths + "')\"");
  EXPECT_EQ(substituted.exit_code, 0) << substituted.err;
  EXPECT_EQ(substituted.out, from_file.out);
  // An output FIFO whose reader comes a second late gets the report -o writes to a file.
  CliResult to_file = run_cli("validate " + kRecipe + " -o '" + s.path("report.txt") + "'");
  CliResult late_reader =
      run_beside("validate " + kRecipe + " -o '" + fifo + "'",
                 "sleep 1; cat '" + fifo + "' > '" + s.path("received.txt") + "'");
  EXPECT_EQ(late_reader.exit_code, to_file.exit_code) << late_reader.err;
  EXPECT_EQ(read_whole_file(s.path("received.txt")), read_whole_file(s.path("report.txt")));
  EXPECT_FALSE(read_whole_file(s.path("report.txt")).empty());
}

/// `hcp-plan validate RECIPE -o PATH` (and `env` before it).
CliResult validate_to(const std::string& path, const std::string& env = "") {
  return run_cli("validate " + kRecipe + " -o '" + path + "'", env);
}

TEST(OutputLinks, ALinkIsWrittenThroughAndADanglingOneCreatesItsTarget) {
  Scratch s;
  const std::string report = s.path("report.txt");
  CliResult plain = validate_to(report);
  const std::string expected = read_whole_file(report);
  ASSERT_FALSE(expected.empty()) << plain.err;
  s.write("target.txt", "original\n");
  fs::create_symlink("target.txt", s.path("link.txt"));
  CliResult through = validate_to(s.path("link.txt"));
  EXPECT_EQ(through.exit_code, plain.exit_code) << through.err;
  EXPECT_TRUE(fs::is_symlink(s.path("link.txt")));
  EXPECT_EQ(read_whole_file(s.path("target.txt")), expected);
  fs::create_symlink(s.path("made.txt"), s.path("dangling.txt"));
  CliResult dangling = validate_to(s.path("dangling.txt"));
  EXPECT_EQ(dangling.exit_code, plain.exit_code) << dangling.err;
  EXPECT_TRUE(fs::is_symlink(s.path("dangling.txt")));
  EXPECT_EQ(read_whole_file(s.path("made.txt")), expected);
}

TEST(OutputLinks, ALoopOfLinksIsOneLine) {
  Scratch s;
  fs::create_symlink(s.path("b"), s.path("a"));
  fs::create_symlink(s.path("a"), s.path("b"));
  CliResult r = validate_to(s.path("a"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "hcp-plan: error: " + s.path("a") +
                       ": cannot write: Too many levels of symbolic links\n");
  EXPECT_TRUE(fs::is_symlink(s.path("a")));
}

// Through the mode bits, as root would otherwise write anything; then as `nobody`, a file of
// root's in a directory anyone may write: before, a rename replaced both.
TEST(OutputLinks, AReadOnlyFileIsOneLineAndLeftUntouched) {
  Scratch s;
  const std::string ro = s.write("ro.txt", "original\n");
  ASSERT_EQ(chmod(ro.c_str(), 0444), 0);
  CliResult r = validate_to(ro);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "hcp-plan: error: " + ro + ": cannot write: is read-only (mode 0444)\n");
  EXPECT_EQ(read_whole_file(ro), "original\n");
  if (geteuid() != 0) return;
  const std::string theirs = s.write("theirs.txt", "original\n");
  ASSERT_EQ(chmod(theirs.c_str(), 0644), 0);
  ASSERT_EQ(chmod(s.path("").c_str(), 0777), 0);
  CliResult as_nobody = validate_to(theirs, testing::unprivileged_command_prefix());
  EXPECT_EQ(as_nobody.exit_code, 2);
  EXPECT_EQ(as_nobody.err,
            "hcp-plan: error: " + theirs + ": cannot write: is read-only (mode 0644)\n");
  EXPECT_EQ(read_whole_file(theirs), "original\n");
}

}  // namespace
}  // namespace hcp
