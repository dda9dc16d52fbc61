// The checked writer (issue 28): full disks and closed pipes are errors, an output file appears
// whole or not at all.
#include "hcp/file_output.h"
#include "support/fifo_wait.h"
#include "support/unprivileged.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

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

/// A child that writes 64 MiB to `target` (1 MiB a write), started with `ignored` ignored (0:
/// none). Returns its pid once the temporary file exists beside `target` (or the wait ran out).
pid_t start_slow_writer(const std::string& target, int ignored = 0) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    if (ignored != 0) std::signal(ignored, SIG_IGN);
    std::string text(size_t{1} << 26, 'x');
    (void)write(ready[1], "r", 1);
    (void)write_output_file(target, text);
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  (void)read(ready[0], &byte, 1);
  close(ready[0]);
  const fs::path folder = fs::path(target).parent_path();
  for (int i = 0; i < 2000 && fs::is_empty(folder); ++i)
    usleep(1000);
  return child;
}

// A signal that ends the process part-way through a write leaves neither the target nor the
// temporary file: SIGTERM, Ctrl-C and SIGHUP did already; SIGUSR1/2 (Slurm's warning before it
// pre-empts a job), SIGALRM, a closed pipe, timers and the CPU limit left ".NAME.hcp-plan-PID-0".
class EndingSignal : public ::testing::TestWithParam<int> {};

TEST_P(EndingSignal, WhileWritingLeavesNoFile) {
  OutDir dir;
  std::string target = dir.file("big.txt");
  pid_t child = start_slow_writer(target);
  ASSERT_GT(child, 0);
  kill(child, GetParam());
  int status = 0;
  waitpid(child, &status, 0);
  if (fs::exists(target)) GTEST_SKIP() << "the write finished before the signal came";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam());
  EXPECT_EQ(dir.entries(), 0U);
}

INSTANTIATE_TEST_SUITE_P(Signals, EndingSignal,
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM,
                                           SIGPIPE, SIGVTALRM, SIGPROF, SIGXCPU),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

// Under nohup SIGHUP is ignored: the write must not turn it back into an ending signal.
TEST(WriteOutputFile, AnIgnoredSignalStaysIgnoredWhileWriting) {
  OutDir dir;
  std::string target = dir.file("big.txt");
  pid_t child = start_slow_writer(target, SIGHUP);
  ASSERT_GT(child, 0);
  kill(child, SIGHUP);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(fs::file_size(target), size_t{1} << 26);
  EXPECT_EQ(dir.entries(), 1U);
}

// The folder renamed while the file is written, then the run ended: the temporary file is
// removed from the folder where it now is (before, the handler's relative path missed it).
TEST(WriteOutputFile, SignalAfterTheFolderIsRenamedLeavesNoFile) {
  OutDir dir;
  fs::create_directory(dir.file("out"));
  OutDir moved;  // only its name: the folder is renamed to moved/out
  std::string target = dir.file("out") + "/big.txt";
  pid_t child = start_slow_writer(target);
  ASSERT_GT(child, 0);
  fs::rename(dir.file("out"), moved.file("out"));
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFSIGNALED(status)) GTEST_SKIP() << "the write finished before SIGTERM came";
  EXPECT_TRUE(fs::is_empty(moved.file("out")));
}

