// YAML scalar typing as PyYAML (and so OmegaConf and Megatron-Bridge) types scalars: base-60
// plain ints and floats, and scalars with an explicit core tag. Each row's expected kind and value
// is what PyYAML 6.0.3's SafeLoader gives for "x: TEXT" or "x: !!TAG TEXT" ("error" where it
// raises), written as Value::str() writes it.
#include "../../src/recipe/yaml_scalar.h"

#include <gtest/gtest.h>

#include <string>

namespace hcp {
namespace {

struct ScalarCase {
  const char* tag;  ///< "" for a plain scalar, else the core tag without "!!"
  const char* text;
  const char* kind;  ///< Value::kind_name, or "error"
  const char* value;
};

// Generated with PyYAML 6.0.3 (yaml.load(..., Loader=SafeLoader)).
const ScalarCase kPyYamlCases[] = {
    {"", "1:4", "int", "64"},
    {"", "0:16", "string", "0:16"},
    {"", "-1:4", "int", "-64"},
    {"", "+1:4", "int", "64"},
    {"", "1:60", "string", "1:60"},
    {"", "1:4:05", "int", "3845"},
    {"", "1_0:4", "int", "604"},
    {"", "1:30.5", "float", "90.5"},
    {"", "0:30.5", "float", "30.5"},
    {"", "1:30.", "float", "90.0"},
    {"", "1:5", "int", "65"},
    {"", "190:20:30", "int", "685230"},
    {"", "1:4_0", "string", "1:4_0"},
    {"", "1:4.5", "float", "64.5"},
    {"", "-1:30.5", "float", "-90.5"},
    {"", "1:30.5e3", "string", "1:30.5e3"},
    {"", "1::2", "string", "1::2"},
    {"", "1:2:3.5", "float", "3723.5"},
    {"", "1_:30", "int", "90"},
    {"", "_1:30", "string", "_1:30"},
    {"", "60:00", "int", "3600"},
    {"", "1:0x10", "string", "1:0x10"},
    {"", "1:05", "int", "65"},
    {"", "1:5_", "string", "1:5_"},
    {"", "12:3:4:5", "int", "2603045"},
    {"", "0:30", "string", "0:30"},
    {"", "-0:30.5", "float", "-30.5"},
    {"", ":30", "string", ":30"},
    {"", "a:1", "string", "a:1"},
    {"", "153722867280912930:7", "int", "9223372036854775807"},
    {"float", "16", "float", "16.0"},
    {"float", "2", "float", "2.0"},
    {"float", "1_0.5", "float", "10.5"},
    {"float", ".INF", "float", "inf"},
    {"float", "-.inf", "float", "-inf"},
    {"float", "inf", "float", "inf"},
    {"float", "1:30.5", "float", "90.5"},
    {"float", "1:30", "float", "90.0"},
    {"float", "1e5", "float", "100000.0"},
    {"float", "1E5", "float", "100000.0"},
    {"float", "0x10", "error", ""},
    {"float", "-.5", "float", "-0.5"},
    {"float", "+1", "float", "1.0"},
    {"float", "1.", "float", "1.0"},
    {"float", ".", "error", ""},
    {"float", "", "error", ""},
    {"float", "nan", "float", "nan"},
    {"float", "NaN", "float", "nan"},
    {"float", "Infinity", "float", "inf"},
    {"float", "1_e5", "float", "100000.0"},
    {"float", "abc", "error", ""},
    {"bool", "1", "error", ""},
    {"bool", "TrUe", "bool", "true"},
    {"bool", "yes", "bool", "true"},
    {"bool", "OFF", "bool", "false"},
    {"bool", "", "error", ""},
    {"bool", "tr_ue", "error", ""},
    {"bool", "y", "error", ""},
    {"int", "1.5", "error", ""},
    {"int", "16", "int", "16"},
    {"int", "1:4", "int", "64"},
    {"int", "1_0", "int", "10"},
    {"int", "0x1_0", "int", "16"},
    {"int", "017", "int", "15"},
    {"int", "0o17", "int", "15"},
    {"int", "09", "error", ""},
    {"int", "-0b11", "int", "-3"},
    {"int", "0b", "error", ""},
    {"int", "0:16", "error", ""},
    {"int", "1:75", "int", "135"},
    {"int", "", "error", ""},
    {"int", "-", "error", ""},
    {"int", "0", "int", "0"},
    {"int", "-0", "int", "0"},
    {"int", "00", "int", "0"},
    {"int", "0X10", "error", ""},
    {"int", "+0x10", "int", "16"},
    {"int", "9223372036854775807", "int", "9223372036854775807"},
    {"int", "-9223372036854775808", "int", "-9223372036854775808"},
    {"int", "abc", "error", ""},
    {"int", "1e3", "error", ""},
    {"null", "foo", "null", "null"},
    {"null", "", "null", "null"},
    {"str", "16", "string", "16"},
    {"str", "", "string", ""},
};

TEST(YamlScalar, TypedAsPyYamlTypesThem) {
  const Location at{"t.yaml", 3, 5};
  for (const ScalarCase& c : kPyYamlCases) {
    const std::string tag = c.tag;
    Result<Value> v = tag.empty() ? yaml_detail::type_plain_scalar(c.text, at)
                                  : yaml_detail::type_tagged_scalar(tag, c.text, at);
    const std::string shown = tag.empty() ? c.text : "!!" + tag + " " + c.text;
    if (std::string(c.kind) == "error") {
      ASSERT_FALSE(v) << shown << " gave " << v.value().str();
      EXPECT_EQ(v.error().location.line, 3) << shown;
      EXPECT_EQ(v.error().message.find('\n'), std::string::npos) << v.error().message;
      continue;
    }
    ASSERT_TRUE(v) << shown << ": " << v.error().str();
    EXPECT_STREQ(Value::kind_name(v->kind()), c.kind) << shown;
    EXPECT_EQ(v->str(), c.value) << shown;
  }
}

TEST(YamlScalar, TaggedErrorsSayWhatPyYamlWants) {
  const Location at{"t.yaml", 1, 1};
  Result<Value> b = yaml_detail::type_tagged_scalar("bool", "1", at);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "!!bool '1' is not a boolean (true, false, yes, no, on or off, in any case); PyYAML "
            "refuses it");
  Result<Value> m = yaml_detail::type_tagged_scalar("map", "3", at);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("!!map tag on a scalar"), std::string::npos)
      << m.error().message;
}

TEST(YamlScalar, Base60PastSixtyFourBitsIsAnError) {
  const Location at{"t.yaml", 1, 1};
  Result<Value> v = yaml_detail::type_plain_scalar("153722867280912931:0", at);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("does not fit in 64 bits"), std::string::npos)
      << v.error().message;
}

}  // namespace
}  // namespace hcp
