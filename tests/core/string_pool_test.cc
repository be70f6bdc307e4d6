// StringPool: one id per distinct string, id 0 the empty string, and views that stay valid
// however much the pool grows (importers keep string_views into it).
#include "stepdoctor/core/string_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stepdoctor {
namespace {

TEST(StringPool, EmptyStringIsIdZero) {
  StringPool p;
  EXPECT_EQ(p.Intern("").v, 0u);
  EXPECT_EQ(p.Get(StringId{0}), "");
  EXPECT_EQ(p.size(), 1u);
}

TEST(StringPool, OneIdPerDistinctString) {
  StringPool p;
  StringId a = p.Intern("volta_sgemm");
  StringId b = p.Intern("ProfilerStep#1");
  EXPECT_NE(a, b);
  EXPECT_EQ(p.Intern(std::string("volta_") + "sgemm"), a);  // equal content, another buffer
  EXPECT_EQ(p.Get(a), "volta_sgemm");
  EXPECT_EQ(p.size(), 3u);
  bool found = false;
  EXPECT_EQ(p.Find("ProfilerStep#1", &found), b);
  EXPECT_TRUE(found);
  EXPECT_EQ(p.Find("absent", &found).v, 0u);
  EXPECT_FALSE(found);
  EXPECT_EQ(p.size(), 3u);  // Find never interns
}

TEST(StringPool, ViewsStayValidAsThePoolGrows) {
  StringPool p;
  std::vector<std::pair<StringId, std::string_view>> kept;
  // Small strings fill chunks; a few large ones get chunks of their own.
  for (int i = 0; i < 20000; ++i) {
    std::string s = "name_" + std::to_string(i);
    if (i % 1000 == 0) s += std::string(100000, char('a' + i % 26));
    StringId id = p.Intern(s);
    kept.emplace_back(id, p.Get(id));
  }
  for (int i = 0; i < 20000; i += 997) {
    std::string expect = "name_" + std::to_string(i);
    if (i % 1000 == 0) expect += std::string(100000, char('a' + i % 26));
    EXPECT_EQ(kept[size_t(i)].second, expect);  // the view taken when it was interned
    EXPECT_EQ(p.Get(kept[size_t(i)].first), expect);
  }
  StringPool moved = std::move(p);
  EXPECT_EQ(moved.Get(kept[5].first), "name_5");
  EXPECT_EQ(kept[5].second, "name_5");  // a move keeps the storage
}

TEST(StringPool, EmbeddedNulsAndNonAscii) {
  StringPool p;
  std::string with_nul("a\0b", 3);
  StringId n = p.Intern(with_nul);
  EXPECT_NE(n, p.Intern("a"));
  EXPECT_EQ(p.Get(n).size(), 3u);
  StringId u = p.Intern("décodeur 🙂");
  EXPECT_EQ(p.Get(u), "décodeur 🙂");
}

}  // namespace
}  // namespace stepdoctor
