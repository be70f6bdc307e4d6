// A GPU log that spans more than the job: runs with the GPU released between them (memory back at
// its baseline: no context), or a log that goes on after the job ended. Those samples are not
// the job's and are left out of its figures (GpuRuns). Both sides of kNoProcessMinSharePct,
// kNoProcessMemBytes (over the baseline), kHeldMemoryBytes (the baseline); utilisation does not matter.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/live/samples_writer.h"
#include "gpu_log_signals.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

using Sample = std::pair<double, double>;  // utilisation %, memory used MiB

// One 24 GiB GPU, a sample a second.
std::string Log(const std::vector<Sample>& samples) {
  std::string s = "timestamp,utilization.gpu,memory.used,memory.total\n";
  for (size_t i = 0; i < samples.size(); ++i)
    s += fmt::format("{},{:g},{:g},24576\n", 1000 + i, samples[i].first, samples[i].second);
  return s;
}

void Add(std::vector<Sample>* v, int n, double util, double mem_mib) {
  for (int i = 0; i < n; ++i) v->push_back({util, mem_mib});
}

// Two 20 s runs at 80% holding `run_mib`, with 10 s at `util_between` % and `between_mib` between them.
std::string TwoRuns(double run_mib, double between_mib, double util_between = 0) {
  std::vector<Sample> v;
  Add(&v, 20, 80, run_mib);
  Add(&v, 10, util_between, between_mib);
  Add(&v, 20, 80, run_mib);
  return Log(v);
}

std::unique_ptr<ResourceSignals> Signals(const std::string& csv, Report* report = nullptr) {
  return testing::GpuLogSignals(csv, report);
}

TEST(GpuLogRuns, RunsWithTheGpuReleasedBetweenThemAreJudgedOnTheirOwnSamples) {
  // Three runs of 20 s at 90%, the GPU released for 10 s between them (memory back at 2 MiB).
  std::vector<Sample> v;
  Add(&v, 20, 90, 8000);
  Add(&v, 10, 0, 2);
  Add(&v, 20, 90, 8000);
  Add(&v, 10, 0, 2);
  Add(&v, 20, 90, 8000);
  Report r;
  auto rs = Signals(Log(v), &r);
  ASSERT_NE(rs, nullptr);
  ASSERT_TRUE(rs->gpu_runs.has_value());
  const GpuRuns& g = *rs->gpu_runs;
  ASSERT_EQ(g.runs.size(), 3u);
  EXPECT_EQ(g.excluded_samples, 20);
  EXPECT_NEAR(g.excluded_pct, 25.0, 1e-9);
  EXPECT_NEAR(g.excluded_s, 20.0, 1e-9);
  EXPECT_FALSE(g.leading);
  EXPECT_FALSE(g.trailing);
  EXPECT_NEAR(g.runs[1].start_s, 30.0, 1e-9);
  EXPECT_NEAR(g.runs[1].duration_s, 20.0, 1e-9);
  EXPECT_NEAR(g.runs[1].util_mean_pct, 90.0, 1e-9);
  EXPECT_NEAR(g.log_util_mean_pct, 67.5, 1e-9);
  // The job's figures: 90%, busy and well fed, not "partly idle" at the whole log's 67.5%.
  EXPECT_NEAR(*rs->gpu_util_mean_pct, 90.0, 1e-9);
  EXPECT_NEAR(*rs->gpus[0].util_mean_pct, 90.0, 1e-9);
  EXPECT_EQ(rs->classification, ResourceClass::kGpuBusy);
  EXPECT_EQ(testing::FindFinding(r, "gpu_partly_idle"), nullptr);
  const Finding* f = testing::FindFinding(r, "gpu_well_fed");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("90.0% mean utilisation while a process held the GPU (3 runs; 67.5% over the whole log)"),
            std::string::npos)
      << f->title;
  const std::string ev = testing::EvidenceText(*f);
  EXPECT_NE(ev.find("3 runs: 20.0 s at 90.0%, 20.0 s at 90.0%, 20.0 s at 90.0%; 20 samples (20.0 s, 25.0% of the "
                    "log) between them with no process on the GPU (memory at 2 MiB: no context) are left out"),
            std::string::npos)
      << ev;
}

