#include "hcp/yaml_input.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cctype>
#include <exception>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "hcp/text_util.h"

namespace hcp {

namespace {

/// Nodes visited by check_core_nodes before it gives up (loaders bound their own trees further).
constexpr size_t kMaxCheckedNodes = 10'000'000;

/// Bytes between CodePointColumns' counts.
constexpr size_t kCodePointStride = 256;

bool utf8_continuation(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0U) == 0x80U;
}

/// True for the tags a YAML parser of the core schema resolves ("?" plain, "!" quoted).
bool core_tag(const std::string& tag) {
  static const char* const kCore[] = {"",
                                      "?",
                                      "!",
                                      "tag:yaml.org,2002:str",
                                      "tag:yaml.org,2002:int",
                                      "tag:yaml.org,2002:float",
                                      "tag:yaml.org,2002:bool",
                                      "tag:yaml.org,2002:null",
                                      "tag:yaml.org,2002:map",
                                      "tag:yaml.org,2002:seq"};
  for (const char* core : kCore)
    if (tag == core) return true;
  return false;
}

/// "!!python/object" for "tag:yaml.org,2002:python/object", as it was written.
std::string written_tag(const std::string& tag) {
  const std::string prefix = "tag:yaml.org,2002:";
  std::string shown =
      tag.compare(0, prefix.size(), prefix) == 0 ? "!!" + tag.substr(prefix.size()) : tag;
  return neutralize_controls(utf8_prefix(shown, 60));
}

/// Records where each document of a YAML stream starts; every other event is ignored.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  std::vector<YAML::Mark> starts;
};

/// Whether a ',' in TEXT could be a token where a document's root starts. Such a comma follows a
/// space, a line start, a byte-order mark, the end of a flow collection or a quoted scalar, or an
/// anchor or tag ("&a,", "!t,"). A comma right after a letter, digit or "_.+-)" of a word that is
/// not an anchor, tag or alias is inside a plain scalar, a comment or a flow collection (no token
/// but those ends with a ')': "(MoE, top-8), 64K" in a recipe's comment). Nearly every real file
/// has only such commas: this linear scan spares them check_documents_advance's second pass of
/// yaml-cpp's scanner (as long as the parse itself). The word before each comma starts after the
/// last blank, which one forward pass tracks: scanning back from every comma was quadratic on a
/// long one-line flow list ("[a,b,c,...]" of 20,000 items took 20 s).
bool may_hold_root_comma(std::string_view text) {
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '+' ||
           c == '-' || c == ')';
  };
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t word_start = 0;  // first position after the last blank before `scanned`
  size_t scanned = 0;
  for (size_t at = text.find(','); at != std::string_view::npos; at = text.find(',', at + 1)) {
    if (at == 0 || !word_char(text[at - 1])) return true;
    for (; scanned < at; ++scanned) {
      if (blank(text[scanned])) word_start = scanned + 1;
    }
    const char first = text[word_start];
    if (first == '&' || first == '!' || first == '*') return true;
  }
  return false;
}

/// yaml-cpp 0.7 never consumes a ',' that stands outside a flow collection: each document it
/// reads there is an empty one at the same place, and YAML::LoadAll collects them until memory
/// runs out. Events alone (no nodes) show it: two documents that start at the same mark.
Status check_documents_advance(const std::string& text, const std::string& file,
                               const CodePointColumns& columns) {
  if (!may_hold_root_comma(text)) return Ok{};
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStarts documents;
  while (parser.HandleNextDocument(documents)) {
    const size_t n = documents.starts.size();
    if (n >= 2 && documents.starts[n - 1].pos == documents.starts[n - 2].pos) {
      return Error{"malformed YAML: a ',' outside a flow collection ([...] or {...})",
                   yaml_location(file, documents.starts[n - 1], columns), ""};
    }
  }
  return Ok{};
}

/// The 0-based line, the error's own or the one above it, whose indentation holds a tab; -1 when
/// neither does. YAML indents with spaces only, and yaml-cpp reports a tab there as "illegal map
/// value" or "end of map not found", which does not say what to change.
int tab_indented_line(std::string_view text, int error_line) {
  int line = 0;
  size_t start = 0;
  while (start <= text.size() && line <= error_line) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view body = text.substr(start, end - start);
    size_t indent = body.find_first_not_of(" \t");
    std::string_view lead = body.substr(0, indent == std::string_view::npos ? body.size() : indent);
    if (line >= error_line - 1 && lead.find('\t') != std::string_view::npos &&
        indent != std::string_view::npos) {
      return line;
    }
    start = end + 1;
    ++line;
  }
  return -1;
}

/// yaml-cpp's message for `e`, with the tab it most likely means named.
Error malformed_yaml(std::string_view text, const std::string& file,
                     const CodePointColumns& columns, const YAML::Exception& e) {
  const int tab = tab_indented_line(text, e.mark.line);
  if (tab >= 0) {
    return Error{"malformed YAML: line " + std::to_string(tab + 1) +
                     " is indented with a tab; YAML indents with spaces only (yaml-cpp: " +
                     (e.msg.empty() ? std::string("malformed") : e.msg) + ")",
                 Location{file, tab + 1, 1}, ""};
  }
  return Error{e.msg.empty() ? std::string("malformed YAML") : "malformed YAML: " + e.msg,
               yaml_location(file, e.mark, columns), ""};
}

