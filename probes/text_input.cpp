// Reading capture files and rejecting binary junk with a one-line reason.
#include <string_view>

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

namespace {

/// 1-based line of byte `offset` in `text`.
int line_at(const std::string& text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i)
    line += text[i] == '\n';
  return line;
}

/// True when `name` (between & and ;) is one of XML's five predefined entities or a character
/// reference (&#38; &#x26;).
bool predefined_reference(std::string_view name) {
  if (name.starts_with('#')) return true;
  return name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos";
}

}  // namespace

namespace {

/// The DOCTYPE every hwloc export writes (hwloc 1.x and 2.x): an external DTD by name, which
/// neither hwloc nor libxml2 loads, and no internal subset.
constexpr std::string_view kHwlocDoctypes[] = {"<!DOCTYPE topology SYSTEM \"hwloc.dtd\">",
                                               "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">"};

/// The position of the hwloc DOCTYPE at `at`, if the declaration there is one of them.
bool hwloc_doctype_at(const std::string& text, size_t at) {
  for (std::string_view doctype : kHwlocDoctypes)
    if (text.compare(at, doctype.size(), doctype) == 0) return true;
  return false;
}

}  // namespace

Status check_xml_markup(const std::string& text, const std::string& source,
                        const std::string& what) {
  for (size_t at = text.find("<!DOCTYPE"); at != std::string::npos;
       at = text.find("<!DOCTYPE", at + 1)) {
    if (hwloc_doctype_at(text, at)) continue;
    return Error{source + ":" + std::to_string(line_at(text, at)) +
                     ": DOCTYPE declarations are not read in " + what +
                     " (only hwloc's own <!DOCTYPE topology SYSTEM \"hwloc2.dtd\">; entities "
                     "crash hwloc's XML import)",
                 {},
                 {}};
  }
  if (size_t at = text.find("<!ENTITY"); at != std::string::npos) {
    return Error{source + ":" + std::to_string(line_at(text, at)) +
                     ": ENTITY declarations are not read in " + what +
                     " (no export writes one; entities crash hwloc's XML import)",
                 {},
                 {}};
  }
  for (size_t at = text.find('&'); at != std::string::npos; at = text.find('&', at + 1)) {
    size_t end = text.find_first_of(";<>&\"' \t\n", at + 1);
    bool terminated = end != std::string::npos && text[end] == ';';
    std::string_view name(text.data() + at + 1,
                          (end == std::string::npos ? text.size() : end) - at - 1);
    if (terminated && predefined_reference(name)) continue;
    return Error{source + ":" + std::to_string(line_at(text, at)) + ": entity reference '&" +
                     std::string(name.substr(0, 40)) + (terminated ? ";" : "") + "' in " + what +
                     " (only &amp; &lt; &gt; &quot; &apos; and character references are read)",
                 {},
                 {}};
  }
  return Ok{};
}

void blank_hwloc_doctype(std::string& text) {
  size_t at = text.find("<!DOCTYPE");
  if (at == std::string::npos || !hwloc_doctype_at(text, at)) return;
  size_t end = text.find('>', at);
  text.replace(at, end + 1 - at, end + 1 - at, ' ');
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace hcp::probe_detail
