// The resource classification and rules on both sides of each threshold (aggregates set
// directly), and dip detection on a synthetic series.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor {
namespace {

ResourceSignals Base() {
  ResourceSignals r;
  r.samples = 60;
  r.window_s = 60;
  r.interval_s = 1;
  r.cores = 8;
  r.cpu_mean_pct = 0;
  r.tree_cpu_mean_pct = 0;
  r.disk_read_bytes_per_s = 0;
  return r;
}

std::optional<Finding> Evaluate(std::optional<Finding> (*rule)(const Signals&), ResourceSignals r) {
  ClassifyResources(&r);
  Signals s;
  s.resources = &r;
  return rule(s);
}

ResourceSignals WithGpu(double util) {
  ResourceSignals r = Base();
  GpuResource g;
  g.util_mean_pct = util;
  r.gpus.push_back(g);
  r.gpu_util_mean_pct = util;
  return r;
}

TEST(ResourceRules, GpuStarvedCpuBoundBothSidesOfGpuThreshold) {
  ResourceSignals r = WithGpu(kGpuLowUtilPct - 0.1);
  r.tree_cpu_mean_pct = 0.75 * 800;  // 75% of 8 cores
  auto f = Evaluate(&rules::GpuStarvedCpuBound, r);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "gpu_starved_cpu_bound");
  EXPECT_NEAR(f->share_pct, 100 - (kGpuLowUtilPct - 0.1), 0.01);
  EXPECT_GT(f->gain_upper_bound, 3.0);
  EXPECT_FALSE(f->fix.pytorch.empty());
  EXPECT_FALSE(f->fix.tensorflow.empty());
  r.gpus[0].util_mean_pct = r.gpu_util_mean_pct = kGpuLowUtilPct + 0.1;
  EXPECT_FALSE(Evaluate(&rules::GpuStarvedCpuBound, r).has_value());
}

TEST(ResourceRules, GpuStarvedCpuBoundBothSidesOfCpuThreshold) {
  ResourceSignals r = WithGpu(20);
  r.tree_cpu_mean_pct = (kTreeCpuHighOfCoresPct + 0.1) / 100 * 800;
  EXPECT_TRUE(Evaluate(&rules::GpuStarvedCpuBound, r).has_value());
  r.tree_cpu_mean_pct = (kTreeCpuHighOfCoresPct - 0.1) / 100 * 800;  // not most cores, but 5.5 cores busy while the GPU waits
  auto busy = Evaluate(&rules::GpuStarvedCpuBound, r);
  ASSERT_TRUE(busy.has_value());
  EXPECT_NE(busy->fix.summary.find("Cores are free"), std::string::npos);
  // Waiting for a CPU counts as wanting it: a contended job is still CPU-bound.
  r.tree_cpu_wait_mean_pct = 0.05 * 800;
  EXPECT_TRUE(Evaluate(&rules::GpuStarvedCpuBound, r).has_value());
  // One core saturated (a num_workers=0 loader) also starves the GPU.
  r.tree_cpu_mean_pct = kGpuFeedCpuPct + 0.1;
  r.tree_cpu_wait_mean_pct = 0;
  EXPECT_TRUE(Evaluate(&rules::GpuStarvedCpuBound, r).has_value());
  r.tree_cpu_mean_pct = kGpuFeedCpuPct - 0.1;  // under one core's worth: not what the GPU waits on
  EXPECT_FALSE(Evaluate(&rules::GpuStarvedCpuBound, r).has_value());
  EXPECT_TRUE(Evaluate(&rules::LowGpuUtilisation, r).has_value());  // the catch-all takes over
}