Result<std::vector<YAML::Node>> load_all(std::string_view text, const std::string& file,
                                         const CodePointColumns& columns) {
  try {
    std::string whole(text);
    if (Status advances = check_documents_advance(whole, file, columns); !advances) {
      return advances.error();
    }
    return YAML::LoadAll(whole);
  } catch (const YAML::DeepRecursion& e) {
    return Error{
        "YAML nesting too deep (yaml-cpp stops at " + std::to_string(e.depth()) + " levels)",
        yaml_location(file, e.mark, columns), ""};
  } catch (const YAML::Exception& e) {
    return malformed_yaml(text, file, columns, e);
  } catch (const std::exception& e) {
    return Error{std::string("cannot parse YAML: ") + e.what(), Location{file, 0, 0}, ""};
  }
}

}  // namespace

CodePointColumns::CodePointColumns(std::string_view text) : text_(text) {
  checkpoints_.reserve(text.size() / kCodePointStride + 1);
  uint32_t count = 0;
  for (size_t at = 0; at <= text.size(); ++at) {
    if (at % kCodePointStride == 0) checkpoints_.push_back(count);
    if (at < text.size() && !utf8_continuation(text[at])) ++count;
  }
}

size_t CodePointColumns::code_points_before(size_t pos) const {
  size_t count = checkpoints_[pos / kCodePointStride];
  for (size_t at = pos / kCodePointStride * kCodePointStride; at < pos; ++at) {
    if (!utf8_continuation(text_[at])) ++count;
  }
  return count;
}

int CodePointColumns::column(size_t pos, size_t byte_column) const {
  if (pos > text_.size() || byte_column > pos) return static_cast<int>(byte_column) + 1;
  const size_t line_start = pos - byte_column;
  return static_cast<int>(code_points_before(pos) - code_points_before(line_start)) + 1;
}

Location yaml_location(const std::string& file, const YAML::Mark& mark,
                       const CodePointColumns& columns) {
  if (mark.is_null()) return Location{file, 0, 0};
  Location at{file, mark.line + 1, mark.column + 1};
  if (mark.pos >= 0 && mark.column >= 0) {
    at.code_point_column =
        columns.column(static_cast<size_t>(mark.pos), static_cast<size_t>(mark.column));
  }
  return at;
}

Status check_core_nodes(const YAML::Node& root, const std::string& file,
                        const CodePointColumns& columns) {
  std::vector<YAML::Node> pending{root};
  std::unordered_set<int> seen;  // collections by their position: an alias is the same node
  size_t visited = 0;
  while (!pending.empty() && ++visited < kMaxCheckedNodes) {
    YAML::Node node = pending.back();
    pending.pop_back();
    if (!node.IsDefined()) continue;
    if (!core_tag(node.Tag())) {
      return Error{"YAML tag '" + written_tag(node.Tag()) +
                       "' is not read (only the core schema: !!str, !!int, !!float, !!bool, "
                       "!!null, !!map, !!seq)",
                   yaml_location(file, node.Mark(), columns), ""};
    }
    if (node.IsScalar() && first_invalid_utf8(node.Scalar()) != std::string::npos) {
      return Error{
          "a quoted scalar unescapes to text that is not UTF-8 (yaml-cpp decodes \\_ and "
          "\\N to single bytes); write the character itself",
          yaml_location(file, node.Mark(), columns), ""};
    }
    if (!node.IsMap() && !node.IsSequence()) continue;
    if (!node.Mark().is_null() && !seen.insert(node.Mark().pos).second) continue;
    for (const auto& item : node) {
      if (node.IsMap()) {
        pending.push_back(item.first);
        pending.push_back(item.second);
      } else {
        pending.push_back(item);
      }
    }
  }
  return Ok{};
}

Result<YAML::Node> parse_single_yaml(std::string_view text, const std::string& file,
                                     const std::string& what) {
  const CodePointColumns columns(text);
  Result<std::vector<YAML::Node>> documents = load_all(text, file, columns);
  if (!documents) return documents.error();
  if (documents->empty()) return YAML::Node();
  for (size_t i = 1; i < documents->size(); ++i) {
    const YAML::Node& extra = (*documents)[i];
    if (extra.IsNull() || !extra.IsDefined()) continue;
    return Error{"a YAML stream of " + std::to_string(documents->size()) +
                     " documents (a '---' line, or a node where the first document ended); " +
                     what + " is one document, and only the first would be read",
                 yaml_location(file, extra.Mark(), columns), ""};
  }
  const YAML::Node& root = documents->front();
  if (Status nodes = check_core_nodes(root, file, columns); !nodes) return nodes.error();
  return root;
}

}  // namespace hcp
