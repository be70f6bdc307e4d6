// Every reproducer in ../shared/fuzz-found (inputs that reached undefined behaviour in the
// importers and analyses) through import, diagnose and scalars as the CLI reads a file: each
// either fails with a message naming it, or gives a trace held to the time range and a report
// with no absurd figure. Then each README row's wrong report, checked fixed. Skipped where the
// folder is absent; the inline equivalents in tests/{chrome,samples,xplane,tfevents} always run.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>

#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/scalars_to_summary.h"
#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/render/scalars_render.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

namespace fs = std::filesystem;

struct Replayed {
  Status status;
  ImportResult imported;
  Report report;
  std::string text;     // diagnose's text report
  ScalarsSummary scalars;
};

Replayed Replay(const std::string& path) {
  Replayed out;
  auto r = ImportPaths({path});
  out.status = r.status();
  if (!r.ok()) return out;
  out.imported = std::move(*r);
  out.report = AnalyzeTrace(out.imported.trace);
  out.text = RenderText(out.report, {});
  (void)RenderJson(out.report, {});
  out.scalars = ScalarsToSummary(out.imported);
  return out;
}

// Whether a figure is a plausible one: finite and within [lo, hi].
bool Within(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

void ExpectTraceInRange(const Trace& t) {
  for (const auto& tl : t.timelines)
    for (uint32_t i = 0; i < tl.ev.size(); ++i) {
      EXPECT_TRUE(TimeInRange(tl.ev.start_ns[i])) << tl.name;
      EXPECT_GE(tl.ev.dur_ns[i], 0) << tl.name;
      EXPECT_TRUE(AddToTime(tl.ev.start_ns[i], tl.ev.dur_ns[i]).has_value()) << tl.name;
    }
  for (const auto& c : t.counters)
    for (int64_t ts : c.ts_ns) EXPECT_TRUE(TimeInRange(ts)) << c.name;
  for (const auto& s : t.scalars) {
    for (int64_t step : s.step) EXPECT_LE(std::abs(step), kMaxStepNumber) << s.tag;
    for (double w : s.wall_time_s) EXPECT_TRUE(SecondsToNs(w).has_value()) << s.tag;
  }
  for (const auto& d : t.devices) EXPECT_GE(d.memory_bytes, 0) << d.name;
}

void ExpectReportSane(const Replayed& r) {
  const Report& rep = r.report;
  const double max_ms = double(2 * kMaxTimeNs) / 1e6;
  EXPECT_TRUE(Within(rep.window_ms, 0, max_ms)) << rep.window_ms;
  for (const auto& s : rep.steps.steps) EXPECT_TRUE(Within(s.duration_ms, 0, max_ms)) << s.duration_ms;
  for (double v : {rep.steps.median_ms, rep.steps.p90_ms, rep.steps.max_ms, rep.steps.min_ms, rep.steps.mean_ms})
    EXPECT_TRUE(Within(v, 0, max_ms)) << v;
  for (const auto& b : rep.breakdown) {
    EXPECT_TRUE(Within(b.pct, 0, 100.01)) << b.category << " " << b.pct;
    EXPECT_TRUE(Within(b.ms_per_step, 0, max_ms)) << b.category;
  }
  for (const auto& f : rep.findings) {
    EXPECT_TRUE(Within(f.share_pct, 0, 100.01)) << f.id;
    EXPECT_TRUE(Within(f.gain_upper_bound, 1, 1e6)) << f.id;
  }
  for (const auto& d : rep.devices)
    for (double v : {d.idle_pct, d.compute_pct, d.non_compute_pct}) EXPECT_TRUE(Within(v, 0, 100.01)) << d.device;
  // The wrong reports were all numbers no run has: negative spans, 20-digit seconds, 1e46 GiB.
  EXPECT_EQ(r.text.find(" over -"), std::string::npos) << r.text;
  EXPECT_FALSE(std::regex_search(r.text, std::regex("[0-9]{13,}"))) << r.text;
  EXPECT_FALSE(std::regex_search(r.text, std::regex("\\b(nan|inf)\\b"))) << r.text;
  for (const auto& run : r.scalars.runs) {
    EXPECT_TRUE(Within(run.stall_share_pct, 0, 100.01)) << run.run;
    EXPECT_TRUE(Within(run.lost_s, 0, 1e12)) << run.run;
  }
}

TEST(FuzzFound, EveryReproducerImportsAndReportsSanely) {
  std::string dir = testing::SharedPath("fuzz-found");
  if (dir.empty()) GTEST_SKIP() << "../shared/fuzz-found not present: skipping the reproducer replay";
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() == ".md") continue;
    ++files;
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    Replayed r = Replay(e.path().string());
    if (!r.status.ok()) {
      EXPECT_NE(r.status.message().find(name), std::string::npos) << r.status.message();
      continue;
    }
    ExpectTraceInRange(r.imported.trace);
    ExpectReportSane(r);
  }
  EXPECT_GT(files, 0);
}