TEST(GpuLogRuns, ALogThatGoesOnAfterTheJobBothSidesOfTheShare) {
  // 100 samples: a job at 50%, then k samples with no process on the GPU.
  auto log = [](int after) {
    std::vector<Sample> v;
    Add(&v, 100 - after, 50, 6000);
    Add(&v, after, 0, 3);
    return Log(v);
  };
  const int at = int(kNoProcessMinSharePct);  // of 100 samples
  auto below = Signals(log(at - 1));
  ASSERT_NE(below, nullptr);
  EXPECT_FALSE(below->gpu_runs.has_value());
  Report r;
  auto above = Signals(log(at), &r);
  ASSERT_TRUE(above->gpu_runs.has_value());
  EXPECT_TRUE(above->gpu_runs->trailing);
  EXPECT_EQ(above->gpu_runs->runs.size(), 1u);
  EXPECT_NEAR(*above->gpu_util_mean_pct, 50.0, 1e-9);
  const Finding* f = testing::FindFinding(r, "gpu_partly_idle");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("busy 50.0% of the time while a process held the GPU (47.5% over the whole log, which goes on after it)"),
            std::string::npos)
      << f->title;
  EXPECT_NE(testing::EvidenceText(*f).find("1 run: 95.0 s at 50.0%; 5 samples (5.0 s, 5.0% of the log) after it"),
            std::string::npos);
}

TEST(GpuLogRuns, NoProcessNeedsMemoryWithinTheMarginOfTheBaselineBothSides) {
  // Between two runs the GPU idles holding `between` MiB over a 2 MiB baseline.
  auto log = [](double between) {
    std::vector<Sample> v;
    Add(&v, 20, 80, 8000);
    Add(&v, 10, 0, between);
    Add(&v, 20, 80, 8000);
    Add(&v, 1, 0, 2);  // the baseline
    return Log(v);
  };
  const double margin_mib = kNoProcessMemBytes / (1024 * 1024);
  auto released = Signals(log(2 + margin_mib - 1));
  ASSERT_TRUE(released->gpu_runs.has_value());
  EXPECT_EQ(released->gpu_runs->runs.size(), 2u);
  auto held = Signals(log(2 + margin_mib));  // a process (a context) still holds it: one run, idle inside it
  EXPECT_FALSE(held->gpu_runs.has_value());
}

// Memory back at the baseline is no process, whatever utilisation the driver still reports: its
// figure averages a window that reaches back into the work just ended (a Titan X log read 83-100%
// for 0.8 s after its job exited, memory at 1 MiB). Memory held stays the job's however idle.
TEST(GpuLogRuns, NoProcessIsMemoryAloneWhateverTheUtilisation) {
  auto log = [](double util_between) { return TwoRuns(8000, 2, util_between); };
  for (double u : {0.0, kIdleGpuUtilPct, 90.0}) {
    auto r = Signals(log(u));
    ASSERT_TRUE(r->gpu_runs.has_value()) << u;
    EXPECT_EQ(r->gpu_runs->runs.size(), 2u) << u;
    EXPECT_NEAR(*r->gpu_util_mean_pct, 80, 0.5) << u;  // the between samples are no run's
  }
  EXPECT_FALSE(Signals(TwoRuns(8000, 8000, 90))->gpu_runs.has_value());
}

TEST(GpuLogRuns, ABaselineAProcessHoldsIsNoReleaseBothSides) {
  // The lowest reading is itself held memory: phases of one run, not runs.
  auto log = [](double low_mib) { return TwoRuns(low_mib + 6000, low_mib); };
  const double held_mib = kHeldMemoryBytes / (1024 * 1024);
  EXPECT_TRUE(Signals(log(held_mib - 1))->gpu_runs.has_value());
  EXPECT_FALSE(Signals(log(held_mib))->gpu_runs.has_value());
}

