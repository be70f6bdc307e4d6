// What a GPU log alone concludes where it lacks utilisation, times, or a busy start: GPUs that
// ran nothing (from utilisation, or from memory where there is none), GPUs in use whose
// utilisation was not logged, a start-up stretch reported apart, and logs without times.
// Both sides of each threshold (kUnusedGpuPeakPct, kNoProcessMemBytes, kStartup*, kShortUnusedLog*).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using testing::ImportText;

const Finding* FindIn(const Report& r, const std::string& id) { return testing::FindFinding(r, id); }
std::string EvidenceOf(const Finding& f) { return testing::EvidenceText(f); }

Report Diagnose(const std::string& csv, std::unique_ptr<ResourceSignals>* rs = nullptr) {
  Trace t;
  Status st = ImportText(csv, "gpu.csv", &t);
  EXPECT_TRUE(st.ok()) << st.message();
  if (rs) *rs = ComputeResourceSignals(t);
  return AnalyzeTrace(t);
}

// `gpus` GPUs of 80 GB without a utilisation column, 6 polls `every_s` apart; GPU 0 holds
// `mem0_mib`, the others 4 MiB, all drawing idle power.
std::string MemoryOnlyLog(int gpus, double mem0_mib, int every_s = 60) {
  std::string s = "timestamp,gpu,memory.used,memory.total,power.draw,temperature.gpu\n";
  for (int p = 0; p < 6; ++p)
    for (int g = 0; g < gpus; ++g) {
      const int t = p * every_s;
      s += fmt::format("2025-09-08T17:{:02d}:{:02d}+08:00,{},{:g},81559,{:.2f},33\n", 10 + t / 60, t % 60, g,
                       g == 0 ? mem0_mib : 4.0, 72.5 + g);
    }
  return s;
}

// A log shorter than kShortUnusedLogS with no process on any GPU may end before the job reached
// the GPU (a job script's nvidia-smi before training): low, and said; from that length on, high.
TEST(GpuLogRules, AShortLogWithNoProcessIsLowBothSides) {
  const int every = int(kShortUnusedLogS) / 5;  // 6 polls: 5 intervals
  Report at = Diagnose(MemoryOnlyLog(2, 4, every));
  const Finding* f = FindIn(at, "gpus_unused");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);
  Report under = Diagnose(MemoryOnlyLog(2, 4, every - 1));
  ASSERT_NE(f = FindIn(under, "gpus_unused"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_NE(f->title.find("the log is 55 s long: the job may not have reached the GPU before it ended"), std::string::npos)
      << f->title;
  EXPECT_NE(f->fix.summary.find("Log the whole run"), std::string::npos);
  EXPECT_EQ(under.verdict.summary, "no single bottleneck identified: " + f->title);  // low, still the headline
  // Untimed rows: counted, not timed (a table snapshot then four CSV rows in a job's log).
  std::string untimed = "index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n";
  for (int i = 0; i < 5; ++i) untimed += "0, Tesla V100-PCIE-32GB, 32510 MiB, 0 MiB, 0 %\n";
  Report rows = Diagnose(untimed);
  ASSERT_NE(f = FindIn(rows, "gpus_unused"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_NE(f->title.find("the log holds 5 samples with no times"), std::string::npos) << f->title;
  // Rows all stamped with one second are timed, just finer than their clock: said so.
  std::string one_stamp = "timestamp, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n";
  for (int i = 0; i < 5; ++i) one_stamp += "2021/03/04 13:32:39, 0 %, 0 MiB, 11019 MiB\n";
  Report stamped = Diagnose(one_stamp);
  ASSERT_NE(f = FindIn(stamped, "gpus_unused"), nullptr);
  EXPECT_NE(f->title.find("the log holds 5 samples stamped with one time"), std::string::npos) << f->title;
  EXPECT_NE(EvidenceOf(*f).find("all stamped with one time"), std::string::npos) << EvidenceOf(*f);
}

TEST(GpuLogRules, GpusUnusedBothSidesOfEachThreshold) {
  // No utilisation column, no GPU holding a process's memory: all eight unused.
  std::unique_ptr<ResourceSignals> rs;
  Report r = Diagnose(MemoryOnlyLog(8, 4), &rs);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->gpus.size(), 8u);
  EXPECT_EQ(rs->gpus_in_use, 0);
  EXPECT_EQ(rs->classification, ResourceClass::kGpuUnused);
  const Finding* f = FindIn(r, "gpus_unused");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "no GPU ran work: the 8 GPUs sampled never held more than 4 MiB of their 79.6 GiB, so no "
                      "process ran on them (the log has no utilisation column)");
  EXPECT_NE(EvidenceOf(*f).find("GPU 7: memory used peak 4 MiB of 79.6 GiB, power 79.5 W"), std::string::npos)
      << EvidenceOf(*f);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);
  EXPECT_EQ(r.verdict.summary, "no single bottleneck identified: " + f->title);

  // kNoProcessMemBytes: just under it GPU 0 is still unused; at it a process is there.
  const double limit_mib = kNoProcessMemBytes / (1024 * 1024);
  Diagnose(MemoryOnlyLog(8, limit_mib - 1), &rs);
  EXPECT_EQ(rs->classification, ResourceClass::kGpuUnused);
  Report used = Diagnose(MemoryOnlyLog(8, limit_mib), &rs);
  EXPECT_EQ(rs->gpus_in_use, 1);
  EXPECT_EQ(rs->classification, ResourceClass::kGpuUtilUnknown);
  EXPECT_EQ(FindIn(used, "gpus_unused"), nullptr);
  ASSERT_NE(FindIn(used, "gpu_utilisation_not_logged"), nullptr);
  const Finding* idle = FindIn(used, "idle_gpu");  // the seven beside the one in use
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->title.find("GPUs 1, 2, 3, 4, 5, 6, 7 sat idle (no process held memory there"), std::string::npos)
      << idle->title;
}

