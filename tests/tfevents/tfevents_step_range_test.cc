// Event files against the range (core/checked_time.h): step numbers past kMaxStepNumber and
// wall times past the time range are counted and skipped, so the stall analysis can subtract
// any two steps. The ../shared/fuzz-found reproducer written inline, and both sides of the bound.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "stepdoctor/analysis/scalars_to_summary.h"
#include "stepdoctor/analysis/tf_event_stalls.h"
#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/tfevents/tfevents_to_trace.h"
#include "stepdoctor/render/scalars_render.h"
#include "tfevents/event_file_writer.h"

namespace stepdoctor {
namespace {

ImportResult ImportEvents(const std::string& bytes) {
  ImportResult r;
  auto src = MemorySource(bytes, "train/events.out.tfevents.1700000000.test");
  Status st = ImportTfEvents(*src, r.trace);
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

// fuzz-found/events.out.tfevents.step_overflow: `loss` at step -5e18, then steps 5e18 .. 5e18+7,
// one a second. The step difference (1e19) overflowed int64 and `scalars` reported
// "8446744073709551616.0 s lost (105584300921369395200.0% of 8 s)". Every step is past
// kMaxStepNumber: all nine are counted, and the summary says so instead of inventing a stall.
TEST(TfEventsStepRange, StepOverflowReproducer) {
  testing::EventFileWriter w;
  w.Scalar("loss", -5'000'000'000'000'000'000, 1.7e9, 1.0f);
  for (int i = 0; i < 8; ++i) w.Scalar("loss", 5'000'000'000'000'000'000 + i, 1.7e9 + 1 + i, 1.0f);
  ImportResult r = ImportEvents(w.bytes());
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kValueOutOfRange), 9u);
  EXPECT_TRUE(r.trace.scalars.empty());
  ScalarsSummary s = ScalarsToSummary(r);
  EXPECT_TRUE(s.runs.empty());
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("9 "), std::string::npos) << s.notes[0];
  EXPECT_NE(s.notes[0].find("step number"), std::string::npos) << s.notes[0];
  EXPECT_EQ(RenderScalarsText(s, {}).find("lost"), std::string::npos);
}

// The widest span of steps the bound allows: -kMaxStepNumber, then the last eight steps below
// kMaxStepNumber, one a second. A step past the bound is counted. The 2^63 - 9 step jump in
// 1 s is no stall (it is far quicker than a second a step), and nothing overflows.
TEST(TfEventsStepRange, StepsOnBothSidesOfTheBound) {
  testing::EventFileWriter w;
  w.Scalar("loss", -kMaxStepNumber, 1.7e9, 1.0f);
  for (int i = 7; i >= 0; --i) w.Scalar("loss", kMaxStepNumber - i, 1.7e9 + 8 - i, 1.0f);
  w.Scalar("loss", kMaxStepNumber + 1, 1.7e9 + 9, 1.0f);
  w.Scalar("loss", -kMaxStepNumber - 1, 1.7e9 + 10, 1.0f);
  ImportResult r = ImportEvents(w.bytes());
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kValueOutOfRange), 2u);
  ASSERT_EQ(r.trace.scalars.size(), 1u);
  EXPECT_EQ(r.trace.scalars[0].step.size(), 9u);

  std::vector<EventStallRun> runs = ScalarsToEventStalls(r.trace.scalars);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first_step, -kMaxStepNumber);
  EXPECT_EQ(runs[0].last_step, kMaxStepNumber);
  EXPECT_TRUE(runs[0].stalls.empty());
  EXPECT_DOUBLE_EQ(runs[0].seconds_per_step, 1.0);
  EXPECT_DOUBLE_EQ(runs[0].stall_share_pct, 0.0);
  EXPECT_TRUE(std::isfinite(runs[0].steps_per_second));

  ScalarsSummary s = ScalarsToSummary(r);
  ASSERT_EQ(s.tags.size(), 1u);
  EXPECT_EQ(s.tags[0].first_step, -kMaxStepNumber);
  EXPECT_EQ(s.tags[0].last_step, kMaxStepNumber);
}

// Wall times are seconds since the epoch: past the time range, or not finite, they are counted.
TEST(TfEventsStepRange, WallTimesOutsideTheRange) {
  testing::EventFileWriter w;
  w.Scalar("loss", 1, 1.7e9, 1.0f)
      .Scalar("loss", 2, 4611686018.0, 1.0f)  // 2116: in range
      .Scalar("loss", 3, 4611686019.0, 1.0f)
      .Scalar("loss", 4, 1e300, 1.0f)
      .Scalar("loss", 5, std::numeric_limits<double>::infinity(), 1.0f)
      .Scalar("loss", 6, std::nan(""), 1.0f);
  ImportResult r = ImportEvents(w.bytes());
  EXPECT_EQ(r.trace.diagnostics.count(ImportIssue::kTimeOutOfRange), 4u);
  ASSERT_EQ(r.trace.scalars.size(), 1u);
  EXPECT_EQ(r.trace.scalars[0].step.size(), 2u);
}

}  // namespace
}  // namespace stepdoctor
