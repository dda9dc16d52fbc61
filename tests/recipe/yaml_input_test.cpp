// The one YAML parse (issue 28): one document per file, core-schema tags only.
#include "hcp/yaml_input.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hcp {
namespace {

struct YamlCase {
  const char* name;
  std::string text;
  bool ok;
  std::string error;  ///< the start of Error::str() when !ok
};

TEST(YamlInput, DocumentsAndTagsByClass) {
  const std::vector<YamlCase> cases = {
      {"one document", "a: 1\n", true, ""},
      {"leading ---", "---\na: 1\n", true, ""},
      {"trailing --- with nothing after it", "a: 1\n---\n", true, ""},
      {"empty", "", true, ""},
      {"core tags", "a: !!str 1\nb: !!int 2\nc: !!map {x: 1}\nd: !!seq [1]\n", true, ""},
      {"second document", "a: 1\n---\nb: 2\n", false,
       "f.yaml:3:1: a YAML stream of 2 documents (a '---' line, or a node where the first "
       "document ended); a recipe is one"},
      {"python object tag", "a: !!python/object:os.system {}\n", false,
       "f.yaml:1:4: YAML tag '!!python/object:os.system' is not read"},
      {"local tag on a key", "!custom a: 1\n", false, "f.yaml:1:1: YAML tag '!custom' is not read"},
      {"tag deep in a list", "a:\n  - [1, !!binary aGk=]\n", false,
       "f.yaml:2:9: YAML tag '!!binary' is not read"},
      {"malformed", "a: [1\n", false, "f.yaml:"},
      // yaml-cpp alone would read empty documents at a stray ',' until memory runs out.
      {"a ',' alone", ",\n", false, "f.yaml:1:1: malformed YAML: a ',' outside a flow collection"},
      {"a ',' after a block list", "- a\n,\n", false,
       "f.yaml:2:1: malformed YAML: a ',' outside a flow collection"},
      {"a ',' after a flow map", "{a: 1},\n", false,
       "f.yaml:1:7: malformed YAML: a ',' outside a flow collection"},
      {"a ',' in the second document", "a: 1\n---\n,\n", false,
       "f.yaml:3:1: malformed YAML: a ',' outside a flow collection"},
      // The word before a ',' is tracked forward from the last blank, not scanned back.
      {"a ',' after an anchor behind a flow list", "[aa,bb] &a,\n", false,
       "f.yaml:1:11: malformed YAML: a ',' outside a flow collection"},
      {"a ',' after an anchor in a later document", "x: [aa,bb]\n---\n&a,\n", false,
       "f.yaml:3:3: malformed YAML: a ',' outside a flow collection"},
      {"a long one-line flow list",
       "a: [" + std::string(3000, 'x') + "," + std::string(3000, 'y') + ",z]\n", true, ""},
      // Stray tokens at document level and at the end (issue 28's token classes): each is an
      // error at its line, or (a directive, a non-specific tag) what YAML says it is.
      {"a ']' alone", "]\na: 1\n", false, "f.yaml:1:1: malformed YAML: illegal flow end"},
      {"a '}' at the end", "a: 1\n}", false, "f.yaml:2:1: malformed YAML: illegal flow end"},
      {"a '-' before a map", "-\na: 1\n", false, "f.yaml:2:1: a YAML stream of 2 documents"},
      {"a '|' before a map", "|\na: 1\n", false, "f.yaml:2:1: a YAML stream of 2 documents"},
      {"a '>' before a map", ">\na: 1\n", false, "f.yaml:2:1: a YAML stream of 2 documents"},
      {"a '-' after a map", "a: 1\n-", false, "f.yaml:2:1: malformed YAML: end of map not found"},
      {"a '?' after a map", "a: 1\n?", false, "f.yaml:2:1: malformed YAML: unknown token"},
      {"a '&' alone", "&\na: 1\n", false, "f.yaml:1:2: malformed YAML: anchor not found after &"},
      {"a '*' at the end", "a: 1\n*", false, "f.yaml:2:2: malformed YAML: alias not found after *"},
      {"a '[' alone", "[\na: 1\n", false, "f.yaml:3:1: malformed YAML: end of sequence flow"},
      {"a '%' directive line between nodes", "a: 1\n%\nb: 2\n", false,
       "f.yaml:3:1: a YAML stream of 2 documents"},
      {"a '%' directive before a document", "%YAML 1.2\na: 1\n", true, ""},
      // yaml-cpp decodes \_ (U+00A0) and \N (U+0085) to one byte each: not UTF-8, which a
      // written profile then carried to a loader that refused it (found by fuzzing).
      {"a \\_ escape", "a: \"x\\_y\"\n", false,
       "f.yaml:1:4: a quoted scalar unescapes to text that is not UTF-8"},
      {"a \\N escape in a key", "\"k\\N\": 1\n", false,
       "f.yaml:1:1: a quoted scalar unescapes to text that is not UTF-8"},
      {"a \\N escape deep in a list", "a:\n  - [1, \"\\N\"]\n", false,
       "f.yaml:2:9: a quoted scalar"},
      {"escapes yaml-cpp encodes as UTF-8", "a: \"\\L \\x41 \\u00e9 \\U0001F600\"\n", true, ""},
      {"a non-specific tag '!'", "!\na: 1\n", true, ""},
      {"']' repeated 100,000 times", std::string(100000, ']'), false,
       "f.yaml:1:1: malformed YAML: illegal flow end"},
      {"',' repeated 100,000 times", std::string(100000, ','), false,
       "f.yaml:1:1: malformed YAML: a ',' outside a flow collection"},
      {"'-' repeated 100,000 times", std::string(100000, '-'), true, ""},
      {"'[' nested 100,000 deep", std::string(100000, '['), false, "f.yaml:"},
      {"commas inside scalars and flows", "a: x, y\nb: [1, 2]\nc: {d: 1, e: 2}\n", true, ""},
      {"empty documents", "---\n---\n---\n", true, ""},
      {"a ',' after an anchor", "&a,\n", false, "f.yaml:1:3: malformed YAML: a ',' outside"},
      {"a ',' after an anchor ending in ')'", "&a),\n", false,
       "f.yaml:1:4: malformed YAML: a ',' outside"},
      {"a ',' after ')' in a comment and a scalar", "# (a), b\nc: (d), e\n", true, ""},
      {"a ',' after a tag", "!t,\n", false, "f.yaml:1:3: malformed YAML: a ',' outside"},
      {"a ',' after a byte-order mark", "\xEF\xBB\xBF,\n", false, "f.yaml:1:1: malformed YAML"},
      {"a ',' after '--- '", "--- ,\n", false, "f.yaml:1:5: malformed YAML: a ',' outside"},
      {"a ',' after a block scalar", "|\n  x\n,\n", false, "f.yaml:3:1: malformed YAML"},
      {"a ',' after '...'", "a: 1\n...\n,\n", false, "f.yaml:3:1: malformed YAML"},
  };
  for (const YamlCase& c : cases) {
    Result<YAML::Node> r = parse_single_yaml(c.text, "f.yaml", "a recipe");
    if (c.ok) {
      EXPECT_TRUE(r) << c.name << ": " << r.error().str();
    } else {
      ASSERT_FALSE(r) << c.name;
      EXPECT_EQ(r.error().str().rfind(c.error, 0), 0U) << c.name << ": " << r.error().str();
    }
  }
}

TEST(YamlInput, AliasesAreVisitedOnce) {
  // A billion-laughs shape: nine levels of ten aliases each would be 10^9 nodes if expanded.
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k)
      text += prev + (k < 9 ? ", " : "");
    text += "]\n";
  }
  EXPECT_TRUE(parse_single_yaml(text, "f.yaml", "a recipe"));
}

