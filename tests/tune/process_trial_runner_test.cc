// The real trial runner on small shell jobs: values read as printed, the setting's environment
// applied, a crash reported with its last line, and a run past its limit stopped with
// everything it started (its own process group).
#include "stepdoctor/tune/process_trial_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <thread>

#include "cli/cli_fixture.h"

namespace stepdoctor::tune {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

ProcessTrialRunner Runner(const std::string& pattern, int64_t warmup = 0, int64_t steps = 0) {
  MetricSpec m;
  m.pattern = pattern;
  m.warmup_steps = warmup;
  m.steps = steps;
  EXPECT_TRUE(ValidateMetric(&m).ok());
  ProcessRunnerOptions o;
  o.kill_grace_ns = kSecond / 2;
  return ProcessTrialRunner(m, o);
}

TrialSpec Shell(const std::string& script, std::vector<std::pair<std::string, std::string>> env = {}) {
  TrialSpec s;
  s.argv = {"sh", "-c", script};
  s.env = std::move(env);
  return s;
}

TEST(TuneProcess, ReadsPrintedValuesWithTheSettingsEnvironment) {
  auto runner = Runner("rate ([0-9]+)", 1);
  TrialRun r = runner.Run(Shell("for i in 1 2 3; do echo \"rate $((i * X))\"; done", {{"X", "10"}}), 10 * kSecond);
  EXPECT_EQ(r.failure, "");
  EXPECT_TRUE(r.measured);
  EXPECT_DOUBLE_EQ(r.throughput, 25.0);  // 20 and 30 after one warm-up value
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.stopped);
}

TEST(TuneProcess, ACrashIsReportedWithItsLastLine) {
  auto runner = Runner("rate ([0-9]+)");
  TrialRun r = runner.Run(Shell("echo 'rate 5'; echo 'boom: out of memory' >&2; exit 3"), 10 * kSecond);
  EXPECT_EQ(r.failure, "exited with 3: boom: out of memory");
  TrialRun missing = runner.Run({{"/nonexistent/tune-cmd"}, {}, {}, {}}, 10 * kSecond);
  EXPECT_NE(missing.failure.find("exited with 127: stepdoctor: cannot run /nonexistent/tune-cmd"), std::string::npos)
      << missing.failure;
  TrialRun silent = runner.Run(Shell("echo nothing"), 10 * kSecond);
  EXPECT_EQ(silent.failure, "no line matched --metric");
}

bool Gone(pid_t pid) {
  // Killed and reaped, or a zombie not reaped yet by whoever inherited it.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
}

TEST(TuneProcess, ARunPastItsLimitIsStoppedWithEverythingItStarted) {
  std::string dir = stepdoctor::testing::FreshTempDir("sd_tune_group");
  auto runner = Runner("rate ([0-9]+)");
  // A background sleeper that ignores SIGTERM, and a loop that never ends.
  TrialRun r = runner.Run(Shell("(trap '' TERM; exec sleep 60) & echo $! > " + dir +
                                "/pid; while true; do echo 'rate 7'; sleep 0.05; done"),
                          kSecond);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.failure, "");  // measured before the limit: a usable run
  EXPECT_DOUBLE_EQ(r.throughput, 7.0);
  EXPECT_GE(r.wall_ns, kSecond);
  EXPECT_LT(r.wall_ns, kSecond + runner.KillGraceNs() + kSecond / 2);
  pid_t sleeper = 0;
  std::ifstream(dir + "/pid") >> sleeper;
  ASSERT_GT(sleeper, 0);
  for (int i = 0; i < 50 && !Gone(sleeper); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(Gone(sleeper)) << "pid " << sleeper << " outlived its trial";
}

TEST(TuneProcess, EnoughStepsStopTheRunEarly) {
  auto runner = Runner("^step", 1, 5);
  TrialRun r = runner.Run(Shell("while true; do echo step; sleep 0.02; done"), 20 * kSecond);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.failure, "");
  EXPECT_GE(r.steps, 5);
  EXPECT_LT(r.wall_ns, 5 * kSecond);
  EXPECT_GT(r.throughput, 1.0);  // about 40 per second; a loaded machine is slower
}

TEST(TuneProcess, NothingMeasuredBeforeTheLimitIsAFailure) {
  auto runner = Runner("rate ([0-9]+)");
  TrialRun r = runner.Run(Shell("sleep 30"), kSecond / 2);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.failure, "stopped at its time limit (0.5 s): no line matched --metric");
}

}  // namespace
}  // namespace stepdoctor::tune
