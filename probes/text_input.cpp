// Reading capture files and rejecting binary junk with a one-line reason.
#include "hcp/file_input.h"
#include "topology_internal.h"

namespace hcp::probe_detail {

Result<std::string> read_text_file(const std::string& path) {
  // The shared reader: directories ("is a directory"), size limit, devices, BOM (file_input.h).
  return read_input_file(path, InputKind::kCapture);
}

Status check_text(const std::string& text, const std::string& source, const std::string& what) {
  if (text.empty()) return Error{source + ": empty file, expected " + what, {}, {}};
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    bool control = c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v';
    if (control || c == 0x7f) {
      return Error{
          source + ": binary data at byte " + std::to_string(i) + ", expected " + what, {}, {}};
    }
  }
  return Ok{};
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace hcp::probe_detail