TEST(ResourceRules, StorageBoundEachIndicatorBothSides) {
  struct Case {
    std::optional<double> ResourceSignals::*field;
    double below, above;
  } cases[] = {
      {&ResourceSignals::iowait_mean_pct, kIowaitHighPct - 0.1, kIowaitHighPct + 0.1},
      {&ResourceSignals::disk_util_mean_pct, kDiskUtilHighPct - 0.1, kDiskUtilHighPct + 0.1},
      {&ResourceSignals::psi_io_some_mean_pct, kPsiIoHighPct - 0.1, kPsiIoHighPct + 0.1},
      {&ResourceSignals::tree_blocked_pct, kTreeBlockedHighPct - 0.1, kTreeBlockedHighPct + 0.1},
      {&ResourceSignals::tree_read_bytes_per_s, kTreeIoHighBytesPerS - 0.1e6, kTreeIoHighBytesPerS + 0.1e6},
  };
  for (const auto& c : cases) {
    ResourceSignals r = WithGpu(15);
    r.tree_cpu_mean_pct = 40;
    r.*c.field = c.below;
    EXPECT_FALSE(Evaluate(&rules::StorageBound, r).has_value());
    r.*c.field = c.above;
    auto f = Evaluate(&rules::StorageBound, r);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->severity, FindingSeverity::kHigh);
    // CPU-only job: the same indicators, with the CPU low.
    ResourceSignals cpu = Base();
    cpu.tree_cpu_mean_pct = 20;
    cpu.*c.field = c.above;
    EXPECT_TRUE(Evaluate(&rules::StorageBound, cpu).has_value());
  }
  // Busy CPU wins over a busy disk: the GPU waits on preprocessing, not on storage.
  ResourceSignals r = WithGpu(15);
  r.tree_cpu_mean_pct = 0.9 * 800;
  r.iowait_mean_pct = 30;
  EXPECT_FALSE(Evaluate(&rules::StorageBound, r).has_value());
  EXPECT_TRUE(Evaluate(&rules::GpuStarvedCpuBound, r).has_value());
}

TEST(ResourceRules, GpuMemoryNearFullBothSides) {
  ResourceSignals r = WithGpu(90);
  r.gpus[0].mem_used_peak_pct = kMemoryNearFullPct + 0.1;
  r.gpus[0].mem_used_peak_bytes = 76e9;
  r.gpus[0].mem_total_bytes = 79.6e9;
  auto f = Evaluate(&rules::GpuMemoryNearFull, r);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->gain_upper_bound, 1.0);  // honest: headroom, not speed
  r.gpus[0].mem_used_peak_pct = kMemoryNearFullPct - 0.1;
  EXPECT_FALSE(Evaluate(&rules::GpuMemoryNearFull, r).has_value());
}

TEST(ResourceRules, SerialCpuPipelineBothSides) {
  ResourceSignals r = Base();
  r.tree_cpu_mean_pct = 99;
  r.cpu_mean_pct = 100.0 * (0.99 + 7 * 0.05) / 8;  // other cores 5% busy
  r.other_cores_busy_pct = 5;
  auto f = Evaluate(&rules::SerialCpuPipeline, r);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->gain_upper_bound, 8.0);
  EXPECT_EQ(f->severity, FindingSeverity::kHigh);  // 8 >= kSerialCpuHighCores
  r.cores = kSerialCpuHighCores - 1;
  EXPECT_EQ(Evaluate(&rules::SerialCpuPipeline, r)->severity, FindingSeverity::kModerate);
  r.cores = 8;
  r.tree_cpu_mean_pct = kOneCoreSaturatedPct - 0.1;  // not saturated
  EXPECT_FALSE(Evaluate(&rules::SerialCpuPipeline, r).has_value());
  r.tree_cpu_mean_pct = kOneCoreCeilingPct + 0.1;  // more than one core: not serial
  EXPECT_FALSE(Evaluate(&rules::SerialCpuPipeline, r).has_value());
  r.tree_cpu_mean_pct = 99;
  r.other_cores_busy_pct = kOtherCoresIdlePct - 0.1;
  EXPECT_TRUE(Evaluate(&rules::SerialCpuPipeline, r).has_value());
  r.other_cores_busy_pct = kOtherCoresIdlePct + 0.1;  // the rest of the machine is busy too
  EXPECT_FALSE(Evaluate(&rules::SerialCpuPipeline, r).has_value());
  // A GPU job with one saturated core is gpu_starved_cpu_bound, not serial_cpu_pipeline.
  ResourceSignals g = WithGpu(10);
  g.tree_cpu_mean_pct = 99;
  g.other_cores_busy_pct = 5;
  EXPECT_FALSE(Evaluate(&rules::SerialCpuPipeline, g).has_value());
}

