// Reading log files: plain text (read(2)) or gzip (zlib, detected by its magic bytes),
// in 1 MiB chunks, so memory stays bounded however large the log is.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hcp/file_input.h"
#include "hcp/logcheck.h"

namespace hcp {
namespace {

constexpr size_t kChunk = 1 << 20;

/// Control bytes that never occur in text logs (NUL and the C0 codes other than tab, newline,
/// carriage return, form feed, backspace and ESC for ANSI colours).
bool is_binary_byte(unsigned char c) {
  return c == 0 ||
         (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\b' && c != 0x1b);
}

/// The bytes of one file: plain files through read(2) into our buffer, gzip (by its magic
/// bytes) through zlib.
class ChunkSource {
 public:
  ~ChunkSource() {
    if (gz_ != nullptr) gzclose(gz_);
    if (fd_ >= 0) ::close(fd_);
  }
  /// Open `path` (file_input.h: a regular file or a pipe); the error on failure.
  std::optional<Error> open(const std::string& path) {
    Result<int> opened = open_input_file(path, InputKind::kLog);
    if (!opened) return opened.error();
    fd_ = *opened;
    unsigned char magic[2] = {0, 0};
    ssize_t got = ::pread(fd_, magic, 2, 0);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      gz_ = gzdopen(fd_, "rb");
      if (gz_ == nullptr) return Error{"cannot read the gzip stream", Location{path, 0, 0}, ""};
      fd_ = -1;  // owned by zlib now
      gzbuffer(gz_, kChunk);
    } else {
      posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    return std::nullopt;
  }
  /// Read up to `cap` bytes; 0 at the end; -1 with `error` set on a read error.
  int64_t read(char* buf, size_t cap, std::string& error) {
    if (gz_ != nullptr) {
      int n = gzread(gz_, buf, static_cast<unsigned>(cap));
      if (n < 0) {
        int code = 0;
        const char* msg = gzerror(gz_, &code);
        error = msg != nullptr ? msg : "read error";
      }
      return n;
    }
    for (;;) {
      ssize_t n = ::read(fd_, buf, cap);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error = std::strerror(errno);
      return n;
    }
  }
  /// After the last read: an error text when a gzip stream ended early.
  std::optional<std::string> end_error() {
    if (gz_ == nullptr) return std::nullopt;
    int code = Z_OK;
    const char* msg = gzerror(gz_, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      return std::string(msg != nullptr ? msg : "zlib error");
    return std::nullopt;
  }

 private:
  int fd_ = -1;
  gzFile gz_ = nullptr;
};

/// Read one file into the parser. Error on unreadable, binary or truncated input.
Status read_one(const std::string& path, LogParser& parser) {
  ChunkSource source;
  if (auto e = source.open(path)) return *e;
  parser.begin_file(path);
  std::vector<char> buf(kChunk);
  std::string carry;  // The unfinished last line of the previous chunk (at most kMaxLineBytes).
  bool carry_cut = false;
  int64_t line_no = 0;
  int64_t total = 0;
  bool checked_start = false;
  for (;;) {
    std::string read_error;
    int64_t n = source.read(buf.data(), buf.size(), read_error);
    if (n < 0) {
      return Error{std::string("the log is truncated or corrupt (") + read_error + ")",
                   Location{path, static_cast<int>(line_no + 1), 0}, ""};
    }
    if (n == 0) break;
    total += n;
    const char* data = buf.data();
    size_t size = static_cast<size_t>(n);
    // Binary check: NUL anywhere; other control bytes in the first chunk.
    if (std::memchr(data, 0, size) != nullptr || !checked_start) {
      size_t limit = checked_start ? size : std::min<size_t>(size, 65536);
      size_t bad = 0;
      for (size_t i = 0; i < limit; ++i) {
        if (is_binary_byte(static_cast<unsigned char>(data[i]))) ++bad;
      }
      if (std::memchr(data, 0, size) != nullptr || bad * 100 > limit) {
        if (!checked_start) {
          auto wide = wide_text_error(std::string_view(data, size), path, "a text log");
          if (wide) return *wide;
        }
        return Error{"binary data, not a text log",
                     Location{path, static_cast<int>(line_no + 1), 0}, ""};
      }
      checked_start = true;
    }
    size_t start = 0;
    for (;;) {
      const void* nl = std::memchr(data + start, '\n', size - start);
      if (nl == nullptr) break;
      size_t end = static_cast<size_t>(static_cast<const char*>(nl) - data);
      std::string_view piece(data + start, end - start);
      ++line_no;
      if (!carry.empty() || carry_cut) {
        if (!carry_cut) carry.append(piece.substr(0, kMaxLineBytes - carry.size()));
        std::string_view line(carry);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        parser.feed(line, line_no);
        carry.clear();
        carry_cut = false;
      } else {
        if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
        parser.feed(piece, line_no);
      }
      start = end + 1;
    }
    if (start < size && !carry_cut) {
      std::string_view rest(data + start, size - start);
      size_t room = kMaxLineBytes - carry.size();
      carry.append(rest.substr(0, room));
      if (rest.size() > room) carry_cut = true;
    }
  }
  // gzread reports a gzip stream cut short only through gzerror after the last read.
  if (auto e = source.end_error()) {
    return Error{"the log is truncated or corrupt (" + *e + ")",
                 Location{path, static_cast<int>(line_no + 1), 0}, ""};
  }
  if (!carry.empty()) {
    std::string_view line(carry);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    parser.feed(line, ++line_no);
  }
  if (total == 0) return Error{"the log is empty", Location{path, 0, 0}, ""};
  return Ok{};
}

}  // namespace

Result<ParsedLog> parse_logs(const std::vector<std::string>& paths) {
  if (paths.empty()) return Error{"no log given", Location{}, ""};
  LogParser parser;
  for (const std::string& path : paths) {
    if (Status s = read_one(path, parser); !s) return s.error();
  }
  auto log = parser.finish();
  if (!log) return log;
  bool anything = log->config || log->pg_logging || !log->groups.empty() ||
                  log->iterations_seen > 0 || !log->failures.empty() || !log->memory.empty() ||
                  log->nccl_communicators > 0;
  if (!anything) {
    return Error{
        "no Megatron-LM or Megatron-Bridge training output found (no arguments block, "
        "configuration, process groups, iteration lines or errors)",
        Location{paths.front(), 0, 0}, ""};
  }
  return log;
}

}  // namespace hcp
