// README examples are run so they never rot: every "$ stepdoctor ..." line in a code block is
// run from the repository root, and the lines shown after it, up to the end of the block, must
// be what it prints, in order and in full. A line holding only "..." (indented or not) stands
// for lines left out of the README: any number of printed lines, none included.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "test_util.h"

namespace stepdoctor {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

bool IsElision(const std::string& line) {
  size_t i = line.find_first_not_of(' ');
  return i != std::string::npos && line.compare(i, std::string::npos, "...") == 0;
}

// Whether `shown` (with elisions) matches all of `printed`; on a mismatch, says where.
bool Matches(const std::vector<std::string>& shown, size_t s, const std::vector<std::string>& printed, size_t p,
             std::string* why) {
  if (s == shown.size()) {
    if (p == printed.size()) return true;
    *why = "printed more than the README shows, from: " + printed[p];
    return false;
  }
  if (IsElision(shown[s])) {
    for (size_t q = p; q <= printed.size(); ++q)
      if (Matches(shown, s + 1, printed, q, why)) return true;
    return false;
  }
  if (p == printed.size()) {
    *why = "the README shows a line never printed: " + shown[s];
    return false;
  }
  if (shown[s] != printed[p]) {
    *why = "README line:  " + shown[s] + "\nprinted line: " + printed[p];
    return false;
  }
  return Matches(shown, s + 1, printed, p + 1, why);
}

TEST(Readme, ShownCommandsPrintWhatTheReadmeShows) {
  std::vector<std::string> readme = Lines(testing::ReadFileOrDie(testing::SourcePath("README.md")));
  const std::string prompt = "$ stepdoctor ";
  int checked = 0;
  for (size_t i = 0; i < readme.size(); ++i) {
    if (readme[i].rfind(prompt, 0) != 0) continue;
    std::vector<std::string> shown;
    for (size_t j = i + 1; j < readme.size() && readme[j].rfind("```", 0) != 0; ++j) shown.push_back(readme[j]);
    auto r = testing::RunCli(readme[i].substr(prompt.size()));
    ASSERT_EQ(r.exit_code, 0) << readme[i] << "\n" << r.err;
    std::string why;
    EXPECT_TRUE(Matches(shown, 0, Lines(r.out), 0, &why)) << readme[i] << "\n" << why << "\nwhole output:\n" << r.out;
    ++checked;
  }
  EXPECT_GE(checked, 2) << "the README's examples were not found";
}

// The matcher itself, on both sides.
TEST(Readme, ElisionMatchesAnyRunOfLines) {
  std::string why;
  EXPECT_TRUE(Matches({"a", "  ...", "d"}, 0, {"a", "b", "c", "d"}, 0, &why));
  EXPECT_TRUE(Matches({"a", "..."}, 0, {"a"}, 0, &why));
  EXPECT_FALSE(Matches({"a", "d"}, 0, {"a", "b", "d"}, 0, &why));
  EXPECT_FALSE(Matches({"a"}, 0, {"a", "b"}, 0, &why));
  EXPECT_FALSE(Matches({"a", "...", "e"}, 0, {"a", "b", "d"}, 0, &why));
}

}  // namespace
}  // namespace stepdoctor
