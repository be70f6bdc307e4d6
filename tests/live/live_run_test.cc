// Real child processes under the live sampler: a CPU burner, an I/O-heavy child, an idle child
// and a shell that forks workers, each classified; and `stepdoctor run`/`watch` end to end:
// exit codes, signals, exec failures. Each child runs ~2 s at a 100 ms interval; assertions are
// on clear-cut differences so a loaded 2-core machine still passes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/live/child_process.h"
#include "stepdoctor/live/live_session.h"
#include "stepdoctor/live/samples_writer.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("sd_live_" + std::to_string(getpid()) + "_" + name)).string();
}

struct Observed {
  int exit_code = -1;
  Trace trace;
  std::unique_ptr<ResourceSignals> signals;
  double Max(const std::string& series) const {
    double m = -1;
    for (const auto& c : trace.counters)
      if (c.name == series)
        for (double v : c.value) m = std::max(m, v);
    return m;
  }
};

Observed RunChild(const std::vector<std::string>& argv) {
  Observed o;
  std::string out = TempPath("samples.jsonl");
  auto pid = live::SpawnChild(argv);
  EXPECT_TRUE(pid.ok());
  if (!pid.ok()) return o;
  live::LiveSessionOptions so;
  so.interval_ns = 100000000;
  so.child_pid = *pid;
  so.gpus = false;
  std::remove(out.c_str());
  {
    auto w = live::SamplesWriter::Create(out, live::SamplesPathMode::kExact);
    EXPECT_TRUE(w.ok()) << w.message();
    if (!w.ok()) return o;
    live::RunLiveSession(*pid, **w, so, [&] { return o.exit_code = live::ReapChild(*pid); });
  }
  auto imported = ImportPaths({out});
  EXPECT_TRUE(imported.ok()) << imported.message();
  std::remove(out.c_str());
  if (!imported.ok()) return o;
  o.trace = std::move(imported->trace);
  o.signals = ComputeResourceSignals(o.trace);
  return o;
}

// Busy loops for about 2 s, one per core (up to 4): the job wants the whole machine.
std::string Burners(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "timeout 2 sh -c 'while :; do :; done' & ";
  return s + "wait";
}
int Cores() { return std::clamp(int(sysconf(_SC_NPROCESSORS_ONLN)), 1, 4); }

TEST(LiveRun, CpuBurningChildIsCpuBound) {
  Observed o = RunChild({"sh", "-c", Burners(Cores())});
  ASSERT_NE(o.signals, nullptr);
  // Time on a CPU plus time waiting for one: what the job wanted, whatever else runs here.
  EXPECT_GT(o.signals->tree_cpu_demand_pct.value_or(0), 60.0 * Cores()) << o.signals->tree_cpu_mean_pct.value_or(-1);
  EXPECT_EQ(o.signals->classification, ResourceClass::kCpuBound)
      << ResourceClassName(o.signals->classification);
}

TEST(LiveRun, SerialChildWithoutGpuIsNotInputBound) {
  // One busy thread and no GPU samples: nothing shows a device starving, so whether the other
  // cores idle (serial_cpu_pipeline) or other builds hold them (cpu_saturated), the job is
  // CPU-bound, never input-bound.
  Observed o = RunChild({"sh", "-c", Burners(1)});
  ASSERT_NE(o.signals, nullptr);
  EXPECT_FALSE(o.signals->gpu_util_mean_pct.has_value());  // no GPU series
  Report r = AnalyzeTrace(o.trace);
  EXPECT_NE(r.verdict.bottleneck, Bottleneck::kInput) << r.verdict.summary;
  for (const auto& f : r.findings) EXPECT_NE(f.id, "gpu_starved_cpu_bound");
}

TEST(LiveRun, ChildThatForksWorkersIsFullyCounted) {
  // The shell itself sleeps in `wait`: all the CPU is in its two background children.
  Observed o = RunChild({"sh", "-c", Burners(2)});
  ASSERT_NE(o.signals, nullptr);
  EXPECT_GE(o.Max("proc_count"), 3);  // sh + 2 workers (+ timeout processes)
  EXPECT_GT(o.signals->tree_cpu_demand_pct.value_or(0), 120) << "workers' CPU not counted";
}

