// The shared hardening utilities: checked arithmetic, the bounded file reader, JSON in and out.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>

#include "hcp/checked.h"
#include "hcp/file_input.h"
#include "hcp/json_io.h"
#include "support/unprivileged.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("hcp_hardening_" + std::to_string(getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

TEST(JsonIf, AnUndefinedFigureIsNullNotItsDefault) {
  EXPECT_EQ(json_if(true, 0.25), nlohmann::json(0.25));
  EXPECT_EQ(json_if(true, int64_t{0}), nlohmann::json(0));  // a defined zero stays zero
  EXPECT_TRUE(json_if(false, 0.0).is_null());
  EXPECT_TRUE(json_if(false, int64_t{-1}).is_null());
  // It builds into ordered JSON too (the dcp report's kind).
  nlohmann::ordered_json ordered{{"vpp_group", json_if(false, 0)}};
  EXPECT_TRUE(ordered["vpp_group"].is_null());
}

TEST(Checked, AddSubMulDetectOverflow) {
  EXPECT_EQ(checked_add(2, 3), 5);
  EXPECT_FALSE(checked_add(kMax, 1));
  EXPECT_FALSE(checked_add(kMin, -1));
  EXPECT_EQ(checked_sub(2, 3), -1);
  EXPECT_FALSE(checked_sub(kMin, 1));
  EXPECT_EQ(checked_mul(1 << 20, 1 << 20), int64_t{1} << 40);
  EXPECT_FALSE(checked_mul(int64_t{1} << 32, int64_t{1} << 31));
  EXPECT_FALSE(checked_mul(kMin, -1));
}

TEST(Checked, ProductOfParallelSizesThatEachPassTheirBound) {
  // TP x PP x CP = 2^22 * 2^21 * 2^21 = 2^64: wraps to 0 in plain int64 arithmetic.
  EXPECT_FALSE(checked_product({int64_t{1} << 22, int64_t{1} << 21, int64_t{1} << 21}));
  EXPECT_EQ(checked_product({2, 3, 4}), 24);
  EXPECT_EQ(checked_product({}), 1);
  auto r = checked_product_or_error({kMax, 2}, "TP x PP x CP", Location{"r.yaml", 3, 1}, "k");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().str(), "r.yaml:3:1: TP x PP x CP overflows a 64-bit integer");
  EXPECT_EQ(*checked_mul_or_error(6, 7, "x"), 42);
  EXPECT_FALSE(checked_add_or_error(kMax, kMax, "sum"));
}

/// One text of a number class and whether the checked parse takes it.
struct NumberText {
  const char* name;
  const char* text;
  bool accepted;
};

TEST(Checked, ParsePhysicalTakesOnlyFiniteNormalNumbersInRange) {
  const NumberText cases[] = {
      {"plain", "450", true},
      {"exponent", "4.5e2", true},
      {"range edge", "100000", true},
      {"denormal", "5e-324", false},
      {"denormal", "1e-320", false},
      {"NaN", "nan", false},
      {"inf", "inf", false},
      {"-inf", "-inf", false},
      {"negative", "-1", false},
      {"zero", "0", false},
      {"huge", "1e300", false},
      {"overflow", "1e400", false},
      {"int64 edge", "9223372036854775807", false},
      {"19-digit", "1234567890123456789", false},
      {"hex", "0x10", false},
      {"empty", "", false},
      {"trailing", "450GB", false},
      {"space", " 450", false},
  };
  for (const NumberText& c : cases) {
    Result<double> v = parse_physical(c.text, kBandwidthGBps);
    EXPECT_EQ(v.ok(), c.accepted) << c.name << " '" << c.text << "'";
    if (!v.ok()) {
      EXPECT_EQ(v.error().message.find('\n'), std::string::npos) << c.name;
    }
  }
  EXPECT_EQ(*parse_physical("0", or_zero(kBandwidthGBps)), 0.0);
  EXPECT_EQ(*parse_physical("0.25", kProbability), 0.25);
  EXPECT_FALSE(parse_physical("1.5", kProbability));
}

