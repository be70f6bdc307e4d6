#include "stepdoctor/importers/chrome/utf8_repair.h"

#include <gtest/gtest.h>

#include <string>

namespace stepdoctor::chrome {
namespace {

std::string Repaired(std::string_view in, size_t* n = nullptr) {
  std::string out;
  size_t k = RepairUtf8(in, &out);
  if (n) *n = k;
  return out;
}

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8Repair, ValidTextIsUnchanged) {
  size_t n = 9;
  EXPECT_EQ(Repaired("plain ascii, \xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80", &n), "plain ascii, \xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80");
  EXPECT_EQ(n, 0u);
}

// Each maximal invalid subpart becomes one U+FFFD (the Unicode practice browsers follow).
TEST(Utf8Repair, MaximalSubpartsBecomeOneReplacementEach) {
  size_t n = 0;
  EXPECT_EQ(Repaired("a\xFF" "b", &n), "a" + kFffd + "b");
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Repaired("\xE2\x82(", &n), kFffd + "(");          // a cut 3-byte sequence: one
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Repaired("\xC0\xAF", &n), kFffd + kFffd);         // overlong: each byte
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(Repaired("\xED\xA0\x80", &n), kFffd + kFffd + kFffd);  // a UTF-16 surrogate
  EXPECT_EQ(Repaired("\xF0\x9F\x98", &n), kFffd);               // cut at the end
  EXPECT_EQ(Repaired("\xF4\x90\x80\x80", &n), kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
}

}  // namespace
}  // namespace stepdoctor::chrome
