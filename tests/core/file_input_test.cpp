// The one input layer (issue 28): every hostile class of file, fed to the reader of every kind,
// is refused in one line naming the path (or read correctly), never read without bound.
#include "hcp/file_input.h"
#include "support/fifo_wait.h"
#include "support/scratch_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace hcp {
namespace {

namespace fs = std::filesystem;

/// A scratch directory of this test.
class InputDir : public testing::ScratchDir {
 public:
  InputDir() : ScratchDir("hcp_file_input") {}
};

const std::vector<InputKind> kAllKinds = {
    InputKind::kRecipe,      InputKind::kConfig,  InputKind::kArgs,    InputKind::kEnv,
    InputKind::kCalibration, InputKind::kCapture, InputKind::kLengths, InputKind::kIndex};

/// A path that no reader of any kind may read, and the words its error must hold.
struct Refused {
  const char* name;
  std::function<std::string(const InputDir&)> make;
  const char* reason;
};

TEST(InputLayer, HostilePathsAreRefusedInOneLineNamingThePath) {
  const std::vector<Refused> cases = {
      {"device", [](const InputDir&) { return std::string("/dev/zero"); },
       "is a device, not a regular file"},
      {"directory", [](const InputDir& d) { return d.path(""); }, "is a directory"},
      {"symlink loop",
       [](const InputDir& d) {
         fs::create_symlink(d.path("loop_b"), d.path("loop_a"));
         fs::create_symlink(d.path("loop_a"), d.path("loop_b"));
         return d.path("loop_a");
       },
       "a loop of symbolic links"},
      {"/proc file", [](const InputDir&) { return std::string("/proc/self/mem"); },
       "is a /proc or /sys file"},
      {"/sys file", [](const InputDir&) { return std::string("/sys/kernel/uevent_seqnum"); },
       "is a /proc or /sys file"},
      {"missing", [](const InputDir& d) { return d.path("nope"); }, "no such file"},
  };
  InputDir dir;
  for (const Refused& c : cases) {
    const std::string path = c.make(dir);  // made once, read as every kind
    std::error_code ec;
    if (path.rfind("/sys/", 0) == 0 && !fs::exists(path, ec)) continue;  // no /sys mounted
    for (InputKind kind : kAllKinds) {
      auto r = read_input_file(path, kind);
      ASSERT_FALSE(r) << c.name << " read as " << input_kind_name(kind);
      const std::string line = r.error().str();
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      EXPECT_EQ(line.rfind(path, 0), 0U) << line;
      EXPECT_NE(line.find(c.reason), std::string::npos) << c.name << ": " << line;
      auto head = read_input_head(path, kind, 34);
      EXPECT_FALSE(head) << c.name;
    }
  }
}

// The files a process has read are known by their identity on disk, whatever name reaches them:
// the report writer asks before it replaces a file.
TEST(InputLayer, InputsReadAreKnownUnderAnyNameThatReachesThem) {
  InputDir d;
  const std::string read = d.write("read.yaml", "model: {}\n");
  const std::string unread = d.write("unread.yaml", "model: {}\n");
  fs::create_symlink(read, d.path("link.yaml"));
  fs::create_hard_link(read, d.path("hard.yaml"));
  EXPECT_FALSE(input_read_as(read).has_value());
  ASSERT_TRUE(read_input_file(read, InputKind::kRecipe).ok());
  EXPECT_EQ(input_read_as(read), read);
  EXPECT_EQ(input_read_as(d.path("link.yaml")), read);
  EXPECT_EQ(input_read_as(d.path("hard.yaml")), read);
  EXPECT_FALSE(input_read_as(unread).has_value());
  EXPECT_FALSE(input_read_as(d.path("missing.yaml")).has_value());
  EXPECT_FALSE(input_read_as(d.path("")).has_value());  // the directory
  EXPECT_FALSE(input_read_as("/dev/null").has_value());
  // A file refused as an input was not read.
  const std::string big = d.write("big.yaml", std::string(64, 'x'));
  EXPECT_FALSE(read_input_file(big, InputKind::kRecipe, 8).ok());
  EXPECT_EQ(input_read_as(big), big);  // opened, then refused by its size: still an input
}

// sysfs and /proc attributes are read by name under --sysfs-root, a directory the user names:
// a FIFO there blocked open(), a link to /dev/zero made getline read until memory ran out.
TEST(InputLayer, SystemFileLinesAreBoundedAndRegularFilesOnly) {
  InputDir d;
  EXPECT_EQ(read_system_file_line(d.write("state", "4: ACTIVE\nmore\n")), "4: ACTIVE");
  EXPECT_EQ(read_system_file_line(d.write("no_end", "5: LinkUp")), "5: LinkUp");
  EXPECT_EQ(read_system_file_line(d.write("empty", "")), "");
  EXPECT_EQ(read_system_file_line(d.write("long", std::string(10000, 'x')))->size(), 4096u);
  ASSERT_EQ(mkfifo(d.path("fifo").c_str(), 0600), 0);
  EXPECT_FALSE(read_system_file_line(d.path("fifo")).has_value());
  fs::create_symlink("/dev/zero", d.path("zero"));
  EXPECT_FALSE(read_system_file_line(d.path("zero")).has_value());
  EXPECT_FALSE(read_system_file_line(d.path("")).has_value());
  EXPECT_FALSE(read_system_file_line(d.path("missing")).has_value());
}

TEST(InputLayer, WideEncodingsAreToldByMarkOrByTheirZeroBytes) {
  using namespace std::string_literals;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\xFF\xFEm\0o\0"s, "UTF-16LE"},
      {"\xFE\xFF\0m\0o"s, "UTF-16BE"},
      {"\xFF\xFE\0\0m\0\0\0"s, "UTF-32LE"},
      {"\0\0\xFE\xFF\0\0\0m"s, "UTF-32BE"},
      {"m\0o\0d\0"s, "UTF-16LE"},
      {"\0m\0o\0d"s, "UTF-16BE"},
      // Not wide text: UTF-8 (with its mark or not), an ELF header, NULs, too short to tell.
      {"model:\n"s, ""},
      {"\xEF\xBB\xBFmodel:\n"s, ""},
      {"\x7F"
       "ELF\x02\x01\x01\0"s,
       ""},
      {std::string(16, '\0'), ""},
      {"m\0"s, ""},
  };
  for (const auto& [text, encoding] : cases) {
    EXPECT_EQ(wide_text_encoding(text), encoding) << ::testing::PrintToString(text);
    EXPECT_EQ(wide_text_error(text, "f", "a recipe").has_value(), !encoding.empty());
  }
  auto e = wide_text_error("\xFF\xFEm\0"s, "r.yaml", "a recipe");
  ASSERT_TRUE(e);
  EXPECT_EQ(
      e->message.rfind("UTF-16LE text (byte-order mark FF FE), expected a recipe in UTF-8", 0), 0u)
      << e->message;
  EXPECT_EQ(e->location.line, 1);
}

