#include "stepdoctor/importers/chrome/json_value_scan.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace stepdoctor::chrome