TEST(Checked, NumbersInMessagesReadBackExactly) {
  // A range's edges are named as the shortest text that reads back: 2147483647, not 2.14748e+09.
  const double values[] = {2147483647.0, 1e-3, 1e6, 0.1, 450, 6.048e8, 1e-9, -1.5};
  for (double v : values) {
    const std::string text = format_number_for_error(v);
    EXPECT_EQ(std::stod(text), v) << text;
  }
  EXPECT_EQ(format_number_for_error(2147483647.0), "2147483647");
  EXPECT_EQ(format_number_for_error(std::nan("")), "nan");
  EXPECT_EQ(format_number_for_error(-HUGE_VAL), "-inf");
}

TEST(Checked, ParseCheckedCountTakesOnlyDecimalIntegersInRange) {
  const NumberText cases[] = {
      {"plain", "4096", true},
      {"range edge", "2147483647", true},
      {"above the range", "2147483648", false},
      {"19-digit", "1234567890123456789", false},
      {"int64 max", "9223372036854775807", false},
      {"int64 overflow", "9223372036854775808", false},
      {"int64 min", "-9223372036854775808", false},
      {"huge", "99999999999999999999999999", false},
      {"negative", "-1", false},
      {"zero", "0", false},
      {"float", "1.0", false},
      {"exponent", "1e3", false},
      {"NaN", "nan", false},
      {"inf", "inf", false},
      {"denormal", "5e-324", false},
      {"hex", "0x10", false},
      {"plus", "+4", false},  // callers strip a '+' where their input's language allows one
      {"empty", "", false},
  };
  for (const NumberText& c : cases) {
    Result<int64_t> v = parse_checked_count(c.text, kDimensionCount);
    EXPECT_EQ(v.ok(), c.accepted) << c.name << " '" << c.text << "'";
  }
  EXPECT_EQ(*parse_checked_count("0", kCountOrZero), 0);
  EXPECT_EQ(*parse_checked_count("-1", kWindowBound), -1);
  EXPECT_FALSE(parse_checked_count("-2", kWindowBound));
  EXPECT_EQ(*parse_checked_count("1048576", kParallelCount), 1048576);
  EXPECT_FALSE(parse_checked_count("1048577", kParallelCount));
  EXPECT_EQ(parse_checked_count("9223372036854775808", kDimensionCount).error().message,
            "'9223372036854775808' overflows a 64-bit integer");
  EXPECT_EQ(parse_checked_count("-1", kDimensionCount).error().message,
            "'-1' is below the physical range [1, 2147483647] (a size)");
}

TEST(Checked, IntNarrowing) {
  EXPECT_EQ(checked_int(7), 7);
  EXPECT_FALSE(checked_int(int64_t{1} << 31));
  EXPECT_FALSE(checked_int(-(int64_t{1} << 31) - 1));
}

TEST(InputFile, ReadsAndStripsBom) {
  TempDir dir;
  auto text = read_input_file(dir.write("a.yaml", "\xEF\xBB\xBFmodel: {}\n"), InputKind::kRecipe);
  ASSERT_TRUE(text) << text.error().str();
  EXPECT_EQ(*text, "model: {}\n");
  EXPECT_EQ(strip_utf8_bom("\xEF\xBB\xBFx"), "x");
  EXPECT_EQ(strip_utf8_bom("\xEF\xBBx"), "\xEF\xBBx");
}

TEST(InputFile, RefusesDirectoriesMissingAndOversizedFiles) {
  TempDir dir;
  auto d = read_input_file(dir.path(), InputKind::kEnv);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().str(), dir.path() + ": is a directory, expected an environment file");
  auto missing = read_input_file(dir.path() + "/nope", InputKind::kRecipe);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().str(), dir.path() + "/nope: no such file");
  auto big = read_input_file(dir.write("big", std::string(100, 'x')), InputKind::kRecipe, 99);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("larger than the 99 bytes limit"), std::string::npos);
  EXPECT_TRUE(read_input_file(dir.write("ok", std::string(99, 'x')), InputKind::kRecipe, 99));
}

