// `stepdoctor diff`: the DiffReport from hand-made traces and reports, its four renderers, and
// the corpus pairs (DataLoader num_workers 0 -> 4; HTA's trace_diff control -> test).
#include <gtest/gtest.h>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/reports_to_diff.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/render/diff_render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// One GPU stream holding `count` events of each (name, dur_ms).
Trace KernelTrace(const std::vector<std::tuple<std::string, double, int>>& kernels) {
  Trace t;
  WorkerId w = t.AddWorker(Worker{});
  DeviceId d = t.GetOrAddDevice(w, DeviceKind::kGpu, 0, "GPU 0");
  TimelineId tl = t.AddTimeline(w, d, TimelineKind::kDeviceStream, 7, "stream 7");
  int64_t at = 0;
  for (const auto& [name, ms, count] : kernels) {
    StringId id = t.strings.Intern(name);
    for (int i = 0; i < count; ++i) {
      int64_t dur = static_cast<int64_t>(ms * 1e6);
      t.timeline(tl).Add(at, dur, id, EventKind::kKernel);
      at += dur + 1000;
    }
  }
  t.Finalize();
  return t;
}

Report StepReport(int steps, double median_ms, Bottleneck b, std::vector<BreakdownEntry> breakdown) {
  Report r;
  r.steps.count = steps;
  r.steps.median_ms = median_ms;
  r.steps.source = "ProfilerStep#N markers";
  r.verdict.bottleneck = b;
  r.verdict.summary = BottleneckName(b);
  r.breakdown = std::move(breakdown);
  return r;
}

TEST(DiffReport, StepTimeCategoriesAndVerdict) {
  Trace empty;
  Report before = StepReport(6, 150, Bottleneck::kInput, {{"input", 45, 30}, {"device_compute", 100, 66.7}});
  Report after = StepReport(6, 120, Bottleneck::kDeviceCompute, {{"input", 1.5, 1.25}, {"device_compute", 110, 91.7}});
  Finding f;
  f.id = "input_bound";
  f.severity = FindingSeverity::kHigh;
  before.findings.push_back(f);
  DiffReport d = ReportsToDiff(empty, before, empty, after);
  EXPECT_DOUBLE_EQ(d.step_delta_ms, -30);
  ASSERT_TRUE(d.step_change_pct);
  EXPECT_DOUBLE_EQ(*d.step_change_pct, -20);
  ASSERT_TRUE(d.speedup);
  EXPECT_DOUBLE_EQ(*d.speedup, 1.25);
  EXPECT_TRUE(d.verdict_changed);
  ASSERT_EQ(d.categories.size(), 2u);
  EXPECT_EQ(d.categories[0].category, "input");
  EXPECT_DOUBLE_EQ(d.categories[0].delta_ms, -43.5);
  EXPECT_NEAR(*d.categories[0].change_pct, -96.667, 0.01);
  EXPECT_NEAR(d.categories[0].delta_pp, -28.75, 1e-9);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].before, FindingSeverity::kHigh);
  EXPECT_FALSE(d.findings[0].after);
  EXPECT_FALSE(d.per_step);  // same step counts: totals
  EXPECT_EQ(d.unit, "ms");
}