/// The permission bits of `path` (links followed).
unsigned mode_of(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// A FIFO nobody reads blocked open(2) forever: the wait for a reader is bounded, then one line.
TEST(WriteOutputFile, FifoWithNoReaderIsAnErrorAfterTheWait) {
  testing::ShortFifoWait short_wait;
  OutDir dir;
  const std::string fifo = dir.file("report.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Status s = write_output_file(fifo, "report\n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().str(), fifo + ": cannot write: a FIFO with no reader after 200 ms");
  EXPECT_TRUE(fs::is_fifo(fifo));  // not replaced by a regular file
  EXPECT_EQ(dir.entries(), 1U);
}

// A reader, there at once or a moment later, gets the text through the FIFO itself.
TEST(WriteOutputFile, FifoWithAReaderIsWrittenInPlace) {
  OutDir dir;
  const std::string fifo = dir.file("report.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    received = contents(fifo);
  });
  Status s = write_output_file(fifo, "report\n");
  reader.join();
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(received, "report\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// cp, tee and compilers write through a link to its target; the link stays a link.
TEST(WriteOutputFile, SymbolicLinksAreWrittenThrough) {
  OutDir dir;
  std::ofstream(dir.file("target.txt")) << "original\n";
  fs::create_symlink("target.txt", dir.file("link.txt"));              // relative
  fs::create_symlink(dir.file("link.txt"), dir.file("link_of_link"));  // absolute, to a link
  ASSERT_TRUE(write_output_file(dir.file("link.txt"), "first\n"));
  EXPECT_TRUE(fs::is_symlink(dir.file("link.txt")));
  EXPECT_EQ(contents(dir.file("target.txt")), "first\n");
  ASSERT_TRUE(write_output_file(dir.file("link_of_link"), "second\n"));
  EXPECT_TRUE(fs::is_symlink(dir.file("link_of_link")));
  EXPECT_EQ(contents(dir.file("target.txt")), "second\n");
  // A dangling link creates its target.
  fs::create_symlink("made.txt", dir.file("dangling"));
  ASSERT_TRUE(write_output_file(dir.file("dangling"), "made\n"));
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling")));
  EXPECT_EQ(contents(dir.file("made.txt")), "made\n");
  EXPECT_EQ(dir.entries(), 5U);  // no temporary file left behind
}

TEST(WriteOutputFile, SymbolicLinkLoopIsAnError) {
  OutDir dir;
  fs::create_symlink(dir.file("b"), dir.file("a"));
  fs::create_symlink(dir.file("a"), dir.file("b"));
  Status s = write_output_file(dir.file("a"), "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().str(), dir.file("a") + ": cannot write: Too many levels of symbolic links");
  EXPECT_TRUE(fs::is_symlink(dir.file("a")));
  EXPECT_TRUE(fs::is_symlink(dir.file("b")));
  EXPECT_EQ(dir.entries(), 2U);
}

// A file nobody may write is left as it is. Root writes anything, so the test (CI runs as root)
// goes through the mode bits; the next test has an unprivileged user meet a file it cannot write.
TEST(WriteOutputFile, ReadOnlyFileIsAnErrorAndLeftUntouched) {
  OutDir dir;
  const std::string file = dir.file("ro.txt");
  std::ofstream(file) << "original\n";
  ASSERT_EQ(chmod(file.c_str(), 0444), 0);
  Status s = write_output_file(file, "new\n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().str(), file + ": cannot write: is read-only (mode 0444)");
  fs::create_symlink("ro.txt", dir.file("link.txt"));
  Status through_link = write_output_file(dir.file("link.txt"), "new\n");
  ASSERT_FALSE(through_link);
  EXPECT_EQ(through_link.error().str(), dir.file("link.txt") + ": cannot write: its target " +
                                            file + " is read-only (mode 0444)");
  EXPECT_EQ(contents(file), "original\n");
  EXPECT_EQ(mode_of(file), 0444U);
  EXPECT_EQ(dir.entries(), 2U);
}

// Root's file, 0644, in a directory anyone may write: `nobody` could replace it by a rename.
TEST(WriteOutputFile, FileTheUserMayNotWriteIsReadOnly) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make a file another user may not write";
  OutDir dir;
  const std::string file = dir.file("theirs.txt");
  std::ofstream(file) << "original\n";
  ASSERT_EQ(chmod(file.c_str(), 0644), 0);
  ASSERT_EQ(chmod(dir.file("").c_str(), 0777), 0);
  std::string error = testing::run_unprivileged([&] {
    Status s = write_output_file(file, "new\n");
    return s ? std::string("written") : s.error().str();
  });
  EXPECT_EQ(error, file + ": cannot write: is read-only (mode 0644)");
  EXPECT_EQ(contents(file), "original\n");
}

TEST(WriteOutputFile, ReplacingKeepsTheOwnerAndPermissionBits) {
  OutDir dir;
  for (unsigned mode : {0600U, 0640U, 0755U}) {
    const std::string file = dir.file("kept.txt");
    std::ofstream(file) << "old\n";
    ASSERT_EQ(chmod(file.c_str(), mode), 0);
    ASSERT_TRUE(write_output_file(file, "new\n"));
    EXPECT_EQ(contents(file), "new\n");
    EXPECT_EQ(mode_of(file), mode);
  }
  if (geteuid() != 0) return;  // only root may give a file to another user
  // Root rewriting a user's report leaves it the user's.
  const std::string theirs = dir.file("theirs.txt");
  std::ofstream(theirs) << "old\n";
  const testing::Unprivileged nobody = testing::unprivileged_ids();
  ASSERT_EQ(chown(theirs.c_str(), nobody.uid, nobody.gid), 0);
  ASSERT_TRUE(write_output_file(theirs, "new\n"));
  struct stat st {};
  ASSERT_EQ(stat(theirs.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody.uid);
  EXPECT_EQ(st.st_gid, nobody.gid);
}

// /dev/stdout, /proc/self/fd/N: a link on /proc names a file this process has open. It is written
// in place (a pipe's readlink text "pipe:[N]" is no path; a regular file keeps its inode).
TEST(WriteOutputFile, ProcLinksAreWrittenInPlace) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_TRUE(write_output_file("/proc/self/fd/" + std::to_string(fds[1]), "piped\n"));
  close(fds[1]);
  char buffer[16] = {};
  EXPECT_EQ(read(fds[0], buffer, sizeof buffer), 6);
  EXPECT_EQ(std::string(buffer), "piped\n");
  close(fds[0]);
  OutDir dir;
  const std::string file = dir.file("opened.txt");
  int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  struct stat before {};
  ASSERT_EQ(fstat(fd, &before), 0);
  ASSERT_TRUE(write_output_file("/proc/self/fd/" + std::to_string(fd), "in place\n"));
  struct stat after {};
  ASSERT_EQ(stat(file.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(contents(file), "in place\n");
  close(fd);
  EXPECT_EQ(dir.entries(), 1U);
}

}  // namespace
}  // namespace hcp
