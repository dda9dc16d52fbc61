#include <gtest/gtest.h>

#include "hcp/edit_distance.h"
#include "hcp/value.h"
#include "hcp/version.h"

namespace hcp {
namespace {

TEST(Version, ParsesPrefixesAndSuffixes) {
  auto v = Version::parse("core_v0.17.0");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 0);
  EXPECT_EQ(v->minor, 17);
  auto te = Version::parse("2.20.0.dev0+abc");
  ASSERT_TRUE(te);
  EXPECT_EQ(te->patch, 0);
  EXPECT_EQ(te->suffix, ".dev0+abc");
  EXPECT_EQ(*Version::parse("1.12"), *Version::parse("1.12.0"));
  EXPECT_LT(*Version::parse("1.9.9"), *Version::parse("1.10"));
}

TEST(Version, RejectsText) {
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("abc"));
  EXPECT_FALSE(Version::parse("v"));
  EXPECT_FALSE(Version::parse("99999999999"));
}

TEST(EditDistance, ClassicCases) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("same", "same"), 0);
  EXPECT_GT(edit_distance("aaaaaaaa", "bbbbbbbb", 2), 2);
}

TEST(EditDistance, ClosestMatchSuggestsNearKeysOnly) {
  std::vector<std::string> keys = {"context_parallel_size", "tensor_model_parallel_size"};
  EXPECT_EQ(closest_match("context_paralel_size", keys), "context_parallel_size");
  EXPECT_EQ(closest_match("vocab", keys), "");
  // Distances count characters: two Cyrillic 'О' (two bytes each) for "00" are two substitutions.
  EXPECT_EQ(closest_match("dgx-h1\xD0\x9E\xD0\x9E", {"dgx-a100", "dgx-h100"}), "dgx-h100");
  EXPECT_EQ(closest_match("\xD0\x9E\xD0\x9E\xD0\x9E", {"abc"}), "");
}

struct DidYouMeanCase {
  const char* name;
  std::string word;
  std::string suggestion;
  std::string note;
};

TEST(EditDistance, DidYouMeanNamesTheCharacterTheEyeCannotTellApart) {
  const std::vector<DidYouMeanCase> cases = {
      {"no suggestion", "vocab", "", ""},
      {"a typo in ASCII", "context_paralel_size", "context_parallel_size",
       " (did you mean 'context_parallel_size'?)"},
      {"Cyrillic a", "context_p\xD0\xB0rallel_size", "context_parallel_size",
       " (did you mean 'context_parallel_size'? character 10 of it is U+0430, not ASCII)"},
      {"zero-width space at the end", "cp\xE2\x80\x8B", "cp",
       " (did you mean 'cp'? character 3 of it is U+200B, not ASCII)"},
      {"full-width digit", "dgx-h\xEF\xBC\x91\xEF\xBC\x90\xEF\xBC\x90", "dgx-h100",
       " (did you mean 'dgx-h100'? character 6 of it is U+FF11, not ASCII)"},
      {"tag character", "mlm\xF3\xA0\x81\x81", "mlm",
       " (did you mean 'mlm'? character 4 of it is U+E0041, not ASCII)"},
      {"an invalid byte", "cp\xFF", "cp",
       " (did you mean 'cp'? character 3 of it is U+FFFD, not ASCII)"},
      {"the suggestion is not ASCII either",
       "gr\xC3\xBC\xC3\x9F"
       "e",
       "gr\xC3\xBC\xC3\x9F", " (did you mean 'gr\xC3\xBC\xC3\x9F'?)"},
  };
  for (const DidYouMeanCase& c : cases)
    EXPECT_EQ(did_you_mean(c.word, c.suggestion), c.note) << c.name;
}

TEST(EditDistance, FirstNonAsciiCountsCharactersNotBytes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"context_parallel_size", ""},
      {"\xE2\x88\x92"
       "4",
       "character 1 of it is U+2212, not ASCII"},                          // minus sign
      {"\xC3\xA9\xE2\x80\x8B", "character 1 of it is U+00E9, not ASCII"},  // the first one
      {"ab\xFF", "character 3 of it is U+FFFD, not ASCII"},                // a stray byte
  };
  for (const auto& [text, note] : cases)
    EXPECT_EQ(first_non_ascii(text), note) << text;
}

TEST(EditDistance, BoundedSearchKeepsTheExactAnswer) {
  // Within the bound the distance is exact; beyond it, bound + 1 (also past a long word that
  // does not fit the stack row).
  EXPECT_EQ(edit_distance("kitten", "sitting", 3), 3);
  EXPECT_EQ(edit_distance("kitten", "sitting", 2), 3);
  EXPECT_EQ(edit_distance("ab", "abcdefgh", 3), 4);
  std::string long_a(300, 'x'), long_b(300, 'x');
  long_b[150] = 'y';
  EXPECT_EQ(edit_distance(long_a, long_b), 1);
  EXPECT_EQ(edit_distance(long_a, long_b + "zz", 5), 3);
  // The first of equally close candidates wins; an exact match beats an earlier near one.
  EXPECT_EQ(closest_match("abcx", {"abcd", "abce", "abcf"}), "abcd");
  EXPECT_EQ(closest_match("seq_length", {"seq_lengths", "seq_length", "seq_lenth"}), "seq_length");
  EXPECT_EQ(closest_match("seq_lenght", {"xx", "seq_len", "seq_length"}), "seq_length");
}

TEST(EditDistance, ClosestMatchAgreesWithAPlainSearch) {
  // The pruned search (length and letter bounds, shrinking limit) picks what an unpruned one
  // picks: the first candidate of least distance within the limit.
  auto plain = [](const std::string& word, const std::vector<std::string>& candidates) {
    int limit = std::max(2, static_cast<int>(word.size()) / 3);
    std::string best;
    int best_distance = limit + 1;
    for (const auto& c : candidates) {
      int d = edit_distance(word, c);
      if (d < best_distance) {
        best_distance = d;
        best = c;
      }
    }
    return best;
  };
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u, (state >> 16) & 0x7fff; };
  auto random_word = [&] {
    std::string w(3 + next() % 12, 'a');
    for (char& ch : w)
      ch = "abcde_"[next() % 6];
    return w;
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> candidates;
    candidates.reserve(20);
    for (int i = 0; i < 20; ++i)
      candidates.push_back(random_word());
    std::string word = random_word();
    EXPECT_EQ(closest_match(word, candidates), plain(word, candidates)) << word;
  }
}

TEST(Value, MapSetGetErase) {
  Value m = Value::map();
  m.set("a", Value::integer(1));
  m.set("b", Value::string("x"));
  m.set("a", Value::integer(2));
  ASSERT_NE(m.get("a"), nullptr);
  EXPECT_EQ(m.get("a")->as_int(), 2);
  EXPECT_EQ(m.entries().size(), 2u);
  EXPECT_TRUE(m.erase("a"));
  EXPECT_FALSE(m.erase("a"));
  EXPECT_EQ(m.str(), "{b: x}");
}

TEST(Value, FlowNotation) {
  Value l = Value::list({Value::integer(2), Value::integer(2)});
  EXPECT_EQ(l.str(), "[2, 2]");
  EXPECT_EQ(Value::null().str(), "null");
  EXPECT_EQ(Value::boolean(true).str(), "true");
  EXPECT_TRUE(l == Value::list({Value::integer(2), Value::integer(2)}));
  EXPECT_FALSE(l == Value::list({Value::integer(2)}));
}

}  // namespace
}  // namespace hcp