TEST(ResourceRules, MostlyIdleAndCpuSaturated) {
  ResourceSignals r = Base();
  r.tree_cpu_mean_pct = kIdleTreeCpuPct - 0.1;
  EXPECT_TRUE(Evaluate(&rules::MostlyIdle, r).has_value());
  r.tree_cpu_mean_pct = kIdleTreeCpuPct + 0.1;
  EXPECT_FALSE(Evaluate(&rules::MostlyIdle, r).has_value());
  r.tree_cpu_mean_pct = kIdleTreeCpuPct - 0.1;
  r.iowait_mean_pct = 15;  // waiting on disk is not idle
  EXPECT_FALSE(Evaluate(&rules::MostlyIdle, r).has_value());

  ResourceSignals c = Base();
  c.tree_cpu_mean_pct = (kTreeCpuHighOfCoresPct + 0.1) / 100 * 800;
  auto f = Evaluate(&rules::CpuSaturated, c);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, FindingSeverity::kNone);
  c.tree_cpu_mean_pct = (kTreeCpuHighOfCoresPct - 0.1) / 100 * 800;
  EXPECT_FALSE(Evaluate(&rules::CpuSaturated, c).has_value());
}

// A trace with one worker and a GPU util series: 100 s at 80%, dropping to 5% for 3 s at each
// of `starts` (seconds).
Trace DipTrace(const std::vector<int>& starts) {
  Trace t;
  Worker w;
  w.hostname = "h";
  WorkerId wid = t.AddWorker(w);
  CounterSeries c;
  c.worker = wid;
  c.device = t.GetOrAddDevice(wid, DeviceKind::kGpu, 0, "GPU 0");
  c.name = "gpu0_util_pct";
  c.unit = "%";
  for (int s = 0; s < 100; ++s) {
    bool dip = false;
    for (int st : starts) dip |= s >= st && s < st + 3;
    c.ts_ns.push_back(int64_t(s) * 1000000000);
    c.value.push_back(dip ? 5 : 80);
  }
  t.counters.push_back(c);
  return t;
}

TEST(ResourceRules, PeriodicUtilisationDipsRegularFiresIrregularDoesNot) {
  Trace regular = DipTrace({20, 40, 60, 80});
  auto r = ComputeResourceSignals(regular);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->dips.has_value());
  EXPECT_EQ(r->dips->count, 4);
  EXPECT_NEAR(r->dips->period_s.value_or(0), 20, 0.5);
  Signals s;
  s.resources = r.get();
  auto f = rules::PeriodicUtilisationDips(s);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->share_pct, 12, 0.5);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);  // 12% >= kDipModerateSharePct

  Trace irregular = DipTrace({10, 22, 50, 58, 90});  // gaps 12, 28, 8, 32 s
  auto ir = ComputeResourceSignals(irregular);
  ASSERT_NE(ir, nullptr);
  ASSERT_TRUE(ir->dips.has_value());
  EXPECT_GE(ir->dips->count, 3);
  EXPECT_GT(ir->dips->period_cv.value_or(0), kDipMaxPeriodCv);
  s.resources = ir.get();
  EXPECT_FALSE(rules::PeriodicUtilisationDips(s).has_value());
}

TEST(ResourceRules, TooFewSamplesGiveNoSignals) {
  Trace t = DipTrace({20, 40, 60, 80});
  t.counters[0].ts_ns.resize(kMinSamples - 1);
  t.counters[0].value.resize(kMinSamples - 1);
  EXPECT_EQ(ComputeResourceSignals(t), nullptr);
}


TEST(ResourceRules, GpuWellFedGpuPartlyIdleAndLowGpuUtilisationBothSides) {
  // kGpuWellFedPct: at 80% the GPU is well fed (a busy note naming no bottleneck); under it, partly idle.
  ResourceSignals r = WithGpu(kGpuWellFedPct);
  r.tree_cpu_mean_pct.reset();  // a GPU log alone
  r.cpu_mean_pct.reset();
  r.disk_read_bytes_per_s.reset();
  auto fed = Evaluate(&rules::GpuWellFed, r);
  ASSERT_TRUE(fed.has_value());
  EXPECT_EQ(fed->severity, FindingSeverity::kNone);
  EXPECT_FALSE(Evaluate(&rules::GpuPartlyIdle, r).has_value());
  r.gpus[0].util_mean_pct = r.gpu_util_mean_pct = kGpuWellFedPct - 0.1;
  EXPECT_FALSE(Evaluate(&rules::GpuWellFed, r).has_value());
  auto partly = Evaluate(&rules::GpuPartlyIdle, r);
  ASSERT_TRUE(partly.has_value());
  EXPECT_NEAR(partly->share_pct, 100 - (kGpuWellFedPct - 0.1), 0.01);
  // kGpuLowUtilPct: at 30% partly idle, under it starved (low_gpu_utilisation).
  r.gpus[0].util_mean_pct = r.gpu_util_mean_pct = 30;
  EXPECT_TRUE(Evaluate(&rules::GpuPartlyIdle, r).has_value());
  EXPECT_FALSE(Evaluate(&rules::LowGpuUtilisation, r).has_value());
  r.gpus[0].util_mean_pct = r.gpu_util_mean_pct = kGpuLowUtilPct - 0.1;
  EXPECT_FALSE(Evaluate(&rules::GpuPartlyIdle, r).has_value());
  EXPECT_TRUE(Evaluate(&rules::LowGpuUtilisation, r).has_value());
  // With a profile's steps the step breakdown speaks instead.
  r.gpus[0].util_mean_pct = r.gpu_util_mean_pct = 95;
  ClassifyResources(&r);
  StepSignals steps;
  steps.step_count = 3;
  Signals s;
  s.resources = &r;
  s.steps = &steps;
  EXPECT_FALSE(rules::GpuWellFed(s).has_value());
}

