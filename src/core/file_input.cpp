#include "hcp/file_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hcp {

namespace {

constexpr uint64_t kMiB = 1024ULL * 1024ULL;
constexpr uint64_t kGiB = 1024ULL * kMiB;

Error at_file(const std::string& path, const std::string& message) {
  Error e;
  e.message = message;
  e.location.file = path;
  return e;
}

/// Closes a file descriptor on every return path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

/// "a recipe", "an environment file".
std::string with_article(const std::string& noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + noun;
}

}  // namespace

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
  if (path.empty()) return at_file("<empty path>", "no file name given for the " + what);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) return at_file(path, "no such file");
    return at_file(path, std::string("cannot read: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) return at_file(path, "is a directory, expected " + with_article(what));
  std::string too_large =
      "larger than the " + format_byte_limit(max_bytes) + " limit for " + with_article(what);
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) {
    return at_file(path, too_large);
  }
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    int err = errno;
    return at_file(path, std::string("cannot read: ") + std::strerror(err));
  }
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<size_t>(st.st_size));
  char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      if (err == EISDIR) return at_file(path, "is a directory, expected " + with_article(what));
      return at_file(path, std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    // Devices and pipes (/dev/zero, /dev/urandom) have no size: stop at the limit.
    if (text.size() + static_cast<uint64_t>(n) > max_bytes) return at_file(path, too_large);
    text.append(buffer, static_cast<size_t>(n));
  }
  if (text.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) text.erase(0, kUtf8Bom.size());
  return text;
}

Status check_no_control_bytes(std::string_view text, const std::string& file,
                              const std::string& what) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    bool control = (byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t') || byte == 0x7f;
    if (!control) continue;
    const char* hex = "0123456789abcdef";
    Error e;
    e.message =
        std::string("binary data (byte 0x") + hex[byte >> 4] + hex[byte & 15] + "): not " + what;
    e.location = location_at_offset(text, file, i);
    return e;
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
