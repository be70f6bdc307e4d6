// What a GPU log's figures rest on: a verdict needs kMinSamples of the job's own samples (not of
// the log's, which may span time with no process on the GPU); holes in the sampling are said,
// both sides of kSampleGapFactor; a file cut mid-row says so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

struct Row {
  double t, util, mem_mib;
};

std::string Log(const std::vector<Row>& rows, bool last_newline = true) {
  std::string s = "timestamp,utilization.gpu,memory.used,memory.total\n";
  for (const Row& r : rows) s += fmt::format("{:g},{:g},{:g},24576\n", r.t, r.util, r.mem_mib);
  if (!last_newline) s.pop_back();
  return s;
}

Report Diagnose(const std::string& csv, Trace* keep = nullptr) {
  Trace t;
  Status st = testing::ImportText(csv, "gpu.csv", &t);
  EXPECT_TRUE(st.ok()) << st.message();
  Report r = AnalyzeTrace(t);
  if (keep) *keep = std::move(t);
  return r;
}

// `before` idle samples with no process, `job` busy samples, `after` idle again.
std::vector<Row> JobInLog(int before, int job, int after) {
  std::vector<Row> v;
  double t = 1000;
  for (int i = 0; i < before; ++i) v.push_back({t++, 0, 0});
  for (int i = 0; i < job; ++i) v.push_back({t++, 95, 12000});
  for (int i = 0; i < after; ++i) v.push_back({t++, 0, 0});
  return v;
}

TEST(GpuLogCoverage, AVerdictNeedsEnoughOfTheJobsOwnSamples) {
  // 9 samples, the job in 3 of them: too few to judge, though the log has 9.
  Report few = Diagnose(Log(JobInLog(1, kMinSamples - 2, 5)));
  EXPECT_NE(few.verdict.summary.find("too few samples to judge"), std::string::npos) << few.verdict.summary;
  EXPECT_NE(few.verdict.summary.find(fmt::format("in {} of the log's", kMinSamples - 2)), std::string::npos)
      << few.verdict.summary;
  EXPECT_EQ(testing::FindFinding(few, "gpu_well_fed"), nullptr);
  // What the log does show: how long the process held the GPU, its peak, and no process elsewhere.
  EXPECT_NE(few.verdict.summary.find(fmt::format("({}.0 s, utilisation peak 95%)", kMinSamples - 2)), std::string::npos)
      << few.verdict.summary;
  EXPECT_NE(few.verdict.summary.find("in the rest no process was on it"), std::string::npos) << few.verdict.summary;
  // The job in kMinSamples of them: judged.
  Report enough = Diagnose(Log(JobInLog(1, kMinSamples, 5)));
  EXPECT_EQ(enough.verdict.summary.find("too few samples"), std::string::npos) << enough.verdict.summary;
  EXPECT_NE(testing::FindFinding(enough, "gpu_well_fed"), nullptr) << enough.verdict.summary;
}

// Too few of the job's samples in a log that went on long after the GPU was released: the log did
// not stop too early, the job stopped using the GPU; "log for longer" only where the log ends
// soon after the job's last sample.
TEST(GpuLogCoverage, AJobThatLetTheGpuGoIsNotToldToLogLonger) {
  auto notes = [](const Report& r) {
    std::string all;
    for (const auto& n : r.notes) all += n + "\n";
    return all;
  };
  std::vector<Row> rows = JobInLog(3, kMinSamples - 2, 20);
  for (size_t i = 3; i < 3 + kMinSamples - 2; ++i) rows[i].util = 0;  // the job ran nothing
  const std::string gone = notes(Diagnose(Log(rows)));
  EXPECT_NE(gone.find("went on for 19.0 s after the GPU was released"), std::string::npos) << gone;
  EXPECT_NE(gone.find("ran no kernel worth a sample"), std::string::npos) << gone;
  EXPECT_NE(gone.find("11.7 of 24.0 GiB (49%)"), std::string::npos) << gone;
  EXPECT_EQ(gone.find("log for longer"), std::string::npos) << gone;
  const std::string cut = notes(Diagnose(Log(JobInLog(20, kMinSamples - 2, 1))));
  EXPECT_NE(cut.find("log for longer"), std::string::npos) << cut;
  EXPECT_EQ(cut.find("went on for"), std::string::npos) << cut;
}

TEST(GpuLogCoverage, HolesInTheSamplingAreSaid) {
  auto log = [](double hole_s) {
    std::vector<Row> v;
    double t = 1000;
    for (int i = 0; i < 60; ++i) {
      v.push_back({t, 90, 12000});
      t += i % 20 == 19 ? hole_s : 1;  // a hole every 20 samples
    }
    return Log(v);
  };
  Report holes = Diagnose(log(kSampleGapFactor + 1));
  const Finding* f = testing::FindFinding(holes, "gpu_well_fed");
  ASSERT_NE(f, nullptr) << holes.verdict.summary;
  EXPECT_NE(testing::EvidenceText(*f).find("2 holes in the sampling, up to 4 s"), std::string::npos)
      << testing::EvidenceText(*f);
  Report steady = Diagnose(log(kSampleGapFactor - 1));
  const Finding* g = testing::FindFinding(steady, "gpu_well_fed");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(testing::EvidenceText(*g).find("holes in the sampling"), std::string::npos) << testing::EvidenceText(*g);
}

TEST(GpuLogCoverage, AFileCutMidRowSaysSo) {
  std::vector<Row> v = JobInLog(0, 10, 0);
  std::string cut = Log(v, false);
  cut.resize(cut.rfind(',') + 1);  // "...,95,12000," with no total and no line end
  Trace t;
  Diagnose(cut, &t);
  EXPECT_TRUE(testing::AnyNoteContains(t, "the file ends mid-row")) << testing::NotesOf(t);
  Trace whole;
  Diagnose(Log(v, false), &whole);  // no line end, every field there: not cut
  EXPECT_FALSE(testing::AnyNoteContains(whole, "ends mid-row")) << testing::NotesOf(whole);
}

}  // namespace
}  // namespace stepdoctor