TEST(YamlInput, TagMessagesShowNoControlCharacters) {
  Result<YAML::Node> r = parse_single_yaml(
      "a: !e\x1b"
      "x 1\n",
      "f.yaml", "a recipe");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.find('\x1b'), std::string::npos);
}

// A tab in the indentation is the likeliest cause of yaml-cpp's "illegal map value": the message
// names the line and the fix, located at its first column. A tab inside a block scalar or a
// quoted string is text, and an error with no tab near it keeps yaml-cpp's own words.
TEST(YamlInput, ATabIndentIsNamedAsSuch) {
  struct Case {
    std::string text;
    int line;  ///< of the tab; 0: no tab message
  };
  const std::vector<Case> cases = {
      {"model:\n\tnum_layers: 2\n", 2},
      {"model:\n  num_layers: 2\n\thidden_size: 4\n", 3},
      {"model:\n\n\tnum_layers: 2\n", 3},
      {"model:\n  \tnum_layers: 2\n", 2},
      {"model:\n  name: \"a\tb\"\n  x: [1,\n", 0},
  };
  for (const Case& c : cases) {
    Result<YAML::Node> r = parse_single_yaml(c.text, "f.yaml", "a recipe");
    ASSERT_FALSE(r) << c.text;
    const bool tab = r.error().message.find("indented with a tab") != std::string::npos;
    EXPECT_EQ(tab, c.line > 0) << r.error().str();
    if (c.line > 0) {
      EXPECT_EQ(r.error().location.line, c.line) << r.error().str();
      EXPECT_EQ(r.error().location.column, 1) << r.error().str();
    }
  }
  EXPECT_TRUE(parse_single_yaml("a: |\n  \ttext\nb: 2\n", "f.yaml", "a recipe"));
}

// yaml-cpp's marks count bytes; SARIF counts code points. Each row: text, the byte offset of a
// mark, its 0-based byte column, and the 1-based code-point column expected.
TEST(YamlInput, CodePointColumnsOfByteOffsets) {
  struct Case {
    std::string text;
    size_t pos;
    size_t byte_column;
    int expected;
  };
  const std::string long_line = std::string(300, 'a') + "\xC3\xA9" + std::string(300, 'b') + "x";
  const std::vector<Case> cases = {
      {"a: 1\n", 3, 3, 4},
      {"\xC3\xA9: 1\n", 4, 4, 4},                                        // é is 2 bytes
      {"k: {\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\": 1}", 17, 17, 12},  // é€😀: 9 bytes
      {"\xC3\xA9\n\xC3\xA9\xC3\xA9: 1\n", 7, 4, 3},                      // second line
      {"a: 1\r\nb: \xC3\xA9\n", 9, 3, 4},                                // after CRLF
      {long_line, 602, 602, 602},                                        // past a 256-byte stride
      {"\xC3\xA9", 2, 2, 2},                                             // the end of the text
      {"a", 5, 5, 6},                                                    // out of the text: bytes
  };
  for (const Case& c : cases) {
    CodePointColumns columns(c.text);
    EXPECT_EQ(columns.column(c.pos, c.byte_column), c.expected) << c.text.substr(0, 40);
  }
}

TEST(YamlInput, LocationsCarryBothColumns) {
  const std::string text =
      "model: {\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\": 1, x: !!python/name:os 1}\n";
  Result<YAML::Node> r = parse_single_yaml(text, "f.yaml", "a recipe");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().location.line, 1);
  EXPECT_EQ(r.error().location.column, 28);  // the tag, after 9 bytes of 3 code points
  EXPECT_EQ(r.error().location.code_point_column, 22);
}

}  // namespace
}  // namespace hcp