// One worker, GPU 0 at `util0` and GPU 1 at `util1` for 30 one-second samples.
Trace TwoGpus(double util0, double util1) {
  Trace t;
  Worker w;
  w.hostname = "h";
  WorkerId wid = t.AddWorker(w);
  for (int g = 0; g < 2; ++g) {
    CounterSeries c;
    c.worker = wid;
    c.device = t.GetOrAddDevice(wid, DeviceKind::kGpu, g, "GPU " + std::to_string(g));
    c.name = "gpu" + std::to_string(g) + "_util_pct";
    c.unit = "%";
    for (int s = 0; s < 30; ++s) {
      c.ts_ns.push_back(int64_t(s) * 1000000000);
      c.value.push_back(g == 0 ? util0 : util1);
    }
    t.counters.push_back(c);
  }
  return t;
}

std::optional<Finding> IdleGpuOn(const Trace& t, std::unique_ptr<ResourceSignals>* keep) {
  *keep = ComputeResourceSignals(t);
  Signals s;
  s.resources = keep->get();
  return rules::IdleGpu(s);
}

TEST(ResourceRules, IdleGpuBothSidesOfEachThreshold) {
  std::unique_ptr<ResourceSignals> r;
  // kUnusedGpuPeakPct: a GPU never reaching 10% beside a busy one is unused.
  auto f = IdleGpuOn(TwoGpus(90, 9.9), &r);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "idle_gpu");
  EXPECT_NE(f->title.find("GPU 1 "), std::string::npos) << f->title;
  EXPECT_EQ(f->gain_upper_bound, 2.0);
  EXPECT_NEAR(r->gpu_util_mean_pct.value_or(-1), 90, 0.01);  // over the GPU in use
  EXPECT_EQ(r->gpus_in_use, 1);
  EXPECT_FALSE(IdleGpuOn(TwoGpus(90, 10), &r).has_value());
  EXPECT_NEAR(r->gpu_util_mean_pct.value_or(-1), 50, 0.01);
  // Beside busy ones: with no GPU in use it is mostly_idle's or low_gpu_utilisation's case.
  EXPECT_FALSE(IdleGpuOn(TwoGpus(9.9, 0), &r).has_value());
  EXPECT_TRUE(IdleGpuOn(TwoGpus(10, 0), &r).has_value());
}


TEST(ResourceRules, IdleGpuSaysWhenAProcessHoldsMemoryThere) {
  ResourceSignals r = WithGpu(90);
  GpuResource unused;
  unused.index = 3;
  unused.util_mean_pct = unused.util_peak_pct = 0;  // sampled, never busy
  unused.unused = true;
  unused.mem_total_bytes = 48e9;
  unused.mem_used_peak_bytes = 1024.0 * 1024 * 1024;  // 1 GiB: a process holds it ...
  unused.mem_samples = 10;
  unused.mem_held_samples = 10;                        // ... all along
  r.gpus.push_back(unused);
  r.gpus_in_use = 1;
  Signals s;
  s.resources = &r;
  auto held = rules::IdleGpu(s);
  ASSERT_TRUE(held.has_value());
  EXPECT_NE(held->title.find("GPU 3 "), std::string::npos) << held->title;
  EXPECT_NE(held->evidence[0].value.find("holds memory"), std::string::npos) << held->evidence[0].value;
  r.gpus[1].mem_used_peak_bytes = 1000.0 * 1024 * 1024;  // under 1 GiB: the driver's own share
  r.gpus[1].mem_held_samples = 0;
  auto empty = rules::IdleGpu(s);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->evidence[0].value.find("holds memory"), std::string::npos);
}

