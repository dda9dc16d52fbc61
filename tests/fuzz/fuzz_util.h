// Helpers shared by the libFuzzer harnesses (tests/fuzz/*_fuzz.cpp).
// Each harness defines LLVMFuzzerTestOneInput; a finding is a sanitizer report, a crash, a hang
// (libFuzzer's -timeout) or a broken property checked with HCP_FUZZ_CHECK (abort with a message).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

/// Abort (a finding) when a property the harness asserts does not hold.
#define HCP_FUZZ_CHECK(cond, what)                                                               \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "fuzz property failed: %s (%s)\n", #cond, std::string(what).c_str()); \
      std::abort();                                                                              \
    }                                                                                            \
  } while (0)

namespace hcp::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A file of this process's own (the loaders that only take a path read it). One per harness
/// process, rewritten for every input; removed at exit. It lives in $TMPDIR when that is set,
/// else in /dev/shm (memory) when there is one, else in /tmp: rewriting a file on a disk mounted
/// with `discard` waits for the device at every truncation, which made the path-taking harnesses
/// spend most of their time in I/O.
class ScratchFile {
 public:
  explicit ScratchFile(const char* suffix) {
    const char* env = std::getenv("TMPDIR");
    std::string dir = env && *env ? env : "";
    if (dir.empty()) dir = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
    path_ = dir + "/hcp-fuzz-" + std::to_string(getpid()) + suffix;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Write `bytes` and return the path.
  const std::string& write(std::string_view bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Split `text` at the first line that is exactly "%%": what is before it, and the lines after.
struct Parts {
  std::string_view head;
  std::vector<std::string> lines;
};
inline Parts split_parts(std::string_view text) {
  Parts parts{text, {}};
  size_t at = 0;
  if (text.substr(0, 3) == "%%\n") {
    at = 0;
  } else {
    at = text.find("\n%%\n");
    if (at == std::string_view::npos) return parts;
    ++at;
  }
  parts.head = text.substr(0, at);
  std::string_view rest = text.substr(at + 3);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    parts.lines.emplace_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return parts;
}

}  // namespace hcp::fuzz