// Loads one reproducer by name; false (the caller skips) when it is not there.
bool Load(const std::string& name, Replayed* out) {
  std::string path = testing::SharedPath("fuzz-found/" + name);
  if (path.empty()) return false;
  *out = Replay(path);
  return true;
}

#define LOAD_OR_SKIP(var, name) \
  Replayed var;                 \
  if (!Load(name, &var)) GTEST_SKIP() << "../shared/fuzz-found/" << name << " not present"

TEST(FuzzFound, ChromeTimesPastTheRangeAreNamed) {
  for (const char* name : {"chrome_ts_plus_dur_overflow.json", "chrome_B_E_span_overflow.json"}) {
    LOAD_OR_SKIP(r, name);
    EXPECT_EQ(r.status.code(), ErrorCode::kCorruptInput) << name;
    EXPECT_NE(r.status.message().find("a time outside the representable range"), std::string::npos)
        << r.status.message();
  }
}

TEST(FuzzFound, ChromeIdsStayApart) {
  LOAD_OR_SKIP(cast, "chrome_pid_tid_float_cast.json");
  ASSERT_TRUE(cast.status.ok()) << cast.status.message();
  EXPECT_EQ(cast.imported.trace.timelines.size(), 2u);
  EXPECT_EQ(cast.imported.trace.diagnostics.count(ImportIssue::kIdNotInt64), 2u);
  LOAD_OR_SKIP(strings, "chrome_string_pid_collides_2p60.json");
  ASSERT_TRUE(strings.status.ok()) << strings.status.message();
  EXPECT_EQ(strings.imported.trace.timelines.size(), 3u);
}

TEST(FuzzFound, SampleWindowsAreTheRealOnes) {
  LOAD_OR_SKIP(sm, "sagemaker_huge_timestamp.json");
  ASSERT_TRUE(sm.status.ok()) << sm.status.message();
  EXPECT_NE(sm.text.find("samples: 19 over 9.5 s"), std::string::npos) << sm.text;
  LOAD_OR_SKIP(y, "gpu_usage_year8834.csv");
  ASSERT_TRUE(y.status.ok()) << y.status.message();
  EXPECT_NE(y.text.find("samples: 18 over 9.0 s"), std::string::npos) << y.text;
  LOAD_OR_SKIP(y4, "gpu_csv_year_overflow.csv");
  EXPECT_EQ(y4.status.code(), ErrorCode::kEmptyInput);
  EXPECT_NE(y4.status.message().find("outside the representable range"), std::string::npos) << y4.status.message();
}

TEST(FuzzFound, HugeMemoryTotalIsNotBelieved) {
  LOAD_OR_SKIP(r, "gpu_usage_huge_memtotal.csv");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.imported.trace.diagnostics.count(ImportIssue::kValueOutOfRange), 19u);
  EXPECT_EQ(r.text.find("GiB of"), std::string::npos) << r.text;
}

TEST(FuzzFound, XPlanePastInt64IsCounted) {
  LOAD_OR_SKIP(r, "xplane_timestamp_near_int64_max.xplane.pb");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.imported.trace.diagnostics.count(ImportIssue::kTimeOutOfRange), 3u);
  EXPECT_EQ(r.report.steps.count, 0);
}

TEST(FuzzFound, EventFileStepsPastTheBoundAreCounted) {
  LOAD_OR_SKIP(r, "events.out.tfevents.step_overflow");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.scalars.runs.empty());
  std::string text = RenderScalarsText(r.scalars, {});
  EXPECT_EQ(text.find("lost"), std::string::npos) << text;
  EXPECT_NE(text.find("step number"), std::string::npos) << text;
}

}  // namespace
}  // namespace stepdoctor