TEST(InputLayer, DevNullIsTheEmptyFile) {
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  for (InputKind kind : kAllKinds) {
    auto r = read_input_file("/dev/null", kind);
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(*r, "");
  }
}

TEST(InputLayer, PipesOnlyForTheKindsThatAllowThem) {
  InputDir dir;
  for (InputKind kind : kAllKinds) {
    std::string fifo = dir.path(std::string("fifo_") + input_kind_name(kind));
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    if (!input_kind_allows_pipe(kind)) {
      auto r = read_input_file(fifo, kind);  // refused before open(2): no writer needed
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().str(),
                fifo + ": is a pipe, not a regular file, expected " +
                    (kind == InputKind::kArgs || kind == InputKind::kIndex ? std::string("an ")
                                                                           : std::string("a ")) +
                    input_kind_name(kind));
      continue;
    }
    std::thread writer([&] {
      int fd = open(fifo.c_str(), O_WRONLY);
      if (fd >= 0) {
        (void)!write(fd, "1\n2\n", 4);
        close(fd);
      }
    });
    auto r = read_input_file(fifo, kind);
    writer.join();
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(*r, "1\n2\n");
  }
  EXPECT_TRUE(input_kind_allows_pipe(InputKind::kLengths));
  EXPECT_FALSE(input_kind_allows_pipe(InputKind::kRecipe));
}

/// The input kinds that read pipes.
std::vector<InputKind> pipe_kinds() {
  return {InputKind::kLengths, InputKind::kEnv, InputKind::kLog};
}

// A FIFO nobody writes blocked open(2) forever (dcp --lengths, preflight --env-file, check-log):
// now the wait for its writer is bounded and ends in one line naming the FIFO.
TEST(InputLayer, FifoWithNoWriterIsAnErrorAfterTheWait) {
  testing::ShortFifoWait short_wait;
  InputDir dir;
  for (InputKind kind : pipe_kinds()) {
    const std::string fifo = dir.path(std::string("fifo_") + input_kind_name(kind));
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    auto r = read_input_file(fifo, kind);
    ASSERT_FALSE(r) << input_kind_name(kind);
    EXPECT_EQ(r.error().str(), fifo + ": cannot read: a FIFO with no writer after 200 ms");
    auto opened = open_input_file(fifo, kind);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error().str(), r.error().str());
  }
}

