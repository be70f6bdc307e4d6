// Every command's report goes to stdout by default: when stdout cannot be written (a full
// disk; /dev/full here) the command says so in one line and exits 2 instead of exiting 0 with
// the report lost.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "test_util.h"

namespace stepdoctor {
namespace {

struct FullResult {
  int exit_code = -1;
  std::string err;
};

// Runs the CLI from the source root with stdout on /dev/full (RunCli captures stdout itself).
FullResult RunToDevFull(const std::string& args) {
  // A file of its own: ctest runs these tests in parallel processes.
  char err_tmpl[] = "/tmp/sd_devfull_err_XXXXXX";
  int fd = mkstemp(err_tmpl);
  if (fd >= 0) close(fd);
  std::string err_path = err_tmpl;
  std::string cmd = std::string("cd '") + STEPDOCTOR_SOURCE_DIR + "' && " + STEPDOCTOR_CLI_PATH + " " + args +
                    " >/dev/full 2>" + err_path + " </dev/null";
  int rc = std::system(cmd.c_str());
  FullResult r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.err = testing::ReadFileOrDie(err_path);
  std::remove(err_path.c_str());
  return r;
}

constexpr const char* kExample = "examples/dataloader_input_bound.pt.trace.json.gz";

void ExpectOneLineStdoutError(const std::string& args) {
  SCOPED_TRACE(args);
  auto r = RunToDevFull(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("stepdoctor: standard output: cannot write"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line:\n" << r.err;
}

TEST(CliOutput, DiagnoseToAFullDiskIsExit2WithOneLine) {
  ExpectOneLineStdoutError(std::string("diagnose ") + kExample);
  ExpectOneLineStdoutError(std::string("diagnose -f json ") + kExample);
}

TEST(CliOutput, ItsOwnOutputFileOnAFullDiskIsExit2Too) {
  auto r = RunToDevFull(std::string("diagnose -o /dev/full ") + kExample);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/dev/full"), std::string::npos) << r.err;
}

TEST(CliOutput, DiffToAFullDiskIsExit2) {
  ExpectOneLineStdoutError(std::string("diff ") + kExample + " " + kExample);
}

TEST(CliOutput, CommandsThatPrintLineByLineAreCheckedToo) {
  ExpectOneLineStdoutError(std::string("inspect ") + kExample);
  ExpectOneLineStdoutError("scalars examples");
  ExpectOneLineStdoutError("--help");
  ExpectOneLineStdoutError("--version");
  ExpectOneLineStdoutError("help-man");
}

TEST(CliOutput, RunReportsTheLostDiagnosisAndKeepsItsJobsStatus) {
  std::string samples = ::testing::TempDir() + "stepdoctor_devfull_run_samples.jsonl";
  // The job's status is run's status (docs/live.md): 3 here, so the exit code tells them apart.
  auto r = RunToDevFull("run --no-gpu --interval 100ms --out " + samples + " -- sh -c 'sleep 0.3; exit 3'");
  std::remove(samples.c_str());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const std::string error = "stepdoctor: standard output: cannot write";
  ASSERT_NE(r.err.find(error), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(error), r.err.rfind(error)) << "reported once:\n" << r.err;
  // The diagnosis's failure is checked and said, though the job's status is returned.
  EXPECT_NE(r.err.find("no diagnosis of " + samples + "; the exit status is the command's (3)"), std::string::npos)
      << r.err;
}

TEST(CliOutput, AWritableStdoutStillExits0) {
  auto r = testing::RunCli(std::string("inspect ") + kExample);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

}  // namespace
}  // namespace stepdoctor
