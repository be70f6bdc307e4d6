// README examples are run so they never rot: every "$ stepdoctor ..." line in a code block is
// run from the repository root, and the line shown after it must be the first line printed.
#include <gtest/gtest.h>

#include <sstream>

#include "test_util.h"

namespace stepdoctor {
namespace {

TEST(Readme, ShownCommandsPrintWhatTheReadmeShows) {
  std::string readme = testing::ReadFileOrDie(testing::SourcePath("README.md"));
  std::istringstream in(readme);
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    const std::string prompt = "$ stepdoctor ";
    if (line.rfind(prompt, 0) != 0) continue;
    std::string expected;
    std::getline(in, expected);
    std::string args = line.substr(prompt.size());
    auto r = testing::RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << line << "\n" << r.err;
    std::string first = r.out.substr(0, r.out.find('\n'));
    EXPECT_EQ(first, expected) << "README shows a different first line for: " << line;
    ++checked;
  }
  EXPECT_GE(checked, 1) << "the README shows no stepdoctor command";
}

}  // namespace
}  // namespace stepdoctor
