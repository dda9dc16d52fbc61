// Length inputs: text and JSON lists, Megatron .idx files, synthetic draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "dcp_test_util.h"
#include "hcp/dcp.h"

namespace hcp::dcp {
namespace {

std::string fixture_path(const std::string& name) {
  return std::string(HCP_FIXTURES_DIR) + "/dcp/" + name;
}

std::string error_of(const Result<std::vector<int64_t>>& r) {
  return r.ok() ? std::string("<no error>") : r.error().str();
}

TEST(LengthsText, OneIntegerALineSkipsBlanksAndComments) {
  auto r = read_lengths_file(fixture_path("lengths_ok.txt"));
  ASSERT_TRUE(r.ok()) << error_of(r);
  EXPECT_EQ(*r, (std::vector<int64_t>{128, 96, 64}));
}

TEST(LengthsText, JsonList) {
  auto r = read_lengths_file(fixture_path("bridge_toy.json"));
  ASSERT_TRUE(r.ok()) << error_of(r);
  EXPECT_EQ(*r, (std::vector<int64_t>{128, 96, 64, 48, 32, 24, 16, 8}));
}

TEST(LengthsText, NegativeLengthNamesSampleAndLine) {
  auto r = read_lengths_file(fixture_path("lengths_negative.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(error_of(r).find("lengths_negative.txt:2"), std::string::npos) << error_of(r);
  EXPECT_NE(error_of(r).find("sample 1 has length -5"), std::string::npos) << error_of(r);
}

TEST(LengthsText, AJsonLengthPastInt64IsSaidAsWritten) {
  // Capped to fit an int64 first, 2^63-1 and 2^64-1 were both reported as 2^62.
  for (const std::string written : {"2147483648", "9223372036854775807", "18446744073709551615"}) {
    auto r = parse_lengths_text("[5, " + written + "]", "l.json");
    ASSERT_FALSE(r.ok()) << written;
    EXPECT_NE(r.error().message.find("sample 1 has length " + written + ", more than 2^31-1"),
              std::string::npos)
        << r.error().message;
  }
  auto most = parse_lengths_text("[2147483647]", "l.json");
  ASSERT_TRUE(most.ok()) << most.error().str();
  EXPECT_EQ(most->front(), 2147483647);
}

TEST(LengthsText, ZeroLengthRejected) {
  auto r = read_lengths_file(fixture_path("lengths_zero.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(error_of(r).find("must be > 0"), std::string::npos);
}

TEST(LengthsText, EmptyInputRejected) {
  auto r = read_lengths_file(fixture_path("lengths_empty.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(error_of(r).find("no sequence lengths"), std::string::npos);
  EXPECT_FALSE(parse_lengths_text("", "x").ok());
  EXPECT_FALSE(parse_lengths_text("[]", "x").ok());
}

TEST(LengthsText, GarbageAndMalformedJsonRejected) {
  auto r = read_lengths_file(fixture_path("lengths_garbage.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(error_of(r).find(":2:"), std::string::npos) << error_of(r);
  EXPECT_FALSE(parse_lengths_text("[1, 2", "x").ok());
  EXPECT_FALSE(parse_lengths_text("[1, 2.5]", "x").ok());
  EXPECT_FALSE(parse_lengths_text("[1, \"3\"]", "x").ok());
  EXPECT_FALSE(parse_lengths_text("[1, -3]", "x").ok());
  EXPECT_FALSE(parse_lengths_text("12 13", "x").ok());
  EXPECT_FALSE(parse_lengths_text("99999999999999999999999", "x").ok());
  EXPECT_FALSE(parse_lengths_text("4294967296", "x").ok());  // beyond int32 like Megatron
}

TEST(LengthsText, MissingFile) {
  auto r = read_lengths_file(fixture_path("no_such_file.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(error_of(r).find("no such file"), std::string::npos);
}

// Through the shared reader: a directory is named as one (it was "no sequence lengths"), as for
// .idx files.
TEST(LengthsText, DirectoryIsRefused) {
  auto r = read_lengths_file(fixture_path(""));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(error_of(r).find("is a directory"), std::string::npos) << error_of(r);
  auto idx = read_idx_file(fixture_path(""));
  ASSERT_FALSE(idx.ok());
  EXPECT_NE(error_of(idx).find("is a directory"), std::string::npos) << error_of(idx);
}

// A UTF-8 BOM is skipped as by every other loader; JSON lists are read by the shared JSON
// parser: errors carry line and column, and 1e400 is an error rather than an exception.
TEST(LengthsText, BomAndJsonErrors) {
  auto bom = parse_lengths_text(
      "\xEF\xBB\xBF"
      "1024\n2048\n",
      "x");
  ASSERT_TRUE(bom.ok()) << error_of(bom);
  EXPECT_EQ(*bom, (std::vector<int64_t>{1024, 2048}));
  auto json_bom = parse_lengths_text("\xEF\xBB\xBF[1024, 2048]", "x");
  ASSERT_TRUE(json_bom.ok()) << error_of(json_bom);
  auto syntax = parse_lengths_text("[1024,\n 2048,,]", "x.json");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(error_of(syntax).find("x.json:2:"), std::string::npos) << error_of(syntax);
  auto huge = parse_lengths_text("[1e400]", "x.json");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(error_of(huge).find("x.json"), std::string::npos) << error_of(huge);
}

TEST(Idx, ReadsSequenceLengths) {
  auto r = read_idx_file(fixture_path("valid.idx"));
  ASSERT_TRUE(r.ok()) << error_of(r);
  EXPECT_EQ(*r, (std::vector<int64_t>{1200, 64, 8192, 3000, 17}));
}

TEST(Idx, MultimodalWithInt32Tokens) {
  auto r = read_idx_file(fixture_path("valid_int32_multimodal.idx"));
  ASSERT_TRUE(r.ok()) << error_of(r);
  EXPECT_EQ(r->size(), 5u);
}

struct BadIdx {
  const char* file;
  const char* reason;
};

TEST(Idx, MalformedFilesExplainWhy) {
  const BadIdx cases[] = {
      {"truncated.idx", "truncated?"},
      {"header_only.idx", "the header alone needs 34"},
      {"bad_magic.idx", "bad magic"},
      {"bad_version.idx", "version 2"},
      {"bad_dtype.idx", "dtype code 9"},
      {"zero_length.idx", "sequence 1 has length 0"},
      {"negative_length.idx", "sequence 1 has length -3"},
      {"bad_pointers.idx", "sequence_pointers[2] = 99"},
      {"bad_document_indices.idx", "document_indices ends at 2"},
      {"huge_count.idx", "exceed the file size"},
  };
  for (const BadIdx& c : cases) {
    SCOPED_TRACE(c.file);
    auto r = read_idx_file(fixture_path(c.file));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(error_of(r).find(c.reason), std::string::npos) << error_of(r);
  }
}

TEST(Idx, EveryTruncationIsRejected) {
  const std::string whole = testing::read_fixture("dcp/valid.idx");
  ASSERT_EQ(whole.size(), 142u);
  for (size_t n = 0; n < whole.size(); ++n) {
    EXPECT_FALSE(parse_idx_bytes(std::string_view(whole).substr(0, n), "cut").ok()) << n;
  }
  EXPECT_TRUE(parse_idx_bytes(whole, "whole").ok());
}

TEST(Synthetic, ParsesSpec) {
  auto s = parse_synthetic_spec("lognormal:1024:1.5:1000:8192");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->mean, 1024);
  EXPECT_DOUBLE_EQ(s->sigma, 1.5);
  EXPECT_EQ(s->count, 1000);
  EXPECT_EQ(s->max, 8192);
  auto no_max = parse_synthetic_spec("lognormal:500:0.5:10");
  ASSERT_TRUE(no_max.ok());
  EXPECT_EQ(no_max->max, 0);
  EXPECT_EQ(no_max->min, 1);
  // Megatron's mock SFT dataset clips to [min_seq_len, max_seq_len]: MIN follows MAX.
  auto mock = parse_synthetic_spec("lognormal:1024:1.5:1000:8192:128");
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  EXPECT_EQ(mock->min, 128);
  auto lengths = synthetic_lengths(*mock, 1);
  EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 128);  // sigma 1.5: many clip
  EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), 8192);
  for (const char* bad : {"lognormal:1024:1.5:10:8192:0", "lognormal:1024:1.5:10:8192:8193",
                          "lognormal:1024:1.5:10:8192:-1", "lognormal:1024:1.5:10:8192:x"}) {
    auto r = parse_synthetic_spec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("MIN"), std::string::npos) << r.error().message;
  }
}

TEST(Synthetic, RejectsBadSpecs) {
  for (const char* bad :
       {"normal:1:1:1", "lognormal", "lognormal:1:1", "lognormal:x:1:10", "lognormal:0:1:10",
        "lognormal:100:-1:10", "lognormal:100:1:0", "lognormal:100:1:10:0",
        "lognormal:100:1:10:5:6", "lognormal:100:1:1.5"}) {
    EXPECT_FALSE(parse_synthetic_spec(bad).ok()) << bad;
  }
}

TEST(Synthetic, MeanAndSigmaAreNumbersInTheirPhysicalRange) {
  struct Case {
    const char* spec;
    const char* message;  ///< Part of the error; nullptr: accepted.
  };
  const Case cases[] = {
      {"lognormal:1:0:4", nullptr},     // edges: one token, no spread
      {"lognormal:4000:3:4", nullptr},  // the widest spread taken
      {"lognormal:nan:1:4", "MEAN 'nan' is not a finite number"},
      {"lognormal:inf:1:4", "MEAN 'inf' is not a finite number"},
      {"lognormal:5e-324:1:4", "MEAN '5e-324' is"},  // a denormal (or out of range)
      {"lognormal:0.5:1:4", "MEAN '0.5' is below the physical range [1, 2147483647] tokens"},
      {"lognormal:1e308:1:4", "MEAN '1e308' is above"},
      {"lognormal:0x10:1:4", "MEAN expected a number in tokens, got '0x10'"},
      {"lognormal:4000:nan:4", "SIGMA 'nan' is not a finite number"},
      {"lognormal:4000:-1:4", "SIGMA '-1' is below"},
      {"lognormal:4000:3.5:4", "SIGMA '3.5' is above"},  // the median would be 0.2 % of MEAN
      {"lognormal:4000:1e308:4", "SIGMA '1e308' is above"},
      {"lognormal:4000:1e-320:4", "SIGMA '1e-320' is"},
  };
  for (const Case& c : cases) {
    auto s = parse_synthetic_spec(c.spec);
    if (c.message == nullptr) {
      EXPECT_TRUE(s.ok()) << c.spec << ": " << s.error().message;
      continue;
    }
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_NE(s.error().message.find(c.message), std::string::npos)
        << c.spec << ": " << s.error().message;
  }
}

TEST(Synthetic, CountIsCappedAt2To24) {
  EXPECT_TRUE(parse_synthetic_spec("lognormal:100:1:16777216").ok());
  auto over = parse_synthetic_spec("lognormal:100:1:16777217");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("[1, 2^24 = 16777216]"), std::string::npos)
      << over.error().message;
  EXPECT_FALSE(parse_synthetic_spec("lognormal:100:1:4294967296").ok());
}

TEST(Synthetic, DeterministicClippedAndNearTheMean) {
  SyntheticSpec spec{1024, 1.0, 20000, 8192};
  const auto a = synthetic_lengths(spec, 7);
  EXPECT_EQ(a, synthetic_lengths(spec, 7));
  EXPECT_NE(a, synthetic_lengths(spec, 8));
  ASSERT_EQ(a.size(), 20000u);
  for (int64_t x : a) {
    ASSERT_GE(x, 1);
    ASSERT_LE(x, 8192);
  }
  SyntheticSpec unclipped{1024, 0.5, 20000, 0};
  const auto b = synthetic_lengths(unclipped, 3);
  const double mean = std::accumulate(b.begin(), b.end(), 0.0) / static_cast<double>(b.size());
  EXPECT_NEAR(mean, 1024, 30);  // truncation to integers lowers it by ~0.5
}

}  // namespace
}  // namespace hcp::dcp