// One GPU, no host data: utilisation peaking at `peak` (every other sample), 20 samples.
std::string OneGpuLog(double peak) {
  std::string s = "timestamp,utilization.gpu,memory.used,memory.total\n";
  for (int i = 0; i < 20; ++i) s += fmt::format("{},{:g},2048,24576\n", 1000 + i, i % 2 ? peak : 0.0);
  return s;
}

TEST(GpuLogRules, GpusUnusedFromUtilisationBothSides) {
  std::unique_ptr<ResourceSignals> rs;
  Report idle = Diagnose(OneGpuLog(kUnusedGpuPeakPct - 0.1), &rs);
  EXPECT_EQ(rs->classification, ResourceClass::kGpuUnused);
  const Finding* f = FindIn(idle, "gpus_unused");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("utilisation of the GPU sampled never reached 10% (peak 9.9%), yet 2.0 GiB of memory is "
                          "held: a process holds the GPU and launches nothing"),
            std::string::npos)
      << f->title;
  EXPECT_EQ(FindIn(idle, "low_gpu_utilisation"), nullptr);
  Report low = Diagnose(OneGpuLog(kUnusedGpuPeakPct), &rs);
  EXPECT_EQ(rs->classification, ResourceClass::kGpuLow);
  EXPECT_EQ(FindIn(low, "gpus_unused"), nullptr);
  ASSERT_NE(FindIn(low, "low_gpu_utilisation"), nullptr);
}

// An idle GPU whose memory passed kHeldMemoryBytes in `held` of 20 samples (13 MiB otherwise).
std::string IdleGpuMemoryLog(int held) {
  std::string s = "timestamp,utilization.gpu,memory.used [MiB],memory.total [MiB]\n";
  for (int i = 0; i < 20; ++i) s += fmt::format("{},0,{},6144\n", 1000 + i, i >= 3 && i < 3 + held ? 4608 : 13);
  return s;
}

