#include "hcp/file_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "hcp/special_file.h"
#include "hcp/text_util.h"

namespace hcp {

namespace {

constexpr uint64_t kMiB = 1024ULL * 1024ULL;
constexpr uint64_t kGiB = 1024ULL * kMiB;

/// "a recipe", "an environment file".
std::string with_article(const std::string& noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + noun;
}

/// The refusal of a file that is not a regular file of `kind`, or "" when it may be read.
std::string refusal_of(const struct stat& st, InputKind kind) {
  const std::string expected = ", expected " + with_article(input_kind_name(kind));
  if (S_ISDIR(st.st_mode)) return "is a directory" + expected;
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISFIFO(st.st_mode) && input_kind_allows_pipe(kind)) return "";
  // /dev/null is the empty file every shell user passes for "none" (--env-file /dev/null).
  if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3) return "";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    return "is a device, not a regular file" + expected;
  if (S_ISFIFO(st.st_mode)) return "is a pipe, not a regular file" + expected;
  return "is not a regular file" + expected;
}

/// Offset of the first control byte no text input holds (C0 other than tab, LF, VT, FF, CR;
/// and DEL), or npos.
size_t first_control_byte(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') || c == 0x7f)
      return i;
  }
  return std::string_view::npos;
}

/// "binary data (byte 0x7f): not a recipe" at the control byte `at` of `text` (`what` with its
/// article), or the wide encoding the text is in (wide_text_error).
Error binary_data_error(std::string_view text, const std::string& file,
                        const std::string& what_with_article, size_t at) {
  if (std::optional<Error> wide = wide_text_error(text, file, what_with_article)) return *wide;
  Error e;
  e.message = "binary data (byte 0x" + hex_byte(static_cast<unsigned char>(text[at])) + "): not " +
              what_with_article;
  e.location = location_at_offset(text, file, at);
  return e;
}

/// Read from `fd` until the end or more than `max_bytes`; the error names `path`. With `what`
/// (a text kind's name), a NUL byte ends the read at once as binary data, located at the first
/// control byte: a 1 GiB file of NULs is refused after its first chunk, not held whole.
Result<std::string> read_bounded(int fd, const std::string& path, uint64_t max_bytes,
                                 const std::string& too_large, uint64_t size_hint,
                                 const std::string& what) {
  std::string text;
  // Reserve what a regular file's size says, up to 64 MiB: a hostile 1 GiB file (NULs) is refused
  // in its first chunk and must not have taken 1 GiB of address space first.
  text.reserve(static_cast<size_t>(std::min({size_hint, max_bytes, 64 * kMiB})));
  char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      return file_error(path, std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    // Pipes and terminals have no size: stop at the limit.
    if (text.size() + static_cast<uint64_t>(n) > max_bytes) return file_error(path, too_large);
    text.append(buffer, static_cast<size_t>(n));
    if (!what.empty() && std::memchr(buffer, 0, static_cast<size_t>(n)) != nullptr) {
      return binary_data_error(text, path, with_article(what), first_control_byte(text));
    }
  }
  return text;
}

/// A regular file this process has read: its identity on disk and the name it was read by.
struct InputIdentity {
  dev_t device;
  ino_t inode;
  std::string path;
};

std::mutex& inputs_mutex() {
  static std::mutex m;
  return m;
}

std::vector<InputIdentity>& inputs_read() {
  static std::vector<InputIdentity> all;
  return all;
}

/// Remember the regular file `fd` reads as an input named `path` (stdin: "<stdin>").
void remember_input(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(inputs_mutex());
  inputs_read().push_back({st.st_dev, st.st_ino, path});
}

/// Open `path` for reading as a file of `kind` after the checks of read_input_file; `st` is its
/// status. The descriptor is closed by the caller's Fd.
Result<int> open_checked(const std::string& path, InputKind kind, struct stat& st) {
  if (path.empty()) {
    return file_error("<empty path>",
                      std::string("no file name given for the ") + input_kind_name(kind));
  }
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) return file_error(path, "no such file");
    if (err == ELOOP) return file_error(path, "cannot read: a loop of symbolic links");
    return file_error(path, std::string("cannot read: ") + std::strerror(err));
  }
  // Checked before open(2): a FIFO is opened only where the kind reads pipes, and a device may
  // do anything on open.
  if (std::string why = refusal_of(st, kind); !why.empty()) return file_error(path, why);
  // A FIFO's open waits for its writer: a bounded time, then an error (special_file.h).
  Result<int> opened = open_without_hanging(path, O_RDONLY | O_CLOEXEC, path);
  if (!opened) return opened;
  const int fd = *opened;
  if (on_proc_or_sys(fd)) {
    ::close(fd);
    return file_error(path, std::string("is a /proc or /sys file, not a regular file, expected ") +
                                with_article(input_kind_name(kind)));
  }
  remember_input(fd, path);
  return fd;
}