TEST(GpuLogRuns, ALowestReadingFarUnderThePeakIsNoProcessBothSides) {
  // The GPU idles at `low` MiB (a display server, another user's context) between runs that hold
  // 20 GiB: no process of the job's under kNoProcessPeakShare of the peak, whatever its size.
  auto log = [](double low_mib) { return TwoRuns(20480, low_mib); };
  const double share_mib = kNoProcessPeakShare * 20480;  // 2048 MiB, over kHeldMemoryBytes
  EXPECT_TRUE(Signals(log(share_mib - 1))->gpu_runs.has_value());
  EXPECT_FALSE(Signals(log(share_mib))->gpu_runs.has_value());
}

TEST(GpuLogRuns, TheLongestIdleStretchWithMemoryHeldBothSides) {
  // 100 samples of a job at 60%, with `idle` of them in a row at 0% still holding 20 GiB.
  auto log = [](int idle) {
    std::vector<Sample> v;
    Add(&v, 40, 60, 20480);
    Add(&v, idle, 0, 20480);
    Add(&v, 60 - idle, 60, 20480);
    return Log(v);
  };
  const int at = int(kIdleStretchMinSharePct);  // of 100 samples
  EXPECT_FALSE(Signals(log(at - 1))->gpu_idle_stretch.has_value());
  Report r;
  auto rs = Signals(log(at), &r);
  ASSERT_TRUE(rs->gpu_idle_stretch.has_value());
  EXPECT_EQ(rs->gpu_idle_stretch->samples, at);
  EXPECT_NEAR(rs->gpu_idle_stretch->start_s, 40.0, 1e-9);
  EXPECT_NEAR(rs->gpu_idle_stretch->duration_s, double(at), 1e-9);
  const Finding* f = testing::FindFinding(r, "gpu_partly_idle");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(testing::EvidenceText(*f).find("10.0 s (10 samples, 10.0% of the job's) 40.0 s into the log, holding up to "
                                           "20.0 GiB"),
            std::string::npos)
      << testing::EvidenceText(*f);
  // Half the job's samples or more idle is how the job ran, not a pause in it.
  std::vector<Sample> most;
  Add(&most, 10, 60, 20480);
  Add(&most, 50, 0, 20480);
  EXPECT_FALSE(Signals(Log(most))->gpu_idle_stretch.has_value());  // 50 of 60
  std::vector<Sample> half;
  Add(&half, 50, 60, 20480);
  Add(&half, 50, 0, 20480);
  EXPECT_TRUE(Signals(Log(half))->gpu_idle_stretch.has_value());  // 50%: at the limit
  Add(&half, 1, 0, 20480);
  EXPECT_FALSE(Signals(Log(half))->gpu_idle_stretch.has_value());  // 51 in a row of 101
  // Idle with the memory released is no process, not a pause of the job's.
  std::vector<Sample> v;
  Add(&v, 40, 60, 20480);
  Add(&v, 20, 0, 2);
  Add(&v, 40, 60, 20480);
  EXPECT_FALSE(Signals(Log(v))->gpu_idle_stretch.has_value());
}