// A process waits on the GPU only where it holds the memory for most of the log: memory that
// rose for a moment was a process passing through.
TEST(GpuLogRules, MemoryHeldForMostOfTheLogBothSides) {
  const int at_share = int(kHeldMemorySampleShare * 20);
  Report held = Diagnose(IdleGpuMemoryLog(at_share));
  const Finding* f = FindIn(held, "gpus_unused");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("of memory is held: a process holds the GPU and launches nothing"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.summary.find("py-spy"), std::string::npos);
  Report brief = Diagnose(IdleGpuMemoryLog(at_share - 1));
  const Finding* g = FindIn(brief, "gpus_unused");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->title.find("a process holds"), std::string::npos) << g->title;
  EXPECT_NE(g->title.find(fmt::format("in only {} of 20 samples (peak 4.5 GiB)", at_share - 1)), std::string::npos)
      << g->title;
  EXPECT_EQ(g->fix.summary.find("py-spy"), std::string::npos);
}

// One GPU at 20% with memory.used `used_mib` of 10000 MiB (no memory columns when negative).
std::string LowUtilLog(int used_mib) {
  std::string s = used_mib < 0 ? "timestamp,utilization.gpu\n" : "timestamp,utilization.gpu,memory.used [MiB],memory.total [MiB]\n";
  for (int i = 0; i < 20; ++i)
    s += used_mib < 0 ? fmt::format("{},{}\n", 1000 + i, i % 2 ? 30 : 10)
                      : fmt::format("{},{},{},10000\n", 1000 + i, i % 2 ? 30 : 10, used_mib);
  return s;
}

// "A larger batch" only where the log shows the memory for it (both sides of kMemoryNearFullPct).
TEST(GpuLogRules, LargerBatchAdvisedOnlyWithMemoryShownToSpare) {
  auto fix = [](int used_mib) {
    Report r = Diagnose(LowUtilLog(used_mib));
    const Finding* f = FindIn(r, "low_gpu_utilisation");
    EXPECT_NE(f, nullptr);
    return f ? f->fix.summary : std::string();
  };
  EXPECT_NE(fix(5000).find("with memory to spare (peak 50.0% of it)"), std::string::npos) << fix(5000);
  EXPECT_EQ(fix(int(kMemoryNearFullPct * 100)).find("larger batch"), std::string::npos);
  EXPECT_EQ(fix(-1).find("larger batch"), std::string::npos);  // no memory in the log
}

// Memory full on a GPU that runs nothing: a process holds it; no model's peak to shrink.
TEST(GpuLogRules, FullMemoryOnAnIdleGpuIsHeldNotUsed) {
  std::string idle = "timestamp,utilization.gpu,memory.used [MiB],memory.total [MiB]\n";
  for (int i = 0; i < 20; ++i) idle += fmt::format("{},0,9990,10000\n", 1000 + i);
  Report r = Diagnose(idle);
  const Finding* f = FindIn(r, "gpu_memory_near_full");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("while it ran no work"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.summary.find("which process holds the memory"), std::string::npos);
  EXPECT_EQ(f->fix.summary.find("mixed precision"), std::string::npos);
  Report busy = Diagnose(LowUtilLog(9990));  // the same memory on a GPU that works
  const Finding* g = FindIn(busy, "gpu_memory_near_full");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->title.find("ran no work"), std::string::npos) << g->title;
  EXPECT_NE(g->fix.summary.find("mixed precision"), std::string::npos);
}

