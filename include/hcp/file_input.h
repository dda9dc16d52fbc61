// One reader for every input file hcp-plan loads: regular files only (a kind may also allow a
// pipe), a maximum size per file kind, directories, devices, /proc and /sys files, symlink loops
// and unreadable files refused with the file named in one line, UTF-8 checked, a UTF-8 byte order
// mark stripped, CR-only line ends read as lines. Loaders call read_input_file (or read_input_head
// for a binary header checked before the body) instead of opening files themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hcp/diagnostic.h"

namespace hcp {

/// What a file holds; each kind has its own size limit and name in messages.
enum class InputKind {
  kRecipe,       ///< Recipe YAML (both shapes), Megatron-LM YAML, functional-test YAML.
  kConfig,       ///< HF config.json, cluster profile YAML.
  kArgs,         ///< @args files, --mlm-args files.
  kEnv,          ///< Launcher environment files.
  kCalibration,  ///< Calibration JSON from `hcp-plan bench`.
  kCapture,      ///< Probe captures: hwloc XML, NCCL topology XML, nvidia-smi text, JSON.
  kLengths,      ///< Sequence-length lists (text or JSON).
  kIndex,        ///< Megatron .idx files (binary).
  kLog,          ///< Training logs (text or gzip), streamed by logcheck in chunks: no size limit.
};

/// Largest file of `kind` read, in bytes.
uint64_t max_input_bytes(InputKind kind);
/// True for the kinds that may also be read from a pipe (a FIFO or `<(...)`): lengths and
/// environment files and logs. Every other kind reads regular files only. A FIFO waits up to
/// fifo_peer_wait() (special_file.h) for its writer, then is an error.
bool input_kind_allows_pipe(InputKind kind);
/// True for the text kinds (every kind but kIndex and kLog): checked as UTF-8, line ends
/// normalised.
bool input_kind_is_text(InputKind kind);
/// "recipe", "config file", "calibration file", ... for messages.
const char* input_kind_name(InputKind kind);

/// Read a whole file of `kind`. Errors (located at the file, one line): no such file, "is a
/// directory", "is a device", "is a pipe" (unless the kind allows one), a /proc or /sys file,
/// cannot read (with the reason: a symlink loop, no permission, a FIFO with no writer), larger
/// than the kind's limit (a pipe is read up to the limit only). Text kinds: invalid UTF-8 is an
/// error located at its line and column, a leading UTF-8 BOM is stripped, and a file whose lines
/// end in CR only has them read as LF.
Result<std::string> read_input_file(const std::string& path, InputKind kind);
/// The same with an explicit limit in bytes (tests, and loaders with their own bound).
Result<std::string> read_input_file(const std::string& path, InputKind kind, uint64_t max_bytes);

/// `path` opened for reading after the checks of read_input_file (a regular file, or a pipe where
/// the kind allows one; no directory, device, /proc file or symlink loop): the descriptor, which
/// the caller closes, for a loader that streams the file itself.
Result<int> open_input_file(const std::string& path, InputKind kind);

/// The first bytes of a binary file and its size, read after the same checks as read_input_file:
/// a loader checks a header before it reads the body the header describes.
struct InputHead {
  std::string bytes;  ///< At most the bytes asked for (fewer when the file is shorter).
  uint64_t size = 0;  ///< The file's size in bytes.
};
Result<InputHead> read_input_head(const std::string& path, InputKind kind, uint64_t bytes);

/// Standard input as a file of `kind` ("<stdin>" in messages): a pipe, a file or a terminal,
/// read up to the kind's limit, with the text checks of read_input_file.
Result<std::string> read_standard_input(InputKind kind);

/// The first line (without its end) of a small system file: a sysfs attribute, /proc/driver/...
/// Regular files only (a FIFO planted under --sysfs-root would block, a link to /dev/zero never
/// end), at most 4 KiB read. nullopt when it cannot be read or is no regular file.
std::optional<std::string> read_system_file_line(const std::string& path);

/// The name this process read the regular file `path` by as an input (any of the functions above,
/// standard input as "<stdin>"), if it did: the same file under another name or link counts.
/// nullopt when it read no such file, and for what is no regular file.
std::optional<std::string> input_read_as(const std::string& path);

/// The text checks and normalisation read_input_file applies to a text kind: invalid UTF-8 is
/// an error at its line and column naming `what` (an input kind's name), a leading BOM is
/// stripped, CR-only line ends become LF.
Result<std::string> normalize_input_text(std::string text, const std::string& file,
                                         const std::string& what);

/// The UTF-8 byte order mark EF BB BF.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
/// `text` without a leading UTF-8 BOM.
inline std::string_view strip_utf8_bom(std::string_view text) {
  return text.substr(0, kUtf8Bom.size()) == kUtf8Bom ? text.substr(kUtf8Bom.size()) : text;
}

/// 1-based line and column of byte `offset` in `text` (a column counts bytes).
Location location_at_offset(std::string_view text, const std::string& file, uint64_t offset);

/// The wide Unicode encoding `text` starts in ("UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"),
/// told by its byte-order mark or, without one, by the zero bytes of ASCII text in it; "" when it
/// starts in none. PowerShell 5 writes UTF-16LE with '>' and Out-File, and Notepad offers it.
std::string wide_text_encoding(std::string_view text);

/// "UTF-16LE text (byte-order mark FF FE), expected WHAT in UTF-8; ..." located at 1:1 when `text`
/// starts in a wide encoding (wide_text_encoding), else nothing. `what` carries its article.
std::optional<Error> wide_text_error(std::string_view text, const std::string& file,
                                     const std::string& what);

/// An error located at the first control byte of `text` (C0 other than tab, LF, CR; and DEL), the
/// bytes no YAML, JSON or text input of hcp-plan holds: "binary data (byte 0x00): not WHAT".
/// `what` carries its article ("a YAML recipe").
Status check_no_control_bytes(std::string_view text, const std::string& file,
                              const std::string& what);

/// "4 MiB", "64 MiB", "1 GiB", or a byte count, for messages.
std::string format_byte_limit(uint64_t bytes);

}  // namespace hcp