// An idle stretch with memory held before most of the job's work is likely the job still starting
// (compiling, capturing graphs): said first among the causes; after most of it, it is not.
TEST(GpuLogRuns, AnIdleStretchBeforeMostWorkIsLikelyStartingBothSides) {
  auto log = [](int busy_before) {
    std::vector<Sample> v;
    Add(&v, busy_before, 60, 20480);
    Add(&v, 15, 0, 20480);
    Add(&v, 85 - busy_before, 60, 20480);
    return Log(v);
  };
  auto causes = [&](int busy_before) {
    Report r;
    auto rs = Signals(log(busy_before), &r);
    EXPECT_TRUE(rs->gpu_idle_stretch.has_value());
    const Finding* f = testing::FindFinding(r, "gpu_partly_idle");
    return f ? testing::EvidenceText(*f) : std::string();
  };
  // 85 samples of work: under a quarter (21.25) before the stretch is early.
  EXPECT_NE(causes(21).find("still starting: compiling the model"), std::string::npos) << causes(21);
  EXPECT_EQ(causes(22).find("still starting"), std::string::npos) << causes(22);
  EXPECT_NE(causes(22).find("the job paused with its model loaded (evaluation on the CPU"), std::string::npos);
}

// A log started before the job (or before it first touched the GPU), cut off while it still runs:
// the samples no process holds are left out as they are after a job, not taken for its start-up.
TEST(GpuLogRuns, ALeadingStretchWithNoProcessIsLeftOutLikeATrailingOne) {
  std::vector<Sample> v;
  Add(&v, 10, 0, 2);
  Add(&v, 40, 70, 8000);
  Report r;
  auto rs = Signals(Log(v), &r);
  ASSERT_NE(rs, nullptr);
  ASSERT_TRUE(rs->gpu_runs.has_value());
  EXPECT_TRUE(rs->gpu_runs->leading);
  EXPECT_FALSE(rs->gpu_runs->trailing);
  EXPECT_EQ(rs->gpu_runs->excluded_samples, 10);
  EXPECT_NEAR(*rs->gpu_util_mean_pct, 70.0, 1e-9);
  EXPECT_FALSE(rs->gpu_startup.has_value());  // the job's own samples open with work
  const Finding* f = testing::FindFinding(r, "gpu_partly_idle");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("while a process held the GPU (56.0% over the whole log, which starts before it)"), std::string::npos)
      << f->title;
  EXPECT_NE(testing::EvidenceText(*f).find("10 samples (10.0 s, 20.0% of the log) before it with no process"),
            std::string::npos)
      << testing::EvidenceText(*f);
  // The same job with its memory held from the first sample: that idle opening is the job's own
  // start-up, stated beside the whole log's figure.
  v.clear();
  Add(&v, 10, 0, 8000);
  Add(&v, 40, 70, 8000);
  rs = Signals(Log(v));
  EXPECT_FALSE(rs->gpu_runs.has_value());
  ASSERT_TRUE(rs->gpu_startup.has_value());
  EXPECT_EQ(rs->gpu_startup->samples, 10);
}

// A job on two GPUs that releases the first while the second still works: its samples are those
// any GPU in use holds, not the first GPU's alone; where both are released, the log goes on after it.
TEST(GpuLogRuns, TheJobsSamplesAreThoseAnyGpuInUseHoldsBothSides) {
  auto log = [](int both_released) {
    std::string s = "timestamp,index,utilization.gpu,memory.used,memory.total\n";
    for (int i = 0; i < 60; ++i) {
      const bool gpu0 = i < 10, gpu1 = i < 60 - both_released;
      s += fmt::format("{},0,{},{},24576\n", 1000 + i, gpu0 ? 60 : 0, gpu0 ? 8000 : 2);
      s += fmt::format("{},1,{},{},24576\n", 1000 + i, gpu1 ? 70 : 0, gpu1 ? 9000 : 2);
    }
    return s;
  };
  auto second_works = Signals(log(0));
  ASSERT_NE(second_works, nullptr);
  EXPECT_FALSE(second_works->gpu_runs.has_value());  // GPU 1 held memory in every sample
  EXPECT_EQ(second_works->job_samples(), second_works->samples);
  auto both_go = Signals(log(20));
  ASSERT_TRUE(both_go->gpu_runs.has_value());
  EXPECT_EQ(both_go->gpu_runs->excluded_samples, 20);
  EXPECT_TRUE(both_go->gpu_runs->trailing);
}

