// Reading log files: plain text or gzip (zlib reads both, detecting gzip by its magic bytes),
// in 1 MiB chunks, so memory stays bounded however large the log is.
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hcp/logcheck.h"

namespace hcp {
namespace {

struct GzCloser {
  void operator()(gzFile f) const {
    if (f != nullptr) gzclose(f);
  }
};
using GzHandle = std::unique_ptr<gzFile_s, GzCloser>;

constexpr size_t kChunk = 1 << 20;

/// Control bytes that never occur in text logs (NUL and the C0 codes other than tab, newline,
/// carriage return, form feed, backspace and ESC for ANSI colours).
bool is_binary_byte(unsigned char c) {
  return c == 0 ||
         (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\b' && c != 0x1b);
}

/// Read one file into the parser. Error on unreadable, binary or truncated input.
Status read_one(const std::string& path, LogParser& parser) {
  GzHandle f(gzopen(path.c_str(), "rb"));
  if (!f) {
    return Error{std::string("cannot open the log: ") + std::strerror(errno), Location{path, 0, 0},
                 ""};
  }
  gzbuffer(f.get(), kChunk);
  parser.begin_file(path);
  std::vector<char> buf(kChunk);
  std::string carry;  // The unfinished last line of the previous chunk (at most kMaxLineBytes).
  bool carry_cut = false;
  int64_t line_no = 0;
  int64_t total = 0;
  bool checked_start = false;
  for (;;) {
    int n = gzread(f.get(), buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      int code = 0;
      const char* msg = gzerror(f.get(), &code);
      return Error{
          std::string("the log is truncated or corrupt (") + (msg ? msg : "read error") + ")",
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
  int code = Z_OK;
  const char* msg = gzerror(f.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    return Error{
        std::string("the log is truncated or corrupt (") + (msg ? msg : "zlib error") + ")",
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
