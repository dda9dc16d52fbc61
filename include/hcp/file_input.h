// One reader for every input file hcp-plan loads: a maximum size per file kind, directories and
// unreadable files refused with the file named, devices and pipes read up to the limit only, a
// UTF-8 byte order mark stripped. Loaders call read_input_file instead of opening files themselves.
#pragma once

#include <cstdint>
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
};

/// Largest file of `kind` read, in bytes.
uint64_t max_input_bytes(InputKind kind);
/// "recipe", "config file", "calibration file", ... for messages.
const char* input_kind_name(InputKind kind);

/// Read a whole file of `kind`. Errors (located at the file, one line): no such file, "is a
/// directory", cannot read (with the reason), larger than the kind's limit (devices and pipes are
/// read up to the limit only, so /dev/zero ends fast). A leading UTF-8 BOM is stripped.
Result<std::string> read_input_file(const std::string& path, InputKind kind);
/// The same with an explicit limit in bytes (tests, and loaders with their own bound).
Result<std::string> read_input_file(const std::string& path, InputKind kind, uint64_t max_bytes);

/// The UTF-8 byte order mark EF BB BF.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
/// `text` without a leading UTF-8 BOM.
inline std::string_view strip_utf8_bom(std::string_view text) {
  return text.substr(0, kUtf8Bom.size()) == kUtf8Bom ? text.substr(kUtf8Bom.size()) : text;
}

/// 1-based line and column of byte `offset` in `text` (a column counts bytes).
Location location_at_offset(std::string_view text, const std::string& file, uint64_t offset);

/// An error located at the first control byte of `text` (C0 other than tab, LF, CR; and DEL), the
/// bytes no YAML, JSON or text input of hcp-plan holds: "binary data (byte 0x00): not WHAT".
/// `what` carries its article ("a YAML recipe").
Status check_no_control_bytes(std::string_view text, const std::string& file,
                              const std::string& what);

/// "4 MiB", "64 MiB", "1 GiB", or a byte count, for messages.
std::string format_byte_limit(uint64_t bytes);

}  // namespace hcp