TEST(GpuLogRuns, OtherGpusLoseOnlyTheirOwnIdleSamplesInsideTheGaps) {
  // GPU 0 and GPU 1 run together, both released between the runs; GPU 1 also idles, holding
  // memory, inside the runs: that idle time is the job's and stays in its figures.
  std::string s = "timestamp,index,utilization.gpu,memory.used,memory.total\n";
  for (int i = 0; i < 50; ++i) {
    const bool gap = i >= 20 && i < 30;
    s += fmt::format("{},0,{},{},24576\n", 1000 + i, gap ? 0 : 90, gap ? 2 : 8000);
    s += fmt::format("{},1,{},{},24576\n", 1000 + i, gap ? 0 : (i % 2 ? 60 : 0), gap ? 2 : 8000);
  }
  auto rs = Signals(s);
  ASSERT_NE(rs, nullptr);
  ASSERT_TRUE(rs->gpu_runs.has_value());
  EXPECT_EQ(rs->gpu_runs->runs.size(), 2u);
  ASSERT_EQ(rs->gpus.size(), 2u);
  EXPECT_NEAR(*rs->gpus[0].util_mean_pct, 90.0, 1e-9);
  EXPECT_NEAR(*rs->gpus[1].util_mean_pct, 30.0, 1e-9);
  EXPECT_NEAR(*rs->gpu_util_mean_pct, 60.0, 1e-9);
}

TEST(GpuLogRuns, TheJobsOwnSamplesSpanItsLifeAndKeepEverySample) {
  // `run` samples its process tree from start to exit: the GPU not yet held while Python starts
  // is the job's own time, not another run's.
  auto samples = [](bool tree) {
    live::SamplesHeader h;
    h.hostname = "trainer-1";
    h.pid = 77;
    h.interval_ns = 1000000000;
    h.gpus.push_back({0, "NVIDIA H100", 80ull << 30});
    std::string s = live::SamplesHeaderJson(h) + "\n";
    for (int i = 0; i < 40; ++i) {
      live::Sample smp;
      smp.ts_ns = 1700000000000000000 + int64_t(i) * 1000000000;
      const bool gpu_held = i >= 10 && i < 36;
      smp.Add("gpu0_util_pct", gpu_held ? 60 : 0);
      smp.Add("gpu0_mem_used_bytes", gpu_held ? 8e9 : 6e8);
      if (tree) smp.Add("proc_cpu_pct", 100);
      s += live::SampleJson(smp) + "\n";
    }
    return s;
  };
  auto own = Signals(samples(true));
  ASSERT_NE(own, nullptr);
  EXPECT_FALSE(own->gpu_runs.has_value());
  // Every sample is the job's; its first 10, before it held the GPU, are its start-up, kept out
  // of the figures (the 4 after it released the GPU stay in) and stated with them.
  ASSERT_TRUE(own->gpu_startup.has_value());
  EXPECT_EQ(own->gpu_startup->samples, 10);
  EXPECT_NEAR(own->gpu_startup->util_with_pct, 60.0 * 26 / 40, 1e-9);
  EXPECT_NEAR(*own->gpu_util_mean_pct, 60.0 * 26 / 30, 1e-9);
  auto gpu_only = Signals(samples(false));  // the same GPU samples without the tree: a GPU log
  ASSERT_NE(gpu_only, nullptr);
  ASSERT_TRUE(gpu_only->gpu_runs.has_value());
  EXPECT_NEAR(*gpu_only->gpu_util_mean_pct, 60.0, 1e-9);
}