// A GPU that computes at half its memory, then sits near full running nothing (a framework
// reserving the rest, a process waiting or hung): held, not filled by work. Both sides: the
// same log where one sample near full computes keeps the model's advice, and so does one with
// fewer than kNearFullIdleMinSamples such samples.
TEST(GpuLogRules, MemoryNearFullOnlyWhileIdleIsHeldNotUsed) {
  auto log = [](int full_samples, int util_when_full) {
    std::string s = "timestamp,utilization.gpu,memory.used [MiB],memory.total [MiB]\n";
    int t = 1000;
    for (int i = 0; i < 20; ++i) s += fmt::format("{},{},5000,10000\n", t++, i % 2 ? 60 : 40);
    for (int i = 0; i < full_samples; ++i) s += fmt::format("{},{},9990,10000\n", t++, i == 0 ? util_when_full : 0);
    return s;
  };
  const Finding* f = nullptr;
  Report held = Diagnose(log(kNearFullIdleMinSamples, 2));
  ASSERT_NE(f = FindIn(held, "gpu_memory_near_full"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_NE(f->title.find("only while it ran no work"), std::string::npos) << f->title;
  EXPECT_NE(f->fix.summary.find("which process holds the memory"), std::string::npos);
  Report worked = Diagnose(log(kNearFullIdleMinSamples, 50));
  ASSERT_NE(f = FindIn(worked, "gpu_memory_near_full"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_NE(f->fix.summary.find("mixed precision"), std::string::npos);
  Report few = Diagnose(log(kNearFullIdleMinSamples - 1, 0));
  ASSERT_NE(f = FindIn(few, "gpu_memory_near_full"), nullptr);
  EXPECT_EQ(f->title.find("ran no work"), std::string::npos) << f->title;
}

// Memory taken at once while the GPU computes nothing, then work under it: a pool reserved before
// the work (a serving engine's cache, TensorFlow's or JAX's allocator), counted whole by NVML: low,
// said so. Memory that grows step by step while the GPU computes is the work's: moderate.
TEST(GpuLogRules, MemoryReservedAtOnceBeforeTheWorkBothSides) {
  auto log = [](bool at_once) {
    std::string s = "timestamp,utilization.gpu,memory.used [MiB],memory.total [MiB]\n";
    int t = 1000;
    for (int i = 0; i < 5; ++i) s += fmt::format("{},0,{}\n", t++, at_once ? 2000 : 2000 + 1500 * i) + "";
    for (int i = 0; i < 5; ++i) s += fmt::format("{},{},9500\n", t++, at_once ? 0 : 70);
    for (int i = 0; i < 20; ++i) s += fmt::format("{},{},9500\n", t++, i % 2 ? 80 : 60);
    std::string out;  // with the memory total on every row
    for (size_t a = 0, b; (b = s.find('\n', a)) != std::string::npos; a = b + 1)
      out += s.substr(a, b - a) + (a == 0 ? "" : ",10000") + "\n";
    return out;
  };
  const Finding* f = nullptr;
  Report pool = Diagnose(log(true));
  ASSERT_NE(f = FindIn(pool, "gpu_memory_near_full"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_NE(f->title.find("reserved at once while it computed nothing (2.0 GiB to 9.3 GiB"), std::string::npos) << f->title;
  Report grew = Diagnose(log(false));
  ASSERT_NE(f = FindIn(grew, "gpu_memory_near_full"), nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_EQ(f->title.find("reserved at once"), std::string::npos) << f->title;
}

// Several idle GPUs holding memory: each one's peak and the sum, not the largest alone.
TEST(GpuLogRules, MemoryHeldOnSeveralIdleGpusIsSummed) {
  std::string s = "timestamp,index,utilization.gpu,memory.used [MiB],memory.total [MiB]\n";
  for (int i = 0; i < 20; ++i)
    for (int g = 0; g < 3; ++g) s += fmt::format("{},{},0,{},24576\n", 1000 + i, g, 10240 + 1024 * g);
  Report r = Diagnose(s);
  const Finding* f = FindIn(r, "gpus_unused");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("yet 3 GPUs hold memory (up to 12.0 GiB each, 33.0 GiB in all)"), std::string::npos) << f->title;
}

TEST(GpuLogRules, GpuUtilisationNotLoggedRule) {
  std::string csv = "timestamp,memory_used,memory_total\n";
  for (int i = 0; i < 10; ++i) csv += fmt::format("{},10240,24576\n", 1000 + i);
  Report r = Diagnose(csv);
  const Finding* f = FindIn(r, "gpu_utilisation_not_logged");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "1 GPU sampled with no utilisation column: memory used peaks at 10.0 GiB of 24.0 GiB; how busy "
                      "it was cannot be told");
  EXPECT_NE(r.verdict.summary.find("no utilisation column"), std::string::npos) << r.verdict.summary;
  EXPECT_NE(f->fix.summary.find("utilization.gpu"), std::string::npos);
}

// `idle` leading samples at 0% while memory grows from 1100 MiB (a process holds the GPU from the
// first sample: an opening with no process is left out instead, gpu_log_runs_test), then `busy`
// samples at 40% holding 2000 MiB, 0.5 s apart.
std::string StartupLog(int idle, int busy, double idle_util = 0, double busy_util = 40) {
  std::string s = "timestamp,gpu_utilization,memory_used,memory_total\r\n";
  for (int i = 0; i < idle + busy; ++i)
    s += fmt::format("{:.1f},{:g}, {}, 15360\r\n", 1746556382.0 + 0.5 * i, i < idle ? idle_util : busy_util,
                     i < idle ? 1100 + 10 * i : 2000);
  return s;
}

// A log that stays near idle after its idle start had no start-up before work, just no work.
TEST(GpuLogRules, StartupNeedsWorkAfterItBothSides) {
  std::unique_ptr<ResourceSignals> rs;
  Diagnose(StartupLog(10, 30, 0, kStartupMinAfterPct), &rs);
  EXPECT_TRUE(rs->gpu_startup.has_value());
  Diagnose(StartupLog(10, 30, 0, kStartupMinAfterPct - 0.5), &rs);
  EXPECT_FALSE(rs->gpu_startup.has_value());
}

TEST(GpuLogRules, StartupBothSidesOfEachThreshold) {
  std::unique_ptr<ResourceSignals> rs;
  // kStartupMinSamples: 2 leading idle samples are not a start-up, 3 are.
  Diagnose(StartupLog(kStartupMinSamples - 1, 40 - kStartupMinSamples + 1), &rs);
  EXPECT_FALSE(rs->gpu_startup.has_value());
  Diagnose(StartupLog(kStartupMinSamples, 40 - kStartupMinSamples), &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(rs->gpu_startup->samples, kStartupMinSamples);
  EXPECT_DOUBLE_EQ(rs->gpu_startup->util_after_pct, 40);
  EXPECT_NEAR(rs->gpu_startup->duration_s, 1.5, 1e-6);
  // kStartupMinSharePct: 3 of 61 samples (4.9%) is too short to report, 3 of 60 (5%) is not.
  Diagnose(StartupLog(3, 58), &rs);
  EXPECT_FALSE(rs->gpu_startup.has_value());
  Diagnose(StartupLog(3, 57), &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(rs->gpu_startup->samples, 3);
  // kStartupMaxSharePct: half the log is a start-up, more is how the run went.
  Diagnose(StartupLog(20, 20), &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(rs->gpu_startup->samples, 20);
  Diagnose(StartupLog(21, 19), &rs);
  EXPECT_FALSE(rs->gpu_startup.has_value());
  // kStartupMaxMeanShare: leading samples averaging a quarter of the median (40%) or more are
  // work already, slower; under it they are a start-up.
  Diagnose(StartupLog(10, 30, kStartupMaxMeanShare * 40 - 0.1), &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(rs->gpu_startup->samples, 10);
  Diagnose(StartupLog(10, 30, kStartupMaxMeanShare * 40), &rs);
  EXPECT_FALSE(rs->gpu_startup.has_value());
}

// A blip inside the start-up (a library initialising, a first kernel: two samples at 60% among
// idle ones) does not end it; work that holds does.
TEST(GpuLogRules, StartupWithABlipIsOneStartup) {
  std::string s = "timestamp,gpu_utilization,memory_used,memory_total\r\n";
  for (int i = 0; i < 60; ++i) {
    const double u = i < 20 ? (i == 8 || i == 9 ? 60 : 1) : 90;
    s += fmt::format("{:.1f},{:g}, {}, 15360\r\n", 1746556382.0 + 0.5 * i, u, i < 20 ? 1100 + 10 * i : 2000);
  }
  std::unique_ptr<ResourceSignals> rs;
  Diagnose(s, &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(rs->gpu_startup->samples, 20);
  EXPECT_NEAR(*rs->gpu_util_mean_pct, 90, 1e-6);
}

// The start-up is kept out of the figures, as a trace's warm-up step is: the steps are judged,
// and the whole-log figure is stated beside them.
TEST(GpuLogRules, StartupIsKeptOutOfTheFiguresAndStated) {
  // 18 samples idle while memory grows to 1270 MiB, then 117 at 40%: 34.7% over the whole log.
  std::unique_ptr<ResourceSignals> rs;
  Report r = Diagnose(StartupLog(18, 117), &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_NEAR(*rs->gpu_util_mean_pct, 40, 1e-9);
  EXPECT_NEAR(rs->gpu_startup->util_with_pct, 40.0 * 117 / 135, 1e-9);
  EXPECT_NEAR(*rs->gpu_util_below_low_pct, 0, 1e-9);  // the idle start-up samples are not the steps'
  const Finding* f = FindIn(r, "gpu_partly_idle");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->share_pct, 60, 0.01);
  EXPECT_NE(f->title.find("busy 40.0% of the time (after a 9.0 s start-up, kept out: 34.7% with it)"), std::string::npos)
      << f->title;
  EXPECT_NE(EvidenceOf(*f).find("GPU utilisation with the start-up: 34.7% (the first 18 samples (9.0 s) at 0.0% on average while "
                                "memory grew from 1.1 GiB to 1.2 GiB"),
            std::string::npos)
      << EvidenceOf(*f);
  EXPECT_EQ(EvidenceOf(*f).find("drops below half the median"), std::string::npos);  // the start-up is no dip
}

// A start-up that hides a well-fed job: two GPUs whose first samples are the job loading, then
// busy; over the whole job they read as partly idle (a 1.7x gain that no change to the steps
// gives), after the start-up as well fed.
TEST(GpuLogRules, StartupDoesNotMakeAWellFedJobPartlyIdle) {
  std::string s = "timestamp,index,utilization.gpu [%],memory.used [MiB],memory.total [MiB]\n";
  for (int i = 0; i < 12; ++i)
    for (int g = 0; g < 2; ++g)
      s += fmt::format("2025/01/01 00:00:{:02d}.000,{},{},{},24576\n", i, g, i < 5 ? (g ? 3 * i : 0) : 95,
                       i < 5 ? 200 + 800 * i : 4400);
  std::unique_ptr<ResourceSignals> rs;
  Report r = Diagnose(s, &rs);
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(FindIn(r, "gpu_partly_idle"), nullptr) << r.verdict.summary;
  ASSERT_NE(FindIn(r, "gpu_well_fed"), nullptr) << r.verdict.summary;
  EXPECT_NEAR(*rs->gpu_util_mean_pct, 95, 1e-9);
  EXPECT_NE(EvidenceOf(*FindIn(r, "gpu_well_fed")).find("GPU 0's first "), std::string::npos);
}

TEST(GpuLogRules, LogWithoutTimesStatesTheIntervalIsUnknown) {
  std::string csv;
  for (int v : {85, 100, 94, 91, 100, 94, 93, 97, 88, 100}) csv += "utilization.gpu [%]\n" + std::to_string(v) + " %\n";
  std::unique_ptr<ResourceSignals> rs;
  Report r = Diagnose(csv, &rs);
  ASSERT_NE(rs, nullptr);
  EXPECT_FALSE(rs->times_known);
  const Finding* f = FindIn(r, "gpu_well_fed");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->share_pct, 94.2, 0.01);
  EXPECT_NE(EvidenceOf(*f).find("samples: 10 in file order (the log does not time them: their interval is unknown)"),
            std::string::npos)
      << EvidenceOf(*f);
  EXPECT_EQ(r.verdict.bottleneck, Bottleneck::kUnknown);  // utilisation alone names no bottleneck
}

TEST(GpuLogRules, PeriodicUtilisationDipsRuleNeedsTimes) {
  // 90% with a drop to 10% every 10th sample: periodic with times, a pattern of order without.
  std::string timed = "timestamp,utilization.gpu\n", untimed = "utilization.gpu\n";
  for (int i = 0; i < 60; ++i) {
    int u = i % 10 == 9 ? 10 : 90;
    timed += fmt::format("{},{}\n", 1000 + i, u);
    untimed += fmt::format("{}\n", u);
  }
  EXPECT_NE(FindIn(Diagnose(timed), "periodic_utilisation_dips"), nullptr);
  EXPECT_EQ(FindIn(Diagnose(untimed), "periodic_utilisation_dips"), nullptr);
}

}  // namespace
}  // namespace stepdoctor