/// The CR-only line ends of `text` (old Mac OS) as LF; CRLF is left as it is.
void normalize_line_ends(std::string& text) {
  if (text.find('\r') == std::string::npos) return;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) text[i] = '\n';
  }
}

}  // namespace

bool input_kind_allows_pipe(InputKind kind) {
  return kind == InputKind::kLengths || kind == InputKind::kEnv || kind == InputKind::kLog;
}

bool input_kind_is_text(InputKind kind) {
  return kind != InputKind::kIndex && kind != InputKind::kLog;
}

uint64_t max_input_bytes(InputKind kind) {
  switch (kind) {
    case InputKind::kRecipe:
    case InputKind::kConfig:
    case InputKind::kArgs:
    case InputKind::kEnv:
      return 4 * kMiB;  // Hand-written text; the largest shipped recipe is a few KiB.
    case InputKind::kCalibration:
      return 16 * kMiB;
    case InputKind::kCapture:
      return 64 * kMiB;  // hwloc XML of a large node with every PCI function is a few MiB.
    case InputKind::kLengths:
      return 1 * kGiB;
    case InputKind::kIndex:
      return 16 * kGiB;
    case InputKind::kLog:
      return UINT64_MAX;  // streamed in chunks (logcheck/reader.cpp), never held whole
  }
  return 4 * kMiB;
}

const char* input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::kRecipe:
      return "recipe";
    case InputKind::kConfig:
      return "config file";
    case InputKind::kArgs:
      return "arguments file";
    case InputKind::kEnv:
      return "environment file";
    case InputKind::kCalibration:
      return "calibration file";
    case InputKind::kCapture:
      return "capture file";
    case InputKind::kLengths:
      return "lengths file";
    case InputKind::kIndex:
      return "index file";
    case InputKind::kLog:
      return "training log";
  }
  return "input file";
}