// Power far beyond any GPU's draw under a W label is milliwatts (Jetson sensors, codecarbon):
// read so, with a note; at the limit it stays watts.
TEST(GpuLogPower, MilliwattsUnderAWattLabelBothSides) {
  auto log = [](double v) {
    std::string s = "timestamp,gpu_power_w\n";
    for (int i = 0; i < 10; ++i) s += fmt::format("{},{:g}\n", 1000 + i, v);
    return s;
  };
  Trace t;
  ASSERT_TRUE(testing::ImportText(log(6400), "gpu.csv", &t).ok());
  auto rs = ComputeResourceSignals(t);
  ASSERT_NE(rs, nullptr);
  ASSERT_EQ(rs->gpus.size(), 1u);
  EXPECT_NEAR(*rs->gpus[0].power_mean_w, 6.4, 1e-9);
  bool noted = false;
  for (const auto& [issue, n] : t.diagnostics.notes()) noted |= n.find("read as milliwatts") != std::string::npos;
  EXPECT_TRUE(noted);
  Trace watts;
  ASSERT_TRUE(testing::ImportText(log(2000), "gpu.csv", &watts).ok());
  EXPECT_NEAR(*ComputeResourceSignals(watts)->gpus[0].power_mean_w, 2000.0, 1e-9);
}

}  // namespace
}  // namespace stepdoctor

namespace stepdoctor {
namespace {

// Three runs of 20 samples with the GPU released between them: the first and last compute at 60%
// holding 12000 MiB (49% of 24 GiB), the middle one holds `mid_mib` at `mid_util` %.
Report NearFullMiddleRun(double mid_util, double mid_mib) {
  std::vector<Sample> v;
  Add(&v, 20, 60, 12000);
  Add(&v, 10, 0, 2);
  Add(&v, 20, mid_util, mid_mib);
  Add(&v, 10, 0, 2);
  Add(&v, 20, 60, 12000);
  Report r;
  Signals(Log(v), &r);
  return r;
}

TEST(GpuLogRuns, MemoryNearFullInOneRunSaysWhichBothSides) {
  // The full run computed nothing while the others did: low, it reserved what it held.
  Report idle = NearFullMiddleRun(0, 23000);
  const Finding* f = testing::FindFinding(idle, "gpu_memory_near_full");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("in 1 of the log's 3 runs"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("the others peaked at 48.8%"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("ran no work"), std::string::npos) << f->title;
  EXPECT_EQ(f->severity, FindingSeverity::kLow);
  EXPECT_NE(f->fix.summary.find("which process holds the memory"), std::string::npos) << f->fix.summary;
  // The full run computed: which run is said, and the usual advice to make room stays.
  Report busy = NearFullMiddleRun(50, 23000);
  const Finding* g = testing::FindFinding(busy, "gpu_memory_near_full");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->title.find("in 1 of the log's 3 runs"), std::string::npos) << g->title;
  EXPECT_EQ(g->title.find("ran no work"), std::string::npos) << g->title;
  EXPECT_EQ(g->severity, FindingSeverity::kModerate);
  // Every run near full: nothing about runs.
  std::vector<Sample> all;
  Add(&all, 20, 60, 23000);
  Add(&all, 10, 0, 2);
  Add(&all, 20, 60, 23000);
  Report every;
  Signals(Log(all), &every);
  const Finding* h = testing::FindFinding(every, "gpu_memory_near_full");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->title.find("runs"), std::string::npos) << h->title;
}

// An idle opening with memory held, whose run ends within kStartupMinSamples of its first work
// (the tail of a run begun before the log), is no start-up of the runs after it; held that long
// after its first work, it is.
TEST(GpuLogRuns, AnOpeningWhoseRunEndsAtOnceIsNoStartupBothSides) {
  auto startup = [](int held_after) {
    std::vector<Sample> v;
    Add(&v, 8, 0, 10000);
    Add(&v, 1, 80, 10000);
    Add(&v, held_after - 1, 0, 10000);
    Add(&v, 6, 0, 2);
    Add(&v, 40, 60, 9000);
    return Signals(Log(v))->gpu_startup.has_value();
  };
  EXPECT_FALSE(startup(kStartupMinSamples - 1));
  EXPECT_TRUE(startup(kStartupMinSamples));
}

}  // namespace
}  // namespace stepdoctor
