// The progress bar: drawn on stderr only when it is a terminal (util-linux `script` gives the
// command one), only after the delay, and cleared at the end.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>

#include "cli_fixture.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// What the CLI drew on the terminal's stderr: stdout goes to /dev/null inside the terminal.
// (testing::UnderTerminal sets TERM itself: under the caller's TERM=dumb the bar is rightly not
// drawn, and the test must not depend on who runs it.)
std::string UnderTerminal(const std::string& env, const std::string& args) {
  return testing::UnderTerminal(env, args + " >/dev/null");
}

const char* kInput = "diagnose examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz";

TEST(Progress, DrawnOnATerminalAndCleared) {
  if (::access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "util-linux script is not installed";
  std::string drawn = UnderTerminal("STEPDOCTOR_PROGRESS_DELAY_MS=0", kInput);
  EXPECT_NE(drawn.find("reading "), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("workers0.pt.trace.json.gz"), std::string::npos) << drawn;  // shortened to fit
  EXPECT_NE(drawn.find("%"), std::string::npos);
  // The last thing written clears the line, so the report starts on a clean one.
  ASSERT_GE(drawn.size(), 4u);
  EXPECT_EQ(drawn.substr(drawn.size() - 4), "\r\033[K");
}

TEST(Progress, NothingBeforeTheDelay) {
  if (::access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "util-linux script is not installed";
  // A delay no test machine reaches (the default is 1 s: quick inputs draw nothing).
  EXPECT_EQ(UnderTerminal("STEPDOCTOR_PROGRESS_DELAY_MS=600000", kInput), "");
}

TEST(Progress, NothingOnADumbTerminal) {
  if (::access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "util-linux script is not installed";
  EXPECT_EQ(UnderTerminal("TERM=dumb STEPDOCTOR_PROGRESS_DELAY_MS=0", kInput), "");
}

TEST(Progress, NothingWhenNotATerminal) {
  auto r = testing::RunCli(kInput, "STEPDOCTOR_PROGRESS_DELAY_MS=0");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace stepdoctor
