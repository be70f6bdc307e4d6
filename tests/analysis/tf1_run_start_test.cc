// The executor's _SOURCE op opens each TF1 run in a few microseconds; a first run's that takes a
// millisecond is the session setting up, counted as one-off start-up (cold_start, with TF1 code
// to trace a warm run), not as per-op bookkeeping that XLA would remove. A _SOURCE that is slow
// in every run stays bookkeeping, and a quick one changes nothing.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

// `runs` sess.run calls, each a _SOURCE of `source_us[k]` then 20 ops of 10-40 us, 100 us apart.
std::string Runs(const std::vector<double>& source_us) {
  std::string ev = testing::Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  double t = 0;
  for (double src : source_us) {
    ev += testing::Tf1Node(1, "NoOp", "_SOURCE", t, src);
    t += src + 5;
    for (int i = 0; i < 20; ++i) {
      ev += testing::Tf1Op(1, i % 2 ? "MatMul" : "Relu", t, i % 2 ? 40 : 10);
      t += (i % 2 ? 40 : 10) + 2;
    }
    t += 100;
  }
  return "{\"traceEvents\":[" + ev.substr(1) + "]}";
}

const TopEvent* StartupEvent(const Finding* f, const char* name) {
  if (!f) return nullptr;
  for (const TopEvent& e : f->top_events)
    if (e.name == name) return &e;
  return nullptr;
}

TEST(Tf1RunStart, AFirstRunsSlowSourceIsStartUpNotBookkeeping) {
  const Report r = AnalyzeTrace(testing::ImportChrome(Runs({1200})));
  const Finding* cold = testing::FindFinding(r, "cold_start");
  ASSERT_NE(cold, nullptr) << r.verdict.summary;
  EXPECT_NE(StartupEvent(cold, "_SOURCE"), nullptr);
  EXPECT_NE(cold->fix.tensorflow.find("RunOptions.FULL_TRACE"), std::string::npos) << cold->fix.tensorflow;
  EXPECT_EQ(cold->fix.tensorflow.find("profile_batch"), std::string::npos) << cold->fix.tensorflow;
  if (const Finding* host = testing::FindFinding(r, "host_bound")) {
    EXPECT_LT(host->share_pct, 50) << host->title;
  }
}

TEST(Tf1RunStart, LaterRunsStartQuicklySoOnlyTheFirstIsStartUp) {
  auto slow_starts = [](const std::vector<double>& sources) {
    Trace t = testing::ImportChrome(Runs(sources));
    const WorkerId w = PrimaryWorker(t);
    int n = 0;
    for (const FirstCall& f : SlowFirstCalls(t, w, INT64_MIN, INT64_MAX)) n += t.str(f.name) == "_SOURCE";
    return n;
  };
  // The first run's 1.2 ms start is one-off; later runs are warm; every run slow: none.
  EXPECT_EQ(slow_starts({1200, 8, 9, 7}), 1);
  EXPECT_EQ(slow_starts({1200, 1100, 1250}), 0);
  EXPECT_EQ(slow_starts({12, 8, 9, 7}), 0);
}

TEST(Tf1RunStart, ASourceSlowInEveryRunStaysBookkeeping) {
  const Report r = AnalyzeTrace(testing::ImportChrome(Runs({1200, 1100, 1250})));
  EXPECT_EQ(StartupEvent(testing::FindFinding(r, "cold_start"), "_SOURCE"), nullptr) << r.verdict.summary;
  const Finding* host = testing::FindFinding(r, "host_bound");
  ASSERT_NE(host, nullptr) << r.verdict.summary;
  EXPECT_GT(host->share_pct, 50) << host->title;
}

TEST(Tf1RunStart, AQuickSourceIsNoStartUp) {
  const Report r = AnalyzeTrace(testing::ImportChrome(Runs({12})));
  EXPECT_EQ(testing::FindFinding(r, "cold_start"), nullptr) << r.verdict.summary;
}

}  // namespace
}  // namespace stepdoctor
