// Hostile environments, end to end: limits and closed streams that used to kill hcp-plan with a
// signal or an abort now end in one line on stderr and exit 2 (main.cpp ignores SIGXFSZ and
// SIGPIPE and keeps a memory reserve for the unwinding, memory_reserve.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli/cli_runner.h"
#include "support/sanitizer.h"
#include "support/scratch_dir.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;

void expect_one_line(const CliResult& r, const std::string& words) {
  EXPECT_EQ(r.exit_code, 2) << "stderr: " << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line:\n" << r.err;
  EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
}

// ulimit -f: a write past the limit raised SIGXFSZ, which killed the run (exit 153, no message)
// and left the temporary file.
TEST(HostileEnvironment, FileSizeLimitIsOneLineAndLeavesNoFile) {
  testing::ScratchDir dir("hcp_fsize");
  CliResult r = testing::run_cli("plan llama3_8b_128k --nodes 4 -o '" + dir.path("plan.txt") + "'",
                                 "ulimit -f 1;");
  expect_one_line(r, "File too large");
  EXPECT_TRUE(fs::is_empty(dir.path("")));
}

// A reader that closed the pipe before the output came: SIGPIPE ended the run (exit 141).
TEST(HostileEnvironment, ClosedPipeIsOneLine) {
  testing::ScratchDir dir("hcp_epipe");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  const std::string err = dir.path("stderr.txt");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(fds[1], STDOUT_FILENO);
    int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err_fd, STDERR_FILENO);
    if (chdir(HCP_SOURCE_DIR) != 0) _exit(126);
    execl(HCP_BINARY, HCP_BINARY, "plan", "llama3_8b_128k", "--nodes", "4",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  int status = 0;
  waitpid(child, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = testing::read_whole_file(err);
  expect_one_line(r, "Broken pipe");
}

// Out of memory under ulimit -v: the JSON being built freed its children while the stack unwound
// and allocated to do it, which aborted ("terminate called after throwing std::bad_alloc").
TEST(HostileEnvironment, OutOfMemoryIsOneLine) {
  if (testing::kAddressSanitizer) GTEST_SKIP() << "ASan's shadow memory needs no address limit";
  CliResult r = testing::run_cli("groups llama3_8b_128k --nodes 8192 --format json > /dev/null",
                                 "ulimit -v 80000;");
  expect_one_line(r, "out of memory");
}

// A launcher rank that reads "{rank}" (or holds it) was expanded again and again: the run spun
// for ever growing the path. Each {rank} in a path is now replaced once.
TEST(HostileEnvironment, ARankThatReadsRankIsExpandedOnce) {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    CliResult r = testing::run_cli("probe --hwloc-xml 'n{rank}-{rank}.xml'",
                                   std::string("timeout 10 env ") + variable + "='a{rank}b'");
    expect_one_line(r, "na{rank}b-a{rank}b.xml: no such file");
  }
}

}  // namespace
}  // namespace hcp
