// The checked writer (issue 28): full disks and closed pipes are errors, an output file appears
// whole or not at all.
#include "hcp/file_output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hcp {
namespace {

namespace fs = std::filesystem;

class OutDir {
 public:
  OutDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("hcp_output_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~OutDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  OutDir(const OutDir&) = delete;
  OutDir& operator=(const OutDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(path_), {}));
  }

 private:
  fs::path path_;
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteOutputFile, WritesAndReplacesWithoutLeavingTemporaries) {
  OutDir dir;
  std::string p = dir.file("report.json");
  ASSERT_TRUE(write_output_file(p, "first\n"));
  ASSERT_TRUE(write_output_file(p, "second\n"));
  EXPECT_EQ(contents(p), "second\n");
  EXPECT_EQ(dir.entries(), 1U);  // no ".report.json.hcp-plan-..." left behind
}

TEST(WriteOutputFile, FullDeviceIsAnErrorNamingThePath) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  Status s = write_output_file("/dev/full", "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().str(), "/dev/full: cannot write: No space left on device");
  EXPECT_TRUE(write_output_file("/dev/null", "x"));  // a device written in place
}

TEST(WriteOutputFile, DirectoryAndMissingDirectoryAreErrors) {
  OutDir dir;
  Status to_dir = write_output_file(dir.file(""), "x");
  ASSERT_FALSE(to_dir);
  EXPECT_NE(to_dir.error().message.find("is a directory"), std::string::npos);
  Status missing = write_output_file(dir.file("no/such/dir.txt"), "x");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().str(),
            dir.file("no/such/dir.txt") + ": cannot write: No such file or directory");
}

TEST(WriteAll, ClosedPipeIsAnError) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  auto previous = std::signal(SIGPIPE, SIG_IGN);  // as a parent that ignores SIGPIPE
  Status s = write_all(fds[1], "x", "<stdout>");
  std::signal(SIGPIPE, previous);
  close(fds[1]);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().str(), "<stdout>: cannot write: Broken pipe");
}

TEST(WriteOutputFile, SigtermWhileWritingLeavesNoFile) {
  // A child writes 16 MiB to a file (1 MiB a write) and is killed with SIGTERM part-way:
  // neither the target nor the temporary file may remain.
  OutDir dir;
  std::string target = dir.file("big.txt");
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    // Slow the write down: SIGTERM arrives while write_output_file holds the temporary file.
    std::string text(size_t{1} << 24, 'x');
    (void)write(ready[1], "r", 1);
    (void)write_output_file(target, text);
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  // Wait until the temporary file exists, then end the child.
  for (int i = 0; i < 2000 && dir.entries() == 0; ++i)
    usleep(1000);
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  if (fs::exists(target)) GTEST_SKIP() << "the write finished before SIGTERM came";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_EQ(dir.entries(), 0U);
}

}  // namespace
}  // namespace hcp