// A figure that was not sampled is empty, never 0, and the rules do not report it as one.

// SageMaker system metrics hold per-core CPU and GPU utilisation, no iowait: an idle job's
// evidence used to read "CPU iowait (machine) 0.0%" for a column the log never had.
TEST(ResourceRules, UnsampledIowaitIsNotReportedAsZero) {
  Trace t;
  Worker w;
  w.hostname = "algo-1";
  WorkerId wid = t.AddWorker(w);
  for (const char* name : {"cpu_core0_pct", "cpu_core1_pct", "gpu0_util_pct"}) {
    CounterSeries c;
    c.worker = wid;
    c.name = name;
    c.unit = "%";
    for (int s = 0; s < 30; ++s) {
      c.ts_ns.push_back(int64_t(s) * 1000000000);
      c.value.push_back(1);
    }
    t.counters.push_back(c);
  }
  auto r = ComputeResourceSignals(t);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cores, 2);
  EXPECT_TRUE(r->cpu_mean_pct.has_value());
  EXPECT_FALSE(r->iowait_mean_pct.has_value());
  EXPECT_FALSE(r->tree_cpu_mean_pct.has_value());
  EXPECT_FALSE(r->disk_util_mean_pct.has_value());
  ASSERT_EQ(r->classification, ResourceClass::kIdle) << ResourceClassName(r->classification);
  Signals s;
  s.resources = r.get();
  auto f = rules::MostlyIdle(s);
  ASSERT_TRUE(f.has_value());
  for (const auto& e : f->evidence) {
    EXPECT_EQ(e.label.find("iowait"), std::string::npos) << e.label << ": " << e.value;
    EXPECT_EQ(e.label.find("D state"), std::string::npos) << e.label << ": " << e.value;
  }
  // Sampled, it is shown, at 0 too.
  r->iowait_mean_pct = 0;
  f = rules::MostlyIdle(s);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(std::any_of(f->evidence.begin(), f->evidence.end(), [](const EvidenceItem& e) {
    return e.label.find("iowait") != std::string::npos && e.value == "0.0%";
  }));
}

// Machine-wide CPU without per-core series: the core count is unknown, not 0. cpu_saturated
// used to title such a log "keeps the CPU busy (0.00 cores (0%))".
TEST(ResourceRules, CpuSaturatedWithUnknownCoreCountStatesTheMachineShare) {
  ResourceSignals r;
  r.samples = 60;
  r.window_s = 60;
  r.interval_s = 1;
  r.cpu_mean_pct = kTreeCpuHighOfCoresPct + 0.1;
  auto f = Evaluate(&rules::CpuSaturated, r);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->title.find("0.00 cores"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find(fmt::format("{:.1f}%", kTreeCpuHighOfCoresPct + 0.1)), std::string::npos) << f->title;
  r.cpu_mean_pct = kTreeCpuHighOfCoresPct - 0.1;
  EXPECT_FALSE(Evaluate(&rules::CpuSaturated, r).has_value());
  // With the core count known, the demand in cores as before.
  r.cpu_mean_pct = 90;
  r.cores = 4;
  f = Evaluate(&rules::CpuSaturated, r);
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->title.find("3.60 cores"), std::string::npos) << f->title;
}

// A CPU-only storage-bound log without a process tree (machine CPU and iowait): the idle share
// is the machine's, not 100% from an unsampled tree read as 0% busy (which claimed "up to 100x").
TEST(ResourceRules, StorageBoundWithoutTreeUsesTheMachineShare) {
  ResourceSignals r;
  r.samples = 60;
  r.window_s = 60;
  r.interval_s = 1;
  r.cores = 8;
  r.cpu_mean_pct = 20;
  r.iowait_mean_pct = kIowaitHighPct + 0.1;
  auto f = Evaluate(&rules::StorageBound, r);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->share_pct, 80, 1e-9);
  EXPECT_NEAR(f->gain_upper_bound, 5.0, 1e-9);
  r.iowait_mean_pct = kIowaitHighPct - 0.1;
  EXPECT_FALSE(Evaluate(&rules::StorageBound, r).has_value());
}

}  // namespace
}  // namespace stepdoctor
