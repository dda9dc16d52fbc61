// Reading capture files and rejecting binary junk with a one-line reason.
#include <fstream>
#include <sstream>

#include "topology_internal.h"

namespace hcp::probe_detail {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot read " + path, {}, {}};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{"cannot read " + path, {}, {}};
  return ss.str();
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