std::string format_byte_limit(uint64_t bytes) {
  if (bytes >= kGiB && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Result<std::string> read_input_file(const std::string& path, InputKind kind) {
  return read_input_file(path, kind, max_input_bytes(kind));
}

Result<std::string> read_input_file(const std::string& path, InputKind kind, uint64_t max_bytes) {
  const std::string what = input_kind_name(kind);
  struct stat st {};
  Result<int> opened = open_checked(path, kind, st);
  if (!opened) return opened.error();
  Fd fd(*opened);
  std::string too_large =
      "larger than the " + format_byte_limit(max_bytes) + " limit for " + with_article(what);
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) {
    return file_error(path, too_large);
  }
  Result<std::string> text =
      read_bounded(fd.get(), path, max_bytes, too_large, static_cast<uint64_t>(st.st_size),
                   input_kind_is_text(kind) ? what : std::string());
  if (!text) return text;
  if (!input_kind_is_text(kind)) return text;
  return normalize_input_text(std::move(*text), path, what);
}

Result<int> open_input_file(const std::string& path, InputKind kind) {
  struct stat st {};
  return open_checked(path, kind, st);
}

Result<InputHead> read_input_head(const std::string& path, InputKind kind, uint64_t bytes) {
  struct stat st {};
  Result<int> opened = open_checked(path, kind, st);
  if (!opened) return opened.error();
  Fd fd(*opened);
  InputHead head;
  head.size = static_cast<uint64_t>(st.st_size);
  head.bytes.resize(static_cast<size_t>(std::min(bytes, head.size)));
  size_t got = 0;
  while (got < head.bytes.size()) {
    ssize_t n = ::read(fd.get(), head.bytes.data() + got, head.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      return file_error(path, std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  head.bytes.resize(got);
  return head;
}

Result<std::string> read_standard_input(InputKind kind) {
  const std::string what = input_kind_name(kind);
  const uint64_t max_bytes = max_input_bytes(kind);
  std::string too_large =
      "larger than the " + format_byte_limit(max_bytes) + " limit for " + with_article(what);
  remember_input(STDIN_FILENO, "<stdin>");
  Result<std::string> text = read_bounded(STDIN_FILENO, "<stdin>", max_bytes, too_large, 0,
                                          input_kind_is_text(kind) ? what : std::string());
  if (!text) return text;
  if (!input_kind_is_text(kind)) return text;
  return normalize_input_text(std::move(*text), "<stdin>", what);
}

std::optional<std::string> read_system_file_line(const std::string& path) {
  // O_NONBLOCK: opening a FIFO planted where a sysfs attribute should be returns at once.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  constexpr size_t kMaxLine = 4096;
  std::string text(kMaxLine, '\0');
  size_t got = 0;
  while (got < kMaxLine) {
    ssize_t n = ::read(fd.get(), text.data() + got, kMaxLine - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    got += static_cast<size_t>(n);
    if (text.find('\n') < got) break;
  }
  text.resize(got);
  return text.substr(0, text.find('\n'));
}

std::optional<std::string> input_read_as(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::lock_guard<std::mutex> lock(inputs_mutex());
  for (const InputIdentity& input : inputs_read()) {
    if (input.device == st.st_dev && input.inode == st.st_ino) return input.path;
  }
  return std::nullopt;
}

Result<std::string> normalize_input_text(std::string text, const std::string& file,
                                         const std::string& what) {
  if (text.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) text.erase(0, kUtf8Bom.size());
  size_t bad = first_invalid_utf8(text);
  if (bad != std::string_view::npos) {
    // Binary files (an ELF, a gzip) are named as such at their first control byte.
    size_t control = first_control_byte(std::string_view(text).substr(0, bad));
    if (control != std::string_view::npos) {
      return binary_data_error(text, file, with_article(what), control);
    }
    if (std::optional<Error> wide = wide_text_error(text, file, with_article(what))) return *wide;
    Error e;
    e.message = "invalid UTF-8 (byte 0x" + hex_byte(static_cast<unsigned char>(text[bad])) +
                "), expected " + with_article(what) + " in UTF-8";
    e.location = location_at_offset(text, file, bad);
    return e;
  }
  normalize_line_ends(text);
  return text;
}

namespace {

/// A wide encoding's name and the length of the byte-order mark `text` starts with (0: none).
struct WideEncoding {
  std::string name;
  size_t mark = 0;
};

WideEncoding detect_wide_encoding(std::string_view text) {
  auto starts = [text](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  using namespace std::string_view_literals;
  if (starts("\x00\x00\xFE\xFF"sv)) return {"UTF-32BE", 4};
  if (starts("\xFF\xFE\x00\x00"sv)) return {"UTF-32LE", 4};
  if (starts("\xFE\xFF"sv)) return {"UTF-16BE", 2};
  if (starts("\xFF\xFE"sv)) return {"UTF-16LE", 2};
  if (text.size() < 4) return {};
  auto zero = [text](size_t i) { return text[i] == '\0'; };
  if (!zero(0) && zero(1) && !zero(2) && zero(3)) return {"UTF-16LE", 0};
  if (zero(0) && !zero(1) && zero(2) && !zero(3)) return {"UTF-16BE", 0};
  return {};
}

}  // namespace

std::string wide_text_encoding(std::string_view text) {
  return detect_wide_encoding(text).name;
}

std::optional<Error> wide_text_error(std::string_view text, const std::string& file,
                                     const std::string& what) {
  const WideEncoding wide = detect_wide_encoding(text);
  if (wide.name.empty()) return std::nullopt;
  std::string mark;
  if (wide.mark > 0) {
    mark = " (byte-order mark";
    for (size_t i = 0; i < wide.mark; ++i)
      mark += " " + hex_byte(static_cast<unsigned char>(text[i]), true);
    mark += ")";
  }
  return Error{wide.name + " text" + mark + ", expected " + what +
                   " in UTF-8: save it as UTF-8 (PowerShell 5's '>' and Out-File write UTF-16; "
                   "give Out-File -Encoding utf8)",
               Location{file, 1, 1}, ""};
}

Status check_no_control_bytes(std::string_view text, const std::string& file,
                              const std::string& what) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    bool control = (byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t') || byte == 0x7f;
    if (control) return binary_data_error(text, file, what, i);
  }
  return Ok{};
}

Location location_at_offset(std::string_view text, const std::string& file, uint64_t offset) {
  Location loc;
  loc.file = file;
  loc.line = 1;
  loc.column = 1;
  uint64_t end = offset < text.size() ? offset : text.size();
  for (uint64_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace hcp