bool HasNoteWith(const DiffReport& d, const std::string& text) {
  for (const auto& n : d.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

Report SpreadReport(int steps, double median_ms, double min_ms, double max_ms) {
  Report r = StepReport(steps, median_ms, Bottleneck::kDeviceCompute, {{"device_compute", median_ms, 100}});
  r.steps.min_ms = min_ms;
  r.steps.max_ms = max_ms;
  return r;
}

// A one-step side shows no variation; medians inside each other's spread may be noise; a change
// clear of both spreads gets no such note.
TEST(DiffReport, StepSpreadSaysWhenTheChangeMayBeNoise) {
  Trace empty;
  EXPECT_TRUE(HasNoteWith(ReportsToDiff(empty, SpreadReport(1, 112, 112, 112), empty, SpreadReport(5, 100, 95, 104)),
                          "before holds one step"));
  EXPECT_TRUE(HasNoteWith(ReportsToDiff(empty, SpreadReport(5, 100, 95, 104), empty, SpreadReport(1, 90, 90, 90)),
                          "after holds one step"));
  DiffReport noisy = ReportsToDiff(empty, SpreadReport(6, 100, 80, 130), empty, SpreadReport(6, 95, 85, 120));
  EXPECT_TRUE(HasNoteWith(noisy, "it may be noise"));
  DiffReport clear = ReportsToDiff(empty, SpreadReport(6, 150, 140, 160), empty, SpreadReport(6, 120, 115, 126));
  EXPECT_FALSE(HasNoteWith(clear, "noise"));
}

TEST(DiffReport, KernelsAddedRemovedSlowerFaster) {
  Trace before = KernelTrace({{"gemm", 2.0, 10}, {"relu", 1.0, 10}, {"old_conv", 3.0, 2}, {"tiny", 0.01, 10}});
  Trace after = KernelTrace({{"gemm", 3.0, 10}, {"relu", 0.5, 10}, {"new_conv", 1.0, 4}, {"tiny", 0.0102, 10}});
  Report rb = StepReport(2, 20, Bottleneck::kDeviceCompute, {});
  Report ra = StepReport(2, 20, Bottleneck::kDeviceCompute, {});
  DiffReport d = ReportsToDiff(before, rb, after, ra);
  ASSERT_EQ(d.kernels.slower.size(), 1u);
  EXPECT_EQ(d.kernels.slower[0].name, "gemm");
  EXPECT_NEAR(d.kernels.slower[0].delta_ms, 10, 1e-6);
  EXPECT_NEAR(*d.kernels.slower[0].change_pct, 50, 1e-6);
  ASSERT_EQ(d.kernels.faster.size(), 1u);
  EXPECT_EQ(d.kernels.faster[0].name, "relu");
  ASSERT_EQ(d.kernels.added.size(), 1u);
  EXPECT_EQ(d.kernels.added[0].name, "new_conv");
  EXPECT_EQ(d.kernels.added[0].after_count, 4);
  ASSERT_EQ(d.kernels.removed.size(), 1u);
  EXPECT_EQ(d.kernels.removed[0].name, "old_conv");
  // "tiny" changed by 2%, under the 5% threshold: in none of the groups.
  EXPECT_EQ(d.kernels.slower_total + d.kernels.faster_total, 2);
}

TEST(DiffReport, NormalisesPerStepWhenStepCountsDiffer) {
  Trace before = KernelTrace({{"gemm", 2.0, 10}});
  Trace after = KernelTrace({{"gemm", 2.0, 20}});
  DiffReport d = ReportsToDiff(before, StepReport(5, 20, Bottleneck::kDeviceCompute, {}), after,
                               StepReport(10, 20, Bottleneck::kDeviceCompute, {}));
  EXPECT_TRUE(d.per_step);
  EXPECT_EQ(d.unit, "ms/step");
  // Twice the steps, twice the kernels: per step nothing changed.
  EXPECT_TRUE(d.kernels.slower.empty());
  EXPECT_TRUE(d.kernels.faster.empty());
  EXPECT_NEAR(d.kernels.before_total_ms, 4, 1e-9);
  EXPECT_NEAR(d.kernels.after_total_ms, 4, 1e-9);
}

TEST(DiffReport, CutsListsButKeepsTotals) {
  std::vector<std::tuple<std::string, double, int>> many;
  for (int i = 0; i < 30; ++i) many.push_back({"k" + std::to_string(i), 1.0 + i, 1});
  Trace empty;
  Trace after = KernelTrace(many);
  DiffOptions opts;
  opts.max_rows = 5;
  DiffReport d = ReportsToDiff(empty, Report{}, after, Report{}, opts);
  EXPECT_EQ(d.kernels.added.size(), 5u);
  EXPECT_EQ(d.kernels.added_total, 30);
  EXPECT_EQ(d.kernels.added[0].name, "k29");  // largest first
}

// The loop closed: a before-side prediction for a fix the after side shows made (the finding gone,
// or its share at most half) is checked against the after side's mean step; a finding still as
// large is not.
TEST(DiffReport, PredictionsAreCheckedWhereTheFixWasMade) {
  Report before = StepReport(6, 150, Bottleneck::kInput, {});
  Finding f;
  f.id = "input_bound";
  f.share_pct = 30;
  Prediction p;
  p.fix = "input";
  p.predicted = true;
  p.predicted_step_ms = 118;
  p.low_ms = 112;
  p.high_ms = 124;
  f.prediction = p;
  before.findings.push_back(f);
  Report after = StepReport(6, 125, Bottleneck::kHost, {});
  after.steps.mean_ms = 120;
  Trace empty;
  DiffReport d = ReportsToDiff(empty, before, empty, after, {});
  ASSERT_EQ(d.predictions.size(), 1u);
  EXPECT_EQ(d.predictions[0].finding, "input_bound");
  EXPECT_NEAR(d.predictions[0].error_pct, 100.0 * (118 - 120) / 120, 1e-9);
  EXPECT_TRUE(d.predictions[0].within_range);
  EXPECT_NE(RenderDiffText(d, {}).find("predicted 118 ms"), std::string::npos);
  // The finding still there at more than half its share: the fix was not made, nothing checked.
  Finding still = f;
  still.share_pct = kFixAppliedShareRatio * 30 + 0.1;
  after.findings.push_back(still);
  EXPECT_TRUE(ReportsToDiff(empty, before, empty, after, {}).predictions.empty());
  after.findings.back().share_pct = kFixAppliedShareRatio * 30 - 0.1;
  EXPECT_EQ(ReportsToDiff(empty, before, empty, after, {}).predictions.size(), 1u);
  // A larger batch's predicted step is not checked: the report cannot tell the after-run's batch
  // (the finding may be gone by another fix).
  before.findings.back().prediction->batch_scale = 4;
  EXPECT_TRUE(ReportsToDiff(empty, before, empty, after, {}).predictions.empty());
}

TEST(DiffRender, AllFormatsSayTheStepChange) {
  Trace empty;
  Report before = StepReport(6, 150, Bottleneck::kInput, {{"input", 45, 30}});
  Report after = StepReport(6, 120, Bottleneck::kHost, {{"input", 1.5, 1.25}});
  before.inputs = {"a<b>.json"};
  DiffReport d = ReportsToDiff(empty, before, empty, after);
  for (const auto& name : DiffRendererNames()) {
    DiffRenderer r = FindDiffRenderer(name);
    ASSERT_NE(r, nullptr) << name;
    std::string out = r(d, {});
    EXPECT_NE(out.find(name == "json" ? "\"step_change_pct\": -20" : "-20.0%"), std::string::npos) << name << "\n" << out;
    if (name == "html") {
      EXPECT_NE(out.find("a&lt;b&gt;.json"), std::string::npos);
      EXPECT_NE(out.find("<svg id=\"diff-breakdown-chart\""), std::string::npos);
    }
  }
  EXPECT_EQ(DiffSpeedText(d), "1.25x faster");
  EXPECT_EQ(DiffVerdictText(d), "input -> host");
}

struct Pair {
  Report before, after;
  DiffReport diff;
};

Pair DiffCorpus(const std::string& a, const std::string& b) {
  Pair p;
  auto ta = ImportPaths({a});
  auto tb = ImportPaths({b});
  EXPECT_TRUE(ta.ok()) << ta.message();
  EXPECT_TRUE(tb.ok()) << tb.message();
  if (!ta.ok() || !tb.ok()) return p;
  p.before = AnalyzeTrace(ta->trace);
  p.after = AnalyzeTrace(tb->trace);
  p.diff = ReportsToDiff(ta->trace, p.before, tb->trace, p.after);
  return p;
}

const CategoryDelta* Category(const DiffReport& d, const std::string& id) {
  for (const auto& c : d.categories)
    if (c.category == id) return &c;
  return nullptr;
}

// corpus/EXPECTED.md: median step about 152 ms -> about 123 ms; DataLoader 44-47 ms -> 1.3-1.7 ms per step.
TEST(DiffCorpus, DataLoaderWorkersPair) {
  SD_CORPUS_OR_SKIP(a, "kineto-tb-plugin-samples/resnet50_num_workers_0");
  SD_CORPUS_OR_SKIP(b, "kineto-tb-plugin-samples/resnet50_num_workers_4");
  Pair p = DiffCorpus(a, b);
  const DiffReport& d = p.diff;
  EXPECT_NEAR(d.before.median_step_ms, 152, 4);
  EXPECT_NEAR(d.after.median_step_ms, 124, 4);
  EXPECT_LT(d.step_delta_ms, -20);
  ASSERT_TRUE(d.speedup);
  EXPECT_GT(*d.speedup, 1.15);
  // The step's wait on data all but disappears (about 95% down or more).
  const CategoryDelta* input = Category(d, "input");
  ASSERT_NE(input, nullptr);
  EXPECT_GT(input->before_ms, 25);
  ASSERT_TRUE(input->change_pct);
  EXPECT_LT(*input->change_pct, -90);
  EXPECT_LT(input->delta_pp, -15);
  EXPECT_EQ(d.before.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_NE(d.after.verdict.bottleneck, Bottleneck::kInput);
  EXPECT_TRUE(d.verdict_changed);
  bool input_finding_gone = false;
  for (const auto& f : d.findings)
    if (f.id == "input_bound") input_finding_gone = f.before && !f.after;
  EXPECT_TRUE(input_finding_gone);
  // Same 6 steps on both sides, so kernel figures are totals; both sides run the same model.
  EXPECT_FALSE(d.per_step);
  EXPECT_NEAR(d.kernels.after_total_ms / d.kernels.before_total_ms, 1.0, 0.1);
  // The host side changed: batch collation (aten::stack/cat) leaves the main process.
  bool stack_removed = false;
  for (const auto& n : d.ops.removed) stack_removed |= n.name == "aten::stack";
  EXPECT_TRUE(stack_removed);
}

TEST(DiffCorpus, HtaTraceDiffPair) {
  SD_CORPUS_OR_SKIP(a, "hta-testdata/trace_diff/control/control.json.gz");
  SD_CORPUS_OR_SKIP(b, "hta-testdata/trace_diff/test/test.json.gz");
  Pair p = DiffCorpus(a, b);
  const DiffReport& d = p.diff;
  EXPECT_GT(d.before.step_count, 0);
  EXPECT_GT(d.after.step_count, 0);
  EXPECT_GT(d.after.median_step_ms, d.before.median_step_ms);  // the test run is slower
  ASSERT_TRUE(d.step_change_pct);
  EXPECT_GT(*d.step_change_pct, 20);
  // Different kernels ran: some added and some slower, each list sorted by |change|.
  EXPECT_GT(d.kernels.added_total, 0);
  EXPECT_GT(d.kernels.slower_total, 0);
  for (size_t i = 1; i < d.kernels.slower.size(); ++i)
    EXPECT_GE(std::abs(d.kernels.slower[i - 1].delta_ms), std::abs(d.kernels.slower[i].delta_ms));
  EXPECT_GT(d.kernels.after_total_ms, d.kernels.before_total_ms);
}

TEST(DiffCli, DataLoaderPairAllFormats) {
  SD_CORPUS_OR_SKIP(a, "kineto-tb-plugin-samples/resnet50_num_workers_0");
  SD_CORPUS_OR_SKIP(b, "kineto-tb-plugin-samples/resnet50_num_workers_4");
  auto text = testing::RunCli("diff '" + a + "' '" + b + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Median step: 152 ms -> "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Verdict: input -> "), std::string::npos) << text.out;
  auto json = testing::RunCli("diff '" + a + "' '" + b + "' --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"verdict_changed\": true"), std::string::npos) << json.out.substr(0, 2000);
  for (const char* f : {"md", "html"}) {
    auto r = testing::RunCli("diff '" + a + "' '" + b + "' -f " + f);
    EXPECT_EQ(r.exit_code, 0) << f << ": " << r.err;
    EXPECT_NE(r.out.find("input"), std::string::npos) << f;
  }
  auto bad = testing::RunCli("diff '" + a + "' /nonexistent/trace.json");
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace stepdoctor