TEST(LiveRun, IoHeavyChildIsStorageBound) {
  std::string f = TempPath("io.bin");
  // Large direct writes with fsync, then direct reads of the file: the disk, not the page cache.
  std::string script = "end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do "
                       "dd if=/dev/zero of=" + f + " bs=1M count=32 oflag=direct conv=fsync 2>/dev/null; "
                       "dd if=" + f + " of=/dev/null bs=1M iflag=direct 2>/dev/null; done; rm -f " + f;
  Observed o = RunChild({"sh", "-c", script});
  ASSERT_NE(o.signals, nullptr);
  EXPECT_GT(o.signals->tree_read_bytes_per_s.value_or(0) + o.signals->tree_write_bytes_per_s.value_or(0), 5e6);
  EXPECT_EQ(o.signals->classification, ResourceClass::kStorageBound)
      << ResourceClassName(o.signals->classification) << " cpu " << o.signals->tree_cpu_demand_pct.value_or(-1);
}

TEST(LiveRun, IdleChildIsIdle) {
  Observed o = RunChild({"sleep", "1.5"});
  ASSERT_NE(o.signals, nullptr);
  ASSERT_TRUE(o.signals->tree_cpu_mean_pct.has_value());
  EXPECT_LT(*o.signals->tree_cpu_mean_pct, 5);
  EXPECT_EQ(o.signals->classification, ResourceClass::kIdle) << ResourceClassName(o.signals->classification);
  EXPECT_EQ(o.exit_code, 0);
}

// A fresh --out each time: run never overwrites a samples file.
std::string RunFlags() {
  std::remove(TempPath("cli.jsonl").c_str());
  return "run --no-gpu --interval 100ms --out " + TempPath("cli.jsonl") + " -- ";
}

TEST(LiveRun, CliReturnsTheChildsExitCode) {
  auto r = testing::RunCli(RunFlags() + "sh -c 'exit 7'");
  EXPECT_EQ(r.exit_code, 7) << r.err;
  r = testing::RunCli(RunFlags() + "true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::remove(TempPath("cli.jsonl").c_str());
}

TEST(LiveRun, CliReportsDeathBySignalAs128PlusSignal) {
  auto r = testing::RunCli(RunFlags() + "sh -c 'kill -KILL $$'");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  std::remove(TempPath("cli.jsonl").c_str());
}

TEST(LiveRun, CliCommandThatCannotRunExits127) {
  auto r = testing::RunCli(RunFlags() + "/nonexistent/train.py");
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run /nonexistent/train.py"), std::string::npos) << r.err;
  std::remove(TempPath("cli.jsonl").c_str());
}

TEST(LiveRun, CliForwardsSigtermToTheChild) {
  // stepdoctor gets SIGTERM; it forwards it, the child dies of it, the report still prints.
  std::string out = TempPath("term.jsonl");
  std::string cmd = std::string("( ") + STEPDOCTOR_CLI_PATH + " " + RunFlags() +
                    "sleep 30 >/dev/null 2>&1 & p=$!; sleep 0.7; kill -TERM $p; wait $p; echo rc=$? )";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe)) text += buf;
  ::pclose(pipe);
  EXPECT_NE(text.find("rc=143"), std::string::npos) << text;
  std::remove(TempPath("cli.jsonl").c_str());
}

TEST(LiveRun, WatchAttachesToARunningProcess) {
  auto pid = live::SpawnChild({"sleep", "3"});
  ASSERT_TRUE(pid.ok());
  std::string out = TempPath("watch.jsonl");
  auto r = testing::RunCli("watch " + std::to_string(*pid) + " --no-gpu --duration 1s --interval 100ms --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("idle"), std::string::npos) << r.out;
  ::kill(pid_t(*pid), SIGTERM);
  live::ReapChild(*pid);
  auto bad = testing::RunCli("watch 999999999 --no-gpu --duration 1s");
  EXPECT_EQ(bad.exit_code, 2);
  std::remove(out.c_str());
}

}  // namespace
}  // namespace stepdoctor