// A writer that opens its end and stays silent longer than the wait (a generator still computing)
// is a writer: the reader waits for its data, as before.
TEST(InputLayer, FifoWriterSilentPastTheWaitIsStillRead) {
  testing::ShortFifoWait short_wait(std::chrono::milliseconds(50));
  InputDir dir;
  const std::string fifo = dir.path("lengths");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // O_RDWR opens a FIFO on Linux without waiting: the writer is there before the reader comes.
  int writer_fd = open(fifo.c_str(), O_RDWR);
  ASSERT_GE(writer_fd, 0);
  std::thread writer([writer_fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    (void)!write(writer_fd, "4096\n", 5);
    close(writer_fd);
  });
  auto r = read_input_file(fifo, InputKind::kLengths);
  writer.join();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, "4096\n");
}

// `--lengths <(printf ...)`: the shell's pipe, read through /dev/fd/N, whose writer may have
// written everything and ended before hcp-plan opens it: the data waiting is read, not waited on.
TEST(InputLayer, PipeWhoseWriterFinishedIsRead) {
  testing::ShortFifoWait short_wait;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "1\n2\n", 4), 4);
  close(fds[1]);
  auto r = read_input_file("/proc/self/fd/" + std::to_string(fds[0]), InputKind::kLengths);
  close(fds[0]);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, "1\n2\n");
}

/// A text file's bytes and what the reader makes of it: its text, or the words of its error.
struct TextCase {
  const char* name;
  std::string bytes;
  bool ok;
  std::string expected;  ///< the text read, or a part of the error line
};

TEST(InputLayer, TextClassesOfEveryTextKind) {
  const std::vector<TextCase> cases = {
      {"empty", "", true, ""},
      {"BOM", "\xEF\xBB\xBFkey: 1\n", true, "key: 1\n"},
      {"CR-only line ends", "a: 1\rb: 2\r", true, "a: 1\nb: 2\n"},
      {"CRLF kept", "a: 1\r\nb: 2\r\n", true, "a: 1\r\nb: 2\r\n"},
      {"overlong UTF-8", "a: 1\nb: \xC0\xAF\n", false, ":2:4: invalid UTF-8 (byte 0xc0)"},
      {"invalid byte", "\xFF", false, ":1:1: invalid UTF-8 (byte 0xff)"},
      {"surrogate", "x\xED\xA0\x80", false, ":1:2: invalid UTF-8 (byte 0xed)"},
      {"truncated sequence", "ok\xE2\x82", false, ":1:3: invalid UTF-8 (byte 0xe2)"},
      {"NUL: binary data at the first control byte", std::string("a\x7f\0b", 4), false,
       ":1:2: binary data (byte 0x7f): not a"},
  };
  InputDir dir;  // each case's file, written once and read as every text kind
  std::vector<std::string> paths;
  for (size_t i = 0; i < cases.size(); ++i)
    paths.push_back(dir.write("f" + std::to_string(i), cases[i].bytes));
  for (InputKind kind : kAllKinds) {
    if (!input_kind_is_text(kind)) continue;
    for (size_t i = 0; i < cases.size(); ++i) {
      const TextCase& c = cases[i];
      const std::string& path = paths[i];
      auto r = read_input_file(path, kind);
      if (c.ok) {
        ASSERT_TRUE(r) << c.name << ": " << r.error().str();
        EXPECT_EQ(*r, c.expected) << c.name;
      } else {
        ASSERT_FALSE(r) << c.name;
        EXPECT_EQ(r.error().str().rfind(path + c.expected, 0), 0U) << r.error().str();
      }
    }
  }
}

TEST(InputLayer, BinaryKindKeepsItsBytes) {
  InputDir dir;
  std::string bytes("\xFF\r\0\xC0", 4);
  auto r = read_input_file(dir.write("x.idx", bytes), InputKind::kIndex);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, bytes);
}

TEST(InputLayer, HeadReadsOnlyTheHeaderOfASparseFile) {
  InputDir dir;
  std::string path = dir.write("sparse.idx", "MMIDIDX");
  ASSERT_EQ(truncate(path.c_str(), off_t{1} << 31), 0);  // 2 GiB, sparse: nothing to read
  auto head = read_input_head(path, InputKind::kIndex, 34);
  ASSERT_TRUE(head) << head.error().str();
  EXPECT_EQ(head->size, uint64_t{1} << 31);
  EXPECT_EQ(head->bytes.size(), 34U);
  EXPECT_EQ(head->bytes.substr(0, 7), "MMIDIDX");
}

TEST(InputLayer, OpenInputFileChecksLikeTheReader) {
  InputDir dir;
  auto refused = open_input_file(dir.path(""), InputKind::kLog);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("is a directory, expected a training log"),
            std::string::npos);
  auto opened = open_input_file(dir.write("log.txt", "x"), InputKind::kLog);
  ASSERT_TRUE(opened);
  close(*opened);
}

TEST(InputLayer, NormalizeNamesWhatWasExpected) {
  auto r = normalize_input_text("a\n\xFE", "<stdin>", "recipe");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().str(), "<stdin>:2:1: invalid UTF-8 (byte 0xfe), expected a recipe in UTF-8");
}

}  // namespace
}  // namespace hcp
