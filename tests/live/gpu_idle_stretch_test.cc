// The longest idle stretch of a GPU log with memory held (GpuIdleStretch): a reading of 0% at a
// working GPU's power draw is a snapshot between kernels, not a pause, and snapshots far apart say
// only what they saw. Both sides of kIdlePowerShare, kIdlePowerMinSpreadW and kCoarseSampleIntervalS.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "gpu_log_signals.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

struct Reading {
  double util, mem_mib, power_w;
};

// One 24 GiB GPU, a sample every `interval_s` seconds.
std::string Log(const std::vector<Reading>& v, int interval_s = 1) {
  std::string s = "timestamp,utilization.gpu,memory.used,memory.total,power.draw\n";
  for (size_t i = 0; i < v.size(); ++i)
    s += fmt::format("{},{:g},{:g},24576,{:g}\n", 1000 + int(i) * interval_s, v[i].util, v[i].mem_mib, v[i].power_w);
  return s;
}

// 100 samples of a job at 60% drawing 300 W, 20 of them in a row at 0% drawing `idle_w`, holding
// 20 GiB throughout; the log's lowest draw is 60 W (one sample before the job).
std::vector<Reading> Job(double idle_w) {
  std::vector<Reading> v;
  v.push_back({60, 20480, 60});
  for (int i = 0; i < 39; ++i) v.push_back({60, 20480, 300});
  for (int i = 0; i < 20; ++i) v.push_back({0, 20480, idle_w});
  for (int i = 0; i < 40; ++i) v.push_back({60, 20480, 300});
  return v;
}

std::unique_ptr<ResourceSignals> Signals(const std::string& csv, Report* report = nullptr) {
  return testing::GpuLogSignals(csv, report);
}

TEST(GpuIdleStretch, IdleReadingsAtAWorkingGpusPowerAreNoPauseBothSides) {
  // Halfway from the lowest draw (60 W) to the busy samples' median (300 W): 180 W.
  const double ceiling = 60 + kIdlePowerShare * (300 - 60);
  EXPECT_FALSE(Signals(Log(Job(ceiling + 1)))->gpu_idle_stretch.has_value());
  Report r;
  auto rs = Signals(Log(Job(ceiling)), &r);
  ASSERT_TRUE(rs->gpu_idle_stretch.has_value());
  EXPECT_EQ(rs->gpu_idle_stretch->samples, 20);
  EXPECT_TRUE(rs->gpu_idle_stretch->power_checked);
  const Finding* f = testing::FindFinding(r, "gpu_partly_idle");
  ASSERT_NE(f, nullptr);
  const std::string ev = testing::EvidenceText(*f);
  EXPECT_NE(ev.find("holding up to 20.0 GiB at idle power: the job paused"), std::string::npos) << ev;
}

TEST(GpuIdleStretch, PowerThatCannotTellIdleFromBusyIsNotReadBothSides) {
  // Busy at 300 W, the lowest draw `floor` W: under kIdlePowerMinSpreadW apart, power says nothing.
  auto log = [](double floor) {
    std::vector<Reading> v = Job(300);  // idle readings at the busy draw
    v[0].power_w = floor;
    return Log(v);
  };
  EXPECT_FALSE(Signals(log(300 - kIdlePowerMinSpreadW))->gpu_idle_stretch.has_value());
  auto rs = Signals(log(300 - kIdlePowerMinSpreadW + 1));
  ASSERT_TRUE(rs->gpu_idle_stretch.has_value());
  EXPECT_FALSE(rs->gpu_idle_stretch->power_checked);
}

TEST(GpuIdleStretch, SnapshotsFarApartSayOnlyWhatTheySawBothSides) {
  auto evidence = [](int interval_s) {
    Report r;
    Signals(Log(Job(60), interval_s), &r);
    const Finding* f = testing::FindFinding(r, "gpu_partly_idle");
    return f ? testing::EvidenceText(*f) : std::string("(no gpu_partly_idle)");
  };
  const int coarse = int(kCoarseSampleIntervalS);
  const std::string fine = evidence(coarse - 1), far = evidence(coarse);
  EXPECT_NE(fine.find("the job paused with its model loaded"), std::string::npos) << fine;
  EXPECT_EQ(fine.find("snapshots"), std::string::npos) << fine;
  EXPECT_NE(far.find("snapshots 10.0 s apart read the GPU idle; the job may have paused"), std::string::npos) << far;
  EXPECT_NE(far.find("or ran between them"), std::string::npos) << far;
}

}  // namespace
}  // namespace stepdoctor