TEST(InputFile, DeviceWithoutEndIsRefusedBeforeItIsRead) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  auto r = read_input_file("/dev/zero", InputKind::kRecipe);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().str(), "/dev/zero: is a device, not a regular file, expected a recipe");
}

TEST(InputFile, UnreadableFileNamesTheReason) {
  // As root (CI) the read runs as `nobody`: root reads files without read permission.
  TempDir dir;
  std::string p = dir.write("secret", "x");
  fs::permissions(p, fs::perms::none);
  std::string error = testing::run_unprivileged([&] {
    auto r = read_input_file(p, InputKind::kConfig);
    return r ? std::string("read") : r.error().str();
  });
  EXPECT_EQ(error, p + ": cannot read: Permission denied");
}

TEST(InputFile, LimitsGrowWithTheKind) {
  EXPECT_LT(max_input_bytes(InputKind::kRecipe), max_input_bytes(InputKind::kCapture));
  EXPECT_LT(max_input_bytes(InputKind::kCapture), max_input_bytes(InputKind::kLengths));
  EXPECT_EQ(format_byte_limit(uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(format_byte_limit(3), "3 bytes");
}

TEST(InputFile, OffsetToLineAndColumn) {
  Location loc = location_at_offset("ab\ncd\n", "f", 4);
  EXPECT_EQ(loc.str(), "f:2:2");
  EXPECT_EQ(location_at_offset("", "f", 10).str(), "f:1:1");
}

TEST(JsonOut, InvalidUtf8IsReplacedNotThrown) {
  nlohmann::json j = {{"name", std::string("bad\xFF\xC3")}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // What the writers did before.
  std::string out = json_dump(j);
  EXPECT_EQ(out, "{\"name\":\"bad\xEF\xBF\xBD\xEF\xBF\xBD\"}");
  nlohmann::ordered_json o = {{"k", std::string("\x80")}};
  EXPECT_EQ(json_dump(o, 2), "{\n  \"k\": \"\xEF\xBF\xBD\"\n}");
}

TEST(JsonIn, NumberOutOfRangeNamesTheFile) {
  auto r = parse_json_input("{\"a\": 1e400}", "cal.json", "calibration JSON");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().location.file, "cal.json");
  EXPECT_NE(r.error().message.find("1e400"), std::string::npos) << r.error().message;
}

TEST(JsonIn, SyntaxErrorHasLineAndColumn) {
  auto r = parse_json_input("{\n  \"a\": tru\n}", "c.json", "HF config");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().location.file, "c.json");
  EXPECT_EQ(r.error().location.line, 2);
  EXPECT_TRUE(r.error().message.starts_with("malformed HF config: ")) << r.error().message;
}

TEST(JsonIn, DuplicateKeysDeepNestingAndEmptyAreErrors) {
  auto dup = parse_json_input("{\"a\": 1, \"b\": {\"a\": 2}, \"a\": 3}", "d.json", "X");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().str(), "d.json: duplicate key 'a' in X");
  EXPECT_TRUE(parse_json_input("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}", "f", "X"));
  std::string deep(100000, '[');
  auto nested = parse_json_input(deep, "n.json", "X");
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().str(), "n.json: X nests deeper than 128 levels");
  auto empty = parse_json_input(" \n", "e.json", "X");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().str(), "e.json: empty file, expected X");
}

TEST(JsonIn, BomIsSkipped) {
  auto r = parse_ordered_json_input("\xEF\xBB\xBF{\"a\": 1}", "b.json", "X");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ((*r)["a"], 1);
}

TEST(JsonIn, LoadFileCombinesReaderAndParser) {
  TempDir dir;
  auto ok = load_json_file(dir.write("a.json", "{\"x\": [1, 2]}"), InputKind::kConfig, "X");
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)["x"].size(), 2u);
  auto d = load_ordered_json_file(dir.path(), InputKind::kCalibration, "X");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("is a directory"), std::string::npos);
}

}  // namespace
}  // namespace hcp
