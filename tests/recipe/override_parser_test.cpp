// Hydra 1.3.2 override grammar: every form, token typing and every parse error.
#include <gtest/gtest.h>

#include <cmath>

#include "hcp/recipe.h"

namespace hcp {
namespace {

Override parse_ok(const std::string& text) {
  Result<Override> o = parse_override(text, 3);
  EXPECT_TRUE(o.ok()) << text << ": " << (o.ok() ? "" : o.error().str());
  return o.ok() ? *o : Override{};
}

Value value_of(const std::string& text) {
  Override o = parse_ok("model.x=" + text);
  EXPECT_TRUE(o.value.has_value()) << text;
  return o.value.value_or(Value());
}

std::string parse_error(const std::string& text) {
  Result<Override> o = parse_override(text, 2);
  EXPECT_FALSE(o.ok()) << text;
  if (o.ok()) return {};
  EXPECT_EQ(o.error().location.file, "<override 2>") << text;
  return o.error().message;
}

TEST(OverrideParser, ChangeAddForceAddDelete) {
  Override change = parse_ok("model.context_parallel_size=4");
  EXPECT_EQ(change.kind, OverrideKind::kChange);
  EXPECT_EQ(change.key, "model.context_parallel_size");
  EXPECT_EQ(change.value->as_int(), 4);
  EXPECT_EQ(change.index, 3);
  EXPECT_EQ(parse_ok("+model.foo=1").kind, OverrideKind::kAdd);
  EXPECT_EQ(parse_ok("++model.bar=x").kind, OverrideKind::kForceAdd);
  Override del = parse_ok("~model.baz");
  EXPECT_EQ(del.kind, OverrideKind::kDelete);
  EXPECT_FALSE(del.value.has_value());
  Override del_value = parse_ok("~model.baz=2");
  EXPECT_EQ(del_value.kind, OverrideKind::kDelete);
  EXPECT_EQ(del_value.value->as_int(), 2);
  EXPECT_FALSE(parse_ok("~model.baz=").value.has_value());
}

TEST(OverrideParser, ValueLocationIsColumnInToken) {
  Override o = parse_ok("model.cp_comm_type=a2a+p2p");
  EXPECT_EQ(o.value->location().file, "<override 3>");
  EXPECT_EQ(o.value->location().line, 1);
  EXPECT_EQ(o.value->location().column, 20);
  Override list = parse_ok("model.h=[8, 2]");
  EXPECT_EQ(list.value->items()[1].location().column, 13);
}

TEST(OverrideParser, Integers) {
  EXPECT_EQ(value_of("4").as_int(), 4);
  EXPECT_EQ(value_of("-3").as_int(), -3);
  EXPECT_EQ(value_of("+7").as_int(), 7);
  EXPECT_EQ(value_of("1_000").as_int(), 1000);
  EXPECT_EQ(value_of("0").as_int(), 0);
  EXPECT_TRUE(value_of("1__0").is_string());
  EXPECT_TRUE(value_of("007").is_string());
}

TEST(OverrideParser, Floats) {
  EXPECT_DOUBLE_EQ(value_of("3.14").as_double(), 3.14);
  EXPECT_DOUBLE_EQ(value_of("1e-4").as_double(), 1e-4);
  EXPECT_TRUE(value_of("1e-4").is_float());
  EXPECT_DOUBLE_EQ(value_of("1.").as_double(), 1.0);
  EXPECT_DOUBLE_EQ(value_of(".5").as_double(), 0.5);
  EXPECT_DOUBLE_EQ(value_of("-10e3").as_double(), -10e3);
  EXPECT_TRUE(std::isinf(value_of("inf").as_double()));
  EXPECT_LT(value_of("-Inf").as_double(), 0);
  EXPECT_TRUE(std::isnan(value_of("NaN").as_double()));
  EXPECT_TRUE(value_of("1_0.5").is_float());
}

TEST(OverrideParser, BoolNullCaseInsensitive) {
  EXPECT_EQ(value_of("True").as_bool(), true);
  EXPECT_EQ(value_of("FALSE").as_bool(), false);
  EXPECT_TRUE(value_of("NULL").is_null());
  EXPECT_TRUE(value_of("null").is_null());
  EXPECT_TRUE(value_of("yes").is_string());  // Hydra has no YAML 1.1 booleans.
}

TEST(OverrideParser, StringsQuotedAndUnquoted) {
  EXPECT_EQ(value_of("a2a+p2p").as_string(), "a2a+p2p");
  EXPECT_EQ(value_of("torch.bfloat16").as_string(), "torch.bfloat16");
  EXPECT_EQ(value_of("/path/to/x.yaml").as_string(), "/path/to/x.yaml");
  EXPECT_EQ(value_of("\"2\"").as_string(), "2");
  EXPECT_EQ(value_of("'true'").as_string(), "true");
  EXPECT_EQ(value_of("'it\\'s'").as_string(), "it's");
  EXPECT_EQ(value_of("a b").as_string(), "a b");
  EXPECT_EQ(value_of("a\\,b").as_string(), "a,b");
  EXPECT_EQ(value_of("2a").as_string(), "2a");
  EXPECT_EQ(value_of("").as_string(), "");
}

TEST(OverrideParser, WhitespaceRules) {
  EXPECT_EQ(value_of(" 4").as_int(), 4);  // '=' WS? skips whitespace after '='.
  EXPECT_EQ(value_of("4 ").as_int(), 4);  // Outer whitespace of a primitive is stripped.
  EXPECT_NE(parse_error("model.x =4").find("whitespace"), std::string::npos);
  Value list = value_of("[ 2 , 2 ]");
  ASSERT_TRUE(list.is_list());
  EXPECT_EQ(list.items().size(), 2u);
}

TEST(OverrideParser, Interpolation) {
  Value v = value_of("${model.seq_length}");
  EXPECT_TRUE(v.is_string());
  EXPECT_EQ(v.as_string(), "${model.seq_length}");
  EXPECT_EQ(value_of("/data/${model.x}/y").as_string(), "/data/${model.x}/y");
}

TEST(OverrideParser, ListsAndDicts) {
  Value l = value_of("[2,2]");
  EXPECT_EQ(l.str(), "[2, 2]");
  EXPECT_EQ(value_of("[a2a,p2p]").items()[1].as_string(), "p2p");
  EXPECT_TRUE(value_of("[]").items().empty());
  Value d = value_of("{a:1,b:[1,2]}");
  ASSERT_TRUE(d.is_map());
  EXPECT_EQ(d.get("a")->as_int(), 1);
  EXPECT_EQ(d.get("b")->items().size(), 2u);
  Value nested = value_of("{CUDA_DEVICE_MAX_CONNECTIONS: 1, NCCL_NVLS_ENABLE: 0}");
  EXPECT_EQ(nested.get("NCCL_NVLS_ENABLE")->as_int(), 0);
  EXPECT_TRUE(value_of("{}").entries().empty());
}

TEST(OverrideParser, Casts) {
  EXPECT_EQ(value_of("int(3.0)").as_int(), 3);
  EXPECT_TRUE(value_of("int(3.0)").is_int());
  EXPECT_DOUBLE_EQ(value_of("float(2)").as_double(), 2.0);
  EXPECT_TRUE(value_of("float(2)").is_float());
  EXPECT_EQ(value_of("str(4)").as_string(), "4");
  EXPECT_EQ(value_of("bool(1)").as_bool(), true);
  EXPECT_EQ(value_of("int('7')").as_int(), 7);
  EXPECT_NE(parse_error("model.x=int(abc)").find("cannot cast"), std::string::npos);
}

TEST(OverrideParser, SweepsAreRejected) {
  EXPECT_NE(parse_error("model.h=2,2").find("sweep"), std::string::npos);
  EXPECT_NE(parse_error("model.x=choice(1,2)").find("sweep"), std::string::npos);
  EXPECT_NE(parse_error("model.x=range(1,4)").find("sweep"), std::string::npos);
}

TEST(OverrideParser, UnbalancedBracketsAndQuotes) {
  EXPECT_NE(parse_error("model.h=[2,2").find("unbalanced '['"), std::string::npos);
  EXPECT_NE(parse_error("model.h=[2,[2]").find("unbalanced '['"), std::string::npos);
  EXPECT_NE(parse_error("model.h=2]").find("unbalanced ']'"), std::string::npos);
  EXPECT_NE(parse_error("model.h={a:1").find("unbalanced '{'"), std::string::npos);
  EXPECT_NE(parse_error("model.h=a}").find("unbalanced '}'"), std::string::npos);
  EXPECT_NE(parse_error("model.h='abc").find("unbalanced quote"), std::string::npos);
  EXPECT_NE(parse_error("model.h=\"abc").find("unbalanced quote"), std::string::npos);
  EXPECT_NE(parse_error("model.h=${model.x").find("unbalanced '${'"), std::string::npos);
  EXPECT_NE(parse_error("model.h=int(3").find("unbalanced '('"), std::string::npos);
}

TEST(OverrideParser, MessagesNameTheOverride) {
  Result<Override> o = parse_override("model.h=[2,2", 2);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().str().rfind("<override 2>:1:", 0), 0u) << o.error().str();
  EXPECT_NE(o.error().message.find("'model.h=[2,2'"), std::string::npos);
}

TEST(OverrideParser, KeyErrors) {
  EXPECT_NE(parse_error("model.x").find("no '='"), std::string::npos);
  EXPECT_NE(parse_error("=4").find("missing key"), std::string::npos);
  EXPECT_NE(parse_error("model..x=4").find("empty segment"), std::string::npos);
  EXPECT_NE(parse_error("model.x.=4").find("ends with '.'"), std::string::npos);
  EXPECT_NE(parse_error("model@pkg=4").find("config group"), std::string::npos);
  EXPECT_NE(parse_error("model/x=4").find("config group"), std::string::npos);
  EXPECT_NE(parse_error("mo#del=4").find("unexpected character"), std::string::npos);
  EXPECT_NE(parse_error("").find("empty override"), std::string::npos);
}

TEST(OverrideParser, ValueErrors) {
  EXPECT_NE(parse_error("model.x='a'b").find("after the value"), std::string::npos);
  EXPECT_NE(parse_error("model.x=a#b").find("unexpected character"), std::string::npos);
  EXPECT_NE(parse_error("model.x=foo(1)").find("unknown function"), std::string::npos);
  EXPECT_EQ(value_of("   ").as_string(), "");
  EXPECT_NE(parse_error("model.x=99999999999999999999").find("64 bits"), std::string::npos);
  EXPECT_NE(parse_error("model.x={a:1,a:2}").find("duplicate"), std::string::npos);
}

// The character a message quotes is the whole UTF-8 sequence (a full-width digit, not its first
// byte), and a byte that starts no sequence is written as \xNN, in keys, values and dict keys.
TEST(OverrideParser, UnexpectedCharactersAreQuotedWhole) {
  const std::string digit = "\xEF\xBC\x94";  // U+FF14 FULLWIDTH DIGIT FOUR
  for (const std::string& text :
       {"mo" + digit + "del=4", "model.x=" + digit, "model.x={" + digit + ":1}"}) {
    std::string message = parse_error(text);
    EXPECT_NE(message.find("unexpected character '" + digit + "' (U+FF14)"), std::string::npos)
        << message;
  }
  // A Cyrillic letter that looks like the Latin one is named by its code point.
  EXPECT_NE(parse_error("model.context_parallel_s\xD1\x96ze=2")
                .find("unexpected character '\xD1\x96' (U+0456) in key"),
            std::string::npos);
  EXPECT_NE(parse_error("model.x=a\xFF"
                        "b")
                .find("unexpected character '\\xff'"),
            std::string::npos)
      << parse_error(
             "model.x=a\xFF"
             "b");
}

TEST(OverrideParser, ListIndexKey) {
  Override o = parse_ok("model.recompute_modules.0=mlp");
  EXPECT_EQ(o.key, "model.recompute_modules.0");
}

}  // namespace
}  // namespace hcp
