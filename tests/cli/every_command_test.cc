// What every command owes its user: an unusable input is one line on stderr naming the file
// and the reason, with exit status 2; --quiet (-q) keeps stderr for errors; NO_COLOR turns
// colour off on a terminal.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "cli/cli_fixture.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::RunCli;

constexpr const char* kExample = "examples/dataloader_input_bound.pt.trace.json.gz";

std::string GarbageFile() {
  std::string p = testing::FreshTempDir("sd_garbage") + "/garbage.json";
  std::ofstream(p, std::ios::binary) << std::string("\x00\x01\x02garbage\xff\xfe", 12);
  return p;
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// One line, naming `file` and saying why, exit 2.
void ExpectFileError(const std::string& args, const std::string& file, const std::string& reason) {
  SCOPED_TRACE(args);
  auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("stepdoctor: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
}

const char* const kMissing = "/nonexistent/trace.json";
const char* const kNoSuchFile = "no such file";
const char* const kNotAFormat = "not a format stepdoctor reads";

TEST(EveryCommand, ReadingCommandsNameAMissingOrGarbageFile) {
  std::string garbage = GarbageFile();
  for (const char* cmd : {"diagnose", "inspect", "scalars"}) {
    ExpectFileError(std::string(cmd) + " " + kMissing, kMissing, kNoSuchFile);
    ExpectFileError(std::string(cmd) + " " + garbage, garbage, kNotAFormat);
  }
  ExpectFileError(std::string("diff ") + kMissing + " " + kExample, kMissing, kNoSuchFile);
  ExpectFileError(std::string("diff ") + kExample + " " + garbage, garbage, kNotAFormat);
}

TEST(EveryCommand, LiveCommandsNameASamplesFileTheyCannotWrite) {
  const std::string out = "/nonexistent/dir/samples.jsonl";
  ExpectFileError("run --no-gpu --out " + out + " -- true", out, "cannot write the samples file: No such file");
  // watch checks the process first, then the file (stepdoctor itself is a process to watch).
  ExpectFileError("watch --no-gpu --duration 1s --out " + out + " $$", out, "cannot write the samples file");
  auto r = RunCli("watch --no-gpu 999999999");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "stepdoctor: no process 999999999\n");
}

// run keeps its job's exit status (docs/live.md); a logdir it cannot read is one line naming it,
// and the samples are still diagnosed.
TEST(EveryCommand, RunWithAnUnreadableLogdirStillDiagnosesTheSamples) {
  std::string dir = testing::FreshTempDir("sd_run_logdir");
  std::string garbage = GarbageFile();
  auto r = RunCli("run -q --no-gpu --interval 100ms --out " + dir + "/s.jsonl --logdir " + garbage + " -- sleep 0.3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(garbage), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; diagnosing " + dir + "/s.jsonl alone"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Coverage:"), std::string::npos) << r.out;
}

TEST(EveryCommand, QuietIsAcceptedEverywhere) {
  for (const char* cmd : {"diagnose", "diff", "inspect", "run", "scalars", "tune", "watch"}) {
    auto help = RunCli(std::string(cmd) + " --help");
    EXPECT_NE(help.out.find("-q,--quiet"), std::string::npos) << cmd << "\n" << help.out;
  }
}

TEST(EveryCommand, QuietDropsTheRunSummaryLineButNotErrors) {
  std::string dir = testing::FreshTempDir("sd_quiet");
  auto loud = RunCli("run --no-gpu --interval 100ms --out " + dir + "/a.jsonl -- sleep 0.3");
  EXPECT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_NE(loud.err.find(" samples in "), std::string::npos) << loud.err;
  auto quiet = RunCli("run -q --no-gpu --interval 100ms --out " + dir + "/b.jsonl -- sleep 0.3");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_NE(quiet.out.find("Coverage:"), std::string::npos) << "the diagnosis is still printed:\n" << quiet.out;
  ExpectFileError(std::string("diagnose --quiet ") + kMissing, kMissing, kNoSuchFile);
}

TEST(EveryCommand, QuietDrawsNoProgressOnATerminal) {
  if (!testing::HaveScript()) GTEST_SKIP() << "util-linux script is not installed";
  std::string args = std::string(" examples/gpu/gpu_dataloader_workers0.pt.trace.json.gz >/dev/null");
  for (const char* cmd : {"diagnose", "inspect"}) {
    SCOPED_TRACE(cmd);
    EXPECT_NE(testing::UnderTerminal("STEPDOCTOR_PROGRESS_DELAY_MS=0", cmd + args).find("reading "), std::string::npos);
    EXPECT_EQ(testing::UnderTerminal("STEPDOCTOR_PROGRESS_DELAY_MS=0", std::string(cmd) + " -q" + args), "");
  }
}

TEST(EveryCommand, NoColorTurnsColourOffOnATerminal) {
  if (!testing::HaveScript()) GTEST_SKIP() << "util-linux script is not installed";
  // The text report colours its verdict and severities on a terminal.
  std::string coloured = testing::UnderTerminal("env -u NO_COLOR", std::string("diagnose -q ") + kExample);
  EXPECT_NE(coloured.find("\x1b[1m"), std::string::npos) << coloured.substr(0, 200);
  std::string plain = testing::UnderTerminal("NO_COLOR=1", std::string("diagnose -q ") + kExample);
  EXPECT_EQ(plain.find("\x1b["), std::string::npos) << plain.substr(0, 200);
  EXPECT_NE(plain.find("input-bound"), std::string::npos) << plain.substr(0, 200);
}

}  // namespace
}  // namespace stepdoctor
