#include "stepdoctor/importers/chrome/json_value_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace stepdoctor::chrome {
namespace {

size_t Scan(const std::string& s, bool eof = false) { return ScanValueEnd(s.data(), 0, s.size(), eof); }

TEST(JsonValueScan, ObjectsArraysAndStrings) {
  EXPECT_EQ(Scan("{}"), 2u);
  EXPECT_EQ(Scan("{\"a\":[1,2,{\"b\":3}]} ,"), 19u);
  EXPECT_EQ(Scan("[1,[2,[3]]]x"), 11u);
  EXPECT_EQ(Scan("\"abc\" "), 5u);
  EXPECT_EQ(Scan("123,"), 3u);
  EXPECT_EQ(Scan("true]"), 4u);
}

TEST(JsonValueScan, BracesInsideStringsDoNotCount) {
  std::string s = "{\"name\":\"a}b{c]d[\",\"x\":1}";
  EXPECT_EQ(Scan(s), s.size());
}

TEST(JsonValueScan, EscapedQuotesAndBackslashes) {
  std::string s = R"({"n":"say \"}\" and \\","m":"\\\"{"})";
  EXPECT_EQ(Scan(s), s.size());
}

// An escape that straddles the 16-byte blocks of the SIMD scanner, at every offset.
TEST(JsonValueScan, EscapeAtEveryBlockOffset) {
  for (int pad = 0; pad < 40; ++pad) {
    std::string s = "{\"k\":\"" + std::string(pad, 'x') + "\\\"}\\\\\"}";
    EXPECT_EQ(Scan(s + "   ,{}"), s.size()) << "pad " << pad;
  }
}

TEST(JsonValueScan, IncompleteValues) {
  EXPECT_EQ(Scan("{\"a\":[1,2"), kIncomplete);
  EXPECT_EQ(Scan("{\"a\":\"}"), kIncomplete);  // the brace is inside an unterminated string
  EXPECT_EQ(Scan("\"abc"), kIncomplete);
  EXPECT_EQ(Scan("123"), kIncomplete);          // more digits may follow
  EXPECT_EQ(Scan("123", /*eof=*/true), 3u);
}

// A value scanned in two pieces, split at every byte, ends where the one-piece scan says.
TEST(JsonValueScan, ResumesAcrossEverySplit) {
  const std::string values[] = {
      R"({"k":"a\"}]","l":[1,{"m":"\\"}],"n":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"{"} ,)",
      R"("a string with \" and \\ and {[ inside, long enough to cross blocks" ,)",
  };
  for (const std::string& s : values) {
    size_t whole = Scan(s);
    ASSERT_NE(whole, kIncomplete);
    for (size_t cut = 1; cut < whole; ++cut) {
      ValueScanState st;
      ASSERT_EQ(ScanValueResume(s.data(), 0, cut, &st), kIncomplete) << "cut " << cut;
      EXPECT_EQ(ScanValueResume(s.data(), cut, s.size(), &st), whole) << "cut " << cut;
    }
  }
}

// The byte-at-a-time rule the block scanner must follow exactly, invalid JSON included (a
// backslash outside a string escapes nothing).
size_t ReferenceEnd(const std::string& s) {
  int depth = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i == 0) {
      if (c == '"') in_string = true;
      else ++depth;
    } else if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return kIncomplete;
}

// Random texts of the bytes that matter, long enough for several 64-byte blocks, whole and
// split at random points: the same ends as the reference.
TEST(JsonValueScan, BlocksAgreeWithTheByteRuleOnRandomText) {
  std::mt19937 rng(5);
  const char alphabet[] = "{}[]\"\\\"ab,: {{[[\"\"";
  for (int round = 0; round < 3000; ++round) {
    std::string s(1, "{[\""[round % 3]);
    const size_t n = std::uniform_int_distribution<size_t>(1, 400)(rng);
    // Mostly plain bytes, so values reach past a block; fewer backslashes in some rounds.
    const int plain = std::uniform_int_distribution<int>(0, 12)(rng);
    for (size_t k = 0; k < n; ++k) {
      if (std::uniform_int_distribution<int>(0, 12)(rng) < plain) s += 'x';
      else s += alphabet[std::uniform_int_distribution<size_t>(0, sizeof(alphabet) - 2)(rng)];
    }
    const size_t want = ReferenceEnd(s);
    ValueScanState st;
    EXPECT_EQ(ScanValueResume(s.data(), 0, s.size(), &st), want) << s;
    const size_t cut = std::uniform_int_distribution<size_t>(1, s.size())(rng);
    ValueScanState a;
    size_t first = ScanValueResume(s.data(), 0, cut, &a);
    if (want != kIncomplete && want <= cut) {
      EXPECT_EQ(first, want) << s << " cut " << cut;
    } else {
      ASSERT_EQ(first, kIncomplete) << s << " cut " << cut;
      EXPECT_EQ(ScanValueResume(s.data(), cut, s.size(), &a), want) << s << " cut " << cut;
    }
    if (HasFailure()) break;
  }
}

// Values over the limit that are not strings become null, in the event and in its args; strings,
// small values and everything else are copied as they are.
std::string Slim(std::string json, size_t max) {
  const size_t n = json.size();
  json.append(64, ' ');  // the readable bytes the scan may look at
  std::string out = "unchanged";
  const size_t replaced = CopyWithoutLargeValues(json.data(), n, max, &out);
  return std::to_string(replaced) + ":" + out;
}

TEST(CopyWithoutLargeValues, ReplacesLargeContainersOnly) {
  EXPECT_EQ(Slim(R"({"name":"a","args":{"x":[1,2,3,4,5],"s":"long string","y":[1]}})", 6),
            R"(1:{"name":"a","args":{"x":null,"s":"long string","y":[1]}})");
  EXPECT_EQ(Slim(R"({"big":{"k":[1,2,3]}, "ts":1})", 4), R"(1:{"big":null, "ts":1})");
  // Nested deeper than args: the whole args value is one value of args.
  EXPECT_EQ(Slim(R"({"args":{"x":{"y":[[[[]]]]}}})", 8), R"(1:{"args":{"x":null}})");
  EXPECT_EQ(Slim(R"({"args":{"a":[[[]]],"b":[[[]]]}})", 4), R"(2:{"args":{"a":null,"b":null}})");
  // Escaped quotes inside keys and strings do not end them early.
  EXPECT_EQ(Slim(R"({"k\"":"v\"","args":{"q\"x":[1,2,3,4]}})", 4), R"(1:{"k\"":"v\"","args":{"q\"x":null}})");
}

TEST(CopyWithoutLargeValues, NothingToReplaceOrUnfollowableLeavesTheOutputAlone) {
  EXPECT_EQ(Slim(R"({"name":"a","args":{"x":[1]}})", 64), "0:unchanged");
  EXPECT_EQ(Slim(R"({"name":"a long string value here"})", 4), "0:unchanged");
  EXPECT_EQ(Slim(R"([1,2,3,4,5,6])", 2), "0:unchanged");            // not an object
  EXPECT_EQ(Slim(R"({"a" [1,2,3,4,5]})", 2), "0:unchanged");        // no colon
  EXPECT_EQ(Slim(R"({"a":[1,2,3,4,5],"b":[1,2,3)", 2), "0:unchanged");  // cut short
}

}  // namespace
}  // namespace stepdoctor::chrome
